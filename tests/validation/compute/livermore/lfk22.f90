! Livermore Fortran Kernel 22 -- Planckian distribution (McMahon 1986), loop length n:
! a division and an EXP per element.
subroutine lfk22(n, u, v, x, y, w)
  implicit none
  integer, intent(in) :: n
  real(8), intent(inout) :: u(n)
  real(8), intent(in) :: v(n), x(n)
  real(8), intent(out) :: y(n), w(n)
  integer :: k
  real(8) :: expmax
  expmax = 20.0d0
  u(n) = 0.99d0*expmax*v(n)
  do k = 1, n
    y(k) = u(k)/v(k)
    w(k) = x(k)/(exp(y(k)) - 1.0d0)
  end do
end subroutine lfk22
