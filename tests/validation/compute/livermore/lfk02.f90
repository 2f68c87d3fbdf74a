! Livermore Fortran Kernel 2 -- incomplete Cholesky conjugate gradient (ICCG) excerpt
! (McMahon 1986), loop length n: log2(n) passes, each halving the length of the strided
! inner loop. The original GO TO 222 loop is written as DO ... EXIT (same order).
subroutine lfk02(n, x, v)
  implicit none
  integer, intent(in) :: n
  real(8), intent(inout) :: x(2*n)
  real(8), intent(in) :: v(2*n)
  integer :: ii, ipnt, ipntp, i, k
  ii = n
  ipntp = 0
  do
    ipnt = ipntp
    ipntp = ipntp + ii
    ii = ii/2
    i = ipntp
    do k = ipnt + 2, ipntp, 2
      i = i + 1
      x(i) = x(k) - v(k)*x(k - 1) - v(k + 1)*x(k + 1)
    end do
    if (ii <= 1) exit
  end do
end subroutine lfk02
