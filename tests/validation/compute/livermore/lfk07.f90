! Livermore Fortran Kernel 7 -- equation of state fragment (McMahon 1986), loop length n.
subroutine lfk07(n, q, r, t, x, y, z, u)
  implicit none
  integer, intent(in) :: n
  real(8), intent(in) :: q, r, t
  real(8), intent(out) :: x(n)
  real(8), intent(in) :: y(n), z(n), u(n + 6)
  integer :: k
  do k = 1, n
    x(k) = u(k) + r*(z(k) + r*y(k)) + &
           t*(u(k + 3) + r*(u(k + 2) + r*u(k + 1)) + &
              t*(u(k + 6) + q*(u(k + 5) + q*u(k + 4))))
  end do
end subroutine lfk07
