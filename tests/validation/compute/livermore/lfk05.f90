! Livermore Fortran Kernel 5 -- tri-diagonal elimination, below diagonal (McMahon 1986):
! a first-order linear recurrence, loop length n.
subroutine lfk05(n, x, y, z)
  implicit none
  integer, intent(in) :: n
  real(8), intent(inout) :: x(n)
  real(8), intent(in) :: y(n), z(n)
  integer :: i
  do i = 2, n
    x(i) = z(i)*(y(i) - x(i - 1))
  end do
end subroutine lfk05
