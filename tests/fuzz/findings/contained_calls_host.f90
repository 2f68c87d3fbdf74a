subroutine h(n)
  integer :: n, i
  real :: a(100)
  do i = 1, n
    a(i) = 0
  end do
contains
  subroutine inner(m)
    integer :: m
    call h(m)
  end subroutine inner
end subroutine h
program p
  call h(10)
end program p
