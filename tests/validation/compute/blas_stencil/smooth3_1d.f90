! smooth3_1d: a 1-D 3-point smoother (binomial weights 1/4, 1/2, 1/4) into a second array.
subroutine smooth3_1d(n, a, b)
  implicit none
  integer, intent(in) :: n
  real(8), intent(in) :: a(n)
  real(8), intent(inout) :: b(n)
  integer :: i
  do i = 2, n - 1
    b(i) = 0.25d0*a(i - 1) + 0.5d0*a(i) + 0.25d0*a(i + 1)
  end do
end subroutine smooth3_1d
