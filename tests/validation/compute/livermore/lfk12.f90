! Livermore Fortran Kernel 12 -- first difference (McMahon 1986), loop length n.
subroutine lfk12(n, x, y)
  implicit none
  integer, intent(in) :: n
  real(8), intent(out) :: x(n)
  real(8), intent(in) :: y(n + 1)
  integer :: k
  do k = 1, n
    x(k) = y(k + 1) - y(k)
  end do
end subroutine lfk12
