module m
contains
subroutine s(a)
  use missing_mod
  real :: a(10)
  a = 0
end subroutine
end module
