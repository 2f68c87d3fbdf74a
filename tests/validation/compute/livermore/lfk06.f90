! Livermore Fortran Kernel 6 -- general linear recurrence equations (McMahon 1986):
! a triangular nest, n(n-1)/2 multiply-adds, b read along its rows (stride n).
subroutine lfk06(n, w, b)
  implicit none
  integer, intent(in) :: n
  real(8), intent(inout) :: w(n)
  real(8), intent(in) :: b(n, n)
  integer :: i, k
  do i = 2, n
    w(i) = 0.01d0
    do k = 1, i - 1
      w(i) = w(i) + b(i, k)*w(i - k)
    end do
  end do
end subroutine lfk06
