! Livermore Fortran Kernel 1 -- hydro fragment (McMahon 1986), loop length n.
subroutine lfk01(n, q, r, t, x, y, zx)
  implicit none
  integer, intent(in) :: n
  real(8), intent(in) :: q, r, t
  real(8), intent(out) :: x(n)
  real(8), intent(in) :: y(n), zx(n + 11)
  integer :: k
  do k = 1, n
    x(k) = q + y(k)*(r*zx(k + 10) + t*zx(k + 11))
  end do
end subroutine lfk01
