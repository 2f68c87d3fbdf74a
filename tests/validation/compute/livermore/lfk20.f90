! Livermore Fortran Kernel 20 -- discrete ordinates transport, conditional recurrence
! (McMahon 1986), loop length n.
subroutine lfk20(n, dk, s, t, x, y, g, xx, w, v, u, vx, z)
  implicit none
  integer, intent(in) :: n
  real(8), intent(in) :: dk, s, t
  real(8), intent(out) :: x(n)
  real(8), intent(inout) :: xx(n + 1)
  real(8), intent(in) :: y(n), g(n), w(n), v(n), u(n), vx(n), z(n)
  integer :: k
  real(8) :: di, dn
  do k = 1, n
    di = y(k) - g(k)/(xx(k) + dk)
    dn = 0.2d0
    if (di /= 0.0d0) dn = max(s, min(z(k)/di, t))
    x(k) = ((w(k) + v(k)*dn)*xx(k) + u(k))/(vx(k) + v(k)*dn)
    xx(k + 1) = (x(k) - xx(k))*dn + xx(k)
  end do
end subroutine lfk20
