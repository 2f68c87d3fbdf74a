! Matrix-vector product y = y + A x, column-oriented (j outer, i inner: unit stride in A).
subroutine matvec(n, a, x, y)
  implicit none
  integer, intent(in) :: n
  real(8), intent(in) :: a(n, n), x(n)
  real(8), intent(inout) :: y(n)
  integer :: i, j
  do j = 1, n
    do i = 1, n
      y(i) = y(i) + a(i, j) * x(j)
    end do
  end do
end subroutine matvec
