! Livermore Fortran Kernel 10 -- difference predictors (McMahon 1986), loop length n over
! the columns of px(25, n) and cx(25, n).
subroutine lfk10(n, px, cx)
  implicit none
  integer, intent(in) :: n
  real(8), intent(inout) :: px(25, n)
  real(8), intent(in) :: cx(25, n)
  integer :: i
  real(8) :: ar, br, cr
  do i = 1, n
    ar = cx(5, i)
    br = ar - px(5, i)
    px(5, i) = ar
    cr = br - px(6, i)
    px(6, i) = br
    ar = cr - px(7, i)
    px(7, i) = cr
    br = ar - px(8, i)
    px(8, i) = ar
    cr = br - px(9, i)
    px(9, i) = br
    ar = cr - px(10, i)
    px(10, i) = cr
    br = ar - px(11, i)
    px(11, i) = ar
    cr = br - px(12, i)
    px(12, i) = br
    px(14, i) = cr - px(13, i)
    px(13, i) = cr
  end do
end subroutine lfk10
