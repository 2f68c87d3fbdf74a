! The cache model counts the iterations of `do i = n, 1, -1` as (1 - n - 1) / -1:
! with n = -2**63 the numerator wraps to -2**63 and the division overflows (a panic).
subroutine down(a)
  integer, parameter :: n = -9223372036854775807 - 1
  integer :: i
  real :: a(10)
  do i = n, 1, -1
    a(1) = 0.0
  end do
end subroutine down
