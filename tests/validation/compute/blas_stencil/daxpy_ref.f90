! daxpy_ref: y = y + da x in the unit-stride form of the reference BLAS (LINPACK style):
! a clean-up loop for mod(n, 4) elements, then a loop unrolled by four.
subroutine daxpy_ref(n, da, dx, dy)
  implicit none
  integer, intent(in) :: n
  real(8), intent(in) :: da, dx(n)
  real(8), intent(inout) :: dy(n)
  integer :: i, m
  m = mod(n, 4)
  do i = 1, m
    dy(i) = dy(i) + da*dx(i)
  end do
  do i = m + 1, n, 4
    dy(i) = dy(i) + da*dx(i)
    dy(i + 1) = dy(i + 1) + da*dx(i + 1)
    dy(i + 2) = dy(i + 2) + da*dx(i + 2)
    dy(i + 3) = dy(i + 3) + da*dx(i + 3)
  end do
end subroutine daxpy_ref
