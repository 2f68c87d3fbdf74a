! Livermore Fortran Kernel 4 -- banded linear equations (McMahon 1986): three rows
! (k = 7, 504, 1001 of a 1001-vector), each an inner product over every 5th element of y,
! inner loop length n/5.
subroutine lfk04(n, x, xz, y)
  implicit none
  integer, intent(in) :: n
  real(8), intent(inout) :: x(1001)
  real(8), intent(in) :: xz(n + 1001), y(n)
  integer :: k, j, lw, m
  real(8) :: temp
  m = (1001 - 7)/2
  do k = 7, 1001, m
    lw = k - 6
    temp = x(k - 1)
    do j = 5, n, 5
      temp = temp - xz(lw)*y(j)
      lw = lw + 1
    end do
    x(k - 1) = y(5)*temp
  end do
end subroutine lfk04
