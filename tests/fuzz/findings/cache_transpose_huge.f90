! The cache model's line counting (cache/lines.rs) with n = 10**18: the memo lookup for
! the last column misses (no entry found for key).
subroutine s(u)
  integer, parameter :: n = 1000000000000000000
  real :: u(n, n), w(n, n)
  w = transpose(u)
end subroutine s
