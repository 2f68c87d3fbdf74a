! Livermore Fortran Kernel 11 -- first sum (prefix sum, McMahon 1986), loop length n.
subroutine lfk11(n, x, y)
  implicit none
  integer, intent(in) :: n
  real(8), intent(out) :: x(n)
  real(8), intent(in) :: y(n)
  integer :: k
  x(1) = y(1)
  do k = 2, n
    x(k) = x(k - 1) + y(k)
  end do
end subroutine lfk11
