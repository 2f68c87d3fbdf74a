! Triangular update: column-oriented forward substitution L b' = b with a unit lower
! triangular L (the LU-style update of the right-hand side, n(n-1)/2 multiply-adds).
subroutine triangular(n, l, b)
  implicit none
  integer, intent(in) :: n
  real(8), intent(in) :: l(n, n)
  real(8), intent(inout) :: b(n)
  integer :: i, j
  do j = 1, n
    do i = j + 1, n
      b(i) = b(i) - l(i, j) * b(j)
    end do
  end do
end subroutine triangular
