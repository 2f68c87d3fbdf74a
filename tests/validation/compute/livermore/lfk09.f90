! Livermore Fortran Kernel 9 -- integrate predictors (McMahon 1986), loop length n over
! the columns of px(25, n).
subroutine lfk09(n, dm22, dm23, dm24, dm25, dm26, dm27, dm28, c0, px)
  implicit none
  integer, intent(in) :: n
  real(8), intent(in) :: dm22, dm23, dm24, dm25, dm26, dm27, dm28, c0
  real(8), intent(inout) :: px(25, n)
  integer :: i
  do i = 1, n
    px(1, i) = dm28*px(13, i) + dm27*px(12, i) + dm26*px(11, i) + &
               dm25*px(10, i) + dm24*px(9, i) + dm23*px(8, i) + &
               dm22*px(7, i) + c0*(px(5, i) + px(6, i)) + px(3, i)
  end do
end subroutine lfk09
