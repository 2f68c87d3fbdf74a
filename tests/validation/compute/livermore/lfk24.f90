! Livermore Fortran Kernel 24 -- find the location of the first minimum of an array
! (McMahon 1986), loop length n.
subroutine lfk24(n, x, m)
  implicit none
  integer, intent(in) :: n
  real(8), intent(inout) :: x(n)
  integer, intent(out) :: m
  integer :: k
  x(n/2) = -1.0d10
  m = 1
  do k = 2, n
    if (x(k) < x(m)) m = k
  end do
end subroutine lfk24
