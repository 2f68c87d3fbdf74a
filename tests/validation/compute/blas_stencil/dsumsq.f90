! dsumsq: the 2-norm of x the simple way (dnrm2 without its scaling): a sum of squares
! and one square root.
subroutine dsumsq(n, x, nrm)
  implicit none
  integer, intent(in) :: n
  real(8), intent(in) :: x(n)
  real(8), intent(out) :: nrm
  integer :: i
  real(8) :: ssq
  ssq = 0.0d0
  do i = 1, n
    ssq = ssq + x(i)*x(i)
  end do
  nrm = sqrt(ssq)
end subroutine dsumsq
