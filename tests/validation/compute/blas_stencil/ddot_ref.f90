! ddot_ref: the dot product in the unit-stride form of the reference BLAS ddot: a
! clean-up loop for mod(n, 5) elements, then a loop unrolled by five into one sum.
subroutine ddot_ref(n, dx, dy, dot)
  implicit none
  integer, intent(in) :: n
  real(8), intent(in) :: dx(n), dy(n)
  real(8), intent(out) :: dot
  integer :: i, m
  real(8) :: dtemp
  dtemp = 0.0d0
  m = mod(n, 5)
  do i = 1, m
    dtemp = dtemp + dx(i)*dy(i)
  end do
  do i = m + 1, n, 5
    dtemp = dtemp + dx(i)*dy(i) + dx(i + 1)*dy(i + 1) + dx(i + 2)*dy(i + 2) + &
            dx(i + 3)*dy(i + 3) + dx(i + 4)*dy(i + 4)
  end do
  dot = dtemp
end subroutine ddot_ref
