! vec8: the vectorizable half of a pair -- every iteration is independent, and the trip
! count is a constant, so gfortran vectorizes it even at -O2 (the "very cheap" cost model
! takes a loop whose trip count is a known multiple of the vector). real(8).
subroutine vec8(n, a, b, c)
  implicit none
  integer, intent(in) :: n
  real(8), intent(out) :: a(1024)
  real(8), intent(in) :: b(1024), c(1024)
  integer :: i
  do i = 1, 1024
    a(i) = b(i)*c(i) + 1.0d0
  end do
end subroutine vec8
