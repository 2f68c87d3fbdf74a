! 2-D Jacobi sweep (five-point stencil): one sweep over the interior of an n x n grid.
subroutine jacobi(n, a, b)
  implicit none
  integer, intent(in) :: n
  real(8), intent(in) :: a(n, n)
  real(8), intent(inout) :: b(n, n)
  integer :: i, j
  do j = 2, n - 1
    do i = 2, n - 1
      b(i, j) = 0.25d0 * (a(i - 1, j) + a(i + 1, j) + a(i, j - 1) + a(i, j + 1))
    end do
  end do
end subroutine jacobi
