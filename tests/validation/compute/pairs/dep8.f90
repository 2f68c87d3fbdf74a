! dep8: the other half of vec8's pair -- the same operations, but each element is computed
! from the one the previous iteration wrote (a carried dependence of distance 1), so no
! compiler vectorizes it and an iteration waits for the multiplication and the addition
! before it. real(8).
subroutine dep8(n, a, b, c)
  implicit none
  integer, intent(in) :: n
  real(8), intent(inout) :: a(1024)
  real(8), intent(in) :: b(1024), c(1024)
  integer :: i
  do i = 2, 1024
    a(i) = a(i - 1)*c(i) + b(i)
  end do
end subroutine dep8
