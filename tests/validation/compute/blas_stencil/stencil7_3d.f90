! stencil7_3d: one 7-point stencil application on the interior of an n x n x n grid.
subroutine stencil7_3d(n, c0, c1, a, b)
  implicit none
  integer, intent(in) :: n
  real(8), intent(in) :: c0, c1, a(n, n, n)
  real(8), intent(inout) :: b(n, n, n)
  integer :: i, j, k
  do k = 2, n - 1
    do j = 2, n - 1
      do i = 2, n - 1
        b(i, j, k) = c0*a(i, j, k) + c1*(a(i - 1, j, k) + a(i + 1, j, k) + &
                                         a(i, j - 1, k) + a(i, j + 1, k) + &
                                         a(i, j, k - 1) + a(i, j, k + 1))
      end do
    end do
  end do
end subroutine stencil7_3d
