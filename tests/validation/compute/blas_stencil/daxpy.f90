! daxpy: y = y + da x, unit stride, written as a plain loop.
subroutine daxpy(n, da, x, y)
  implicit none
  integer, intent(in) :: n
  real(8), intent(in) :: da, x(n)
  real(8), intent(inout) :: y(n)
  integer :: i
  do i = 1, n
    y(i) = y(i) + da*x(i)
  end do
end subroutine daxpy
