! Livermore Fortran Kernel 13 -- 2-D particle in cell (McMahon 1986): n particles
! gather from and scatter into 64 x 64 grids; MOD2N(i, 64) of the original is iand(i, 63).
subroutine lfk13(n, p, b, c, y, z, e, f, h)
  implicit none
  integer, intent(in) :: n
  real(8), intent(inout) :: p(4, n), h(64, 64)
  real(8), intent(in) :: b(64, 64), c(64, 64), y(96), z(96)
  integer, intent(in) :: e(96), f(96)
  integer :: ip, i1, j1, i2, j2
  do ip = 1, n
    i1 = p(1, ip)
    j1 = p(2, ip)
    i1 = 1 + iand(i1, 63)
    j1 = 1 + iand(j1, 63)
    p(3, ip) = p(3, ip) + b(i1, j1)
    p(4, ip) = p(4, ip) + c(i1, j1)
    p(1, ip) = p(1, ip) + p(3, ip)
    p(2, ip) = p(2, ip) + p(4, ip)
    i2 = p(1, ip)
    j2 = p(2, ip)
    i2 = iand(i2, 63)
    j2 = iand(j2, 63)
    p(1, ip) = p(1, ip) + y(i2 + 32)
    p(2, ip) = p(2, ip) + z(j2 + 32)
    i2 = i2 + e(i2 + 32)
    j2 = j2 + f(j2 + 32)
    h(i2, j2) = h(i2, j2) + 1.0d0
  end do
end subroutine lfk13
