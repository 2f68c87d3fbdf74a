! stencil5_2d: one 5-point stencil application on the interior of an n x n grid,
! centre and neighbours weighted apart: b = c0 a(i,j) + c1 (sum of the 4 neighbours).
subroutine stencil5_2d(n, c0, c1, a, b)
  implicit none
  integer, intent(in) :: n
  real(8), intent(in) :: c0, c1, a(n, n)
  real(8), intent(inout) :: b(n, n)
  integer :: i, j
  do j = 2, n - 1
    do i = 2, n - 1
      b(i, j) = c0*a(i, j) + c1*(a(i - 1, j) + a(i + 1, j) + a(i, j - 1) + a(i, j + 1))
    end do
  end do
end subroutine stencil5_2d
