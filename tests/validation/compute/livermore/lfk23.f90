! Livermore Fortran Kernel 23 -- 2-D implicit hydrodynamics fragment (McMahon 1986):
! a Gauss-Seidel-like sweep (j = 2..6, k = 2..n) that reads za(k-1, j) just written.
subroutine lfk23(n, za, zr, zb, zu, zv, zz)
  implicit none
  integer, intent(in) :: n
  real(8), intent(inout) :: za(n + 1, 7)
  real(8), intent(in) :: zr(n, 7), zb(n, 7), zu(n, 7), zv(n, 7), zz(n, 7)
  integer :: j, k
  real(8) :: qa
  do j = 2, 6
    do k = 2, n
      qa = za(k, j + 1)*zr(k, j) + za(k, j - 1)*zb(k, j) + &
           za(k + 1, j)*zu(k, j) + za(k - 1, j)*zv(k, j) + zz(k, j)
      za(k, j) = za(k, j) + 0.175d0*(qa - za(k, j))
    end do
  end do
end subroutine lfk23
