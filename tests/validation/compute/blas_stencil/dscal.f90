! dscal: x = da x in place, unit stride (the driver passes da = -1, so values stay bounded).
subroutine dscal(n, da, x)
  implicit none
  integer, intent(in) :: n
  real(8), intent(in) :: da
  real(8), intent(inout) :: x(n)
  integer :: i
  do i = 1, n
    x(i) = da*x(i)
  end do
end subroutine dscal
