! Livermore Fortran Kernel 19 -- general linear recurrence equations (McMahon 1986): a
! forward and a backward first-order recurrence through the scalar stb5, loop length n.
subroutine lfk19(n, stb5, b5, sa, sb)
  implicit none
  integer, intent(in) :: n
  real(8), intent(inout) :: stb5
  real(8), intent(inout) :: b5(n)
  real(8), intent(in) :: sa(n), sb(n)
  integer :: i, k, kb5i
  kb5i = 0
  do k = 1, n
    b5(k + kb5i) = sa(k) + stb5*sb(k)
    stb5 = b5(k + kb5i) - stb5
  end do
  do i = 1, n
    k = n - i + 1
    b5(k + kb5i) = sa(k) + stb5*sb(k)
    stb5 = b5(k + kb5i) - stb5
  end do
end subroutine lfk19
