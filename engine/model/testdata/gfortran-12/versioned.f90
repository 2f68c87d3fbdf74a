subroutine v1(n, k, a)
  integer :: n, k, i
  real(8) :: a(n)
  do i = 1, n
    a(i+k) = a(i) * 2.0d0
  end do
end subroutine
subroutine v2(n, a, b)
  integer :: n, i
  real(8) :: a(n), b(n)
  do i = 1, n
    a(i) = b(i) + 1.0d0
    call foo(a(i))
  end do
end subroutine
subroutine v3(n, a, b, c)
  integer :: n, i
  real(8) :: a(n), b(n), c(n)
  a(1:n) = b(1:n) + c(1:n)
end subroutine
subroutine v4(n, a, b)
  integer :: n, i
  real(4) :: a(n)
  real(8) :: b(n)
  do i = 1, n
    a(i) = real(b(i), 4)
  end do
end subroutine
