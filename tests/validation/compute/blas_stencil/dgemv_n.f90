! dgemv_n: y = A x, column order (the reference dgemv 'N' form): y is cleared, then
! for each column j, y = y + x(j) A(:, j) -- unit stride in A.
subroutine dgemv_n(n, a, x, y)
  implicit none
  integer, intent(in) :: n
  real(8), intent(in) :: a(n, n), x(n)
  real(8), intent(out) :: y(n)
  integer :: i, j
  real(8) :: temp
  do i = 1, n
    y(i) = 0.0d0
  end do
  do j = 1, n
    temp = x(j)
    do i = 1, n
      y(i) = y(i) + temp*a(i, j)
    end do
  end do
end subroutine dgemv_n
