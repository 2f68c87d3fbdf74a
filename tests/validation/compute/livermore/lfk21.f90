! Livermore Fortran Kernel 21 -- matrix * matrix product (McMahon 1986):
! px(25, n) += vy(25, 25) cx(25, n), the loop over the n columns innermost.
subroutine lfk21(n, px, vy, cx)
  implicit none
  integer, intent(in) :: n
  real(8), intent(inout) :: px(25, n)
  real(8), intent(in) :: vy(25, 25), cx(25, n)
  integer :: i, j, k
  do k = 1, 25
    do i = 1, 25
      do j = 1, n
        px(i, j) = px(i, j) + vy(i, k)*cx(k, j)
      end do
    end do
  end do
end subroutine lfk21
