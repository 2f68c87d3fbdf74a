! vec4: vectorizable, constant trip count, real(4) (four lanes in a 16-byte vector); the
! pair of dep4.
subroutine vec4(n, a, b, c)
  implicit none
  integer, intent(in) :: n
  real(4), intent(out) :: a(2048)
  real(4), intent(in) :: b(2048), c(2048)
  integer :: i
  do i = 1, 2048
    a(i) = b(i)*c(i) + 1.0
  end do
end subroutine vec4
