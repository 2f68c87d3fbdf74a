! dgemv_t: y = A x, row order: y(i) is the dot product of row i of A with x, the inner
! loop running along a row of the column-major A (stride n).
subroutine dgemv_t(n, a, x, y)
  implicit none
  integer, intent(in) :: n
  real(8), intent(in) :: a(n, n), x(n)
  real(8), intent(out) :: y(n)
  integer :: i, j
  real(8) :: temp
  do i = 1, n
    temp = 0.0d0
    do j = 1, n
      temp = temp + a(i, j)*x(j)
    end do
    y(i) = temp
  end do
end subroutine dgemv_t
