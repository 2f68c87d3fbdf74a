! dep4: vec4's operations on a carried dependence of distance 1: not vectorized. real(4).
subroutine dep4(n, a, b, c)
  implicit none
  integer, intent(in) :: n
  real(4), intent(inout) :: a(2048)
  real(4), intent(in) :: b(2048), c(2048)
  integer :: i
  do i = 2, 2048
    a(i) = a(i - 1)*c(i) + b(i)
  end do
end subroutine dep4
