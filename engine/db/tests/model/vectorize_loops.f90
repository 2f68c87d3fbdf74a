subroutine l1(n, a, b, c)
  integer :: n, i
  real(8) :: a(n), b(n), c(n)
  do i = 1, n
    a(i) = b(i) * c(i) + 1.0d0
  end do
end subroutine
subroutine l2(n, a, b)
  integer :: n, i
  real(8) :: a(n), b(n)
  do i = 2, n
    a(i) = a(i-1) * 0.5d0 + b(i)
  end do
end subroutine
subroutine l3(n, a, b)
  integer :: n, i
  real(8) :: a(n), b(n)
  do i = 1, n-1
    a(i) = a(i+1) * 0.5d0 + b(i)
  end do
end subroutine
subroutine l4(n, a, b)
  integer :: n, i, j
  real(8) :: a(n,n), b(n,n)
  do j = 1, n
  do i = 1, n
    a(j,i) = b(j,i) * 2.0d0
  end do
  end do
end subroutine
subroutine l5(n, a, b)
  integer :: n, i
  real(8) :: a(n), b(2*n)
  do i = 1, n
    a(i) = b(2*i) + 1.0d0
  end do
end subroutine
subroutine l6(n, a, s)
  integer :: n, i
  real(8) :: a(n), s
  s = 0
  do i = 1, n
    s = s + a(i)
  end do
end subroutine
subroutine l7(n, a, k)
  integer :: n, i, k
  integer :: a(n)
  k = 0
  do i = 1, n
    k = k + a(i)
  end do
end subroutine
subroutine l8(n, a, b)
  integer :: n, i
  real(8) :: a(n), b(n)
  do i = 1, n
    if (b(i) > 0) a(i) = b(i)
  end do
end subroutine
subroutine l9(n, a, b)
  integer :: n, i
  real(8) :: a(n), b(n)
  do i = 1, n
    a(i) = sqrt(b(i)) + exp(b(i))
  end do
end subroutine
subroutine l10(n, a, b)
  integer :: n, i
  real(8) :: a(n), b(n)
  do i = 1, n
    a(i) = sqrt(abs(b(i))) + max(b(i), 0.0d0)
  end do
end subroutine
subroutine l11(a, b)
  integer :: i
  real(8) :: a(1000), b(1000)
  do i = 1, 1000
    a(i) = b(i) * 3.0d0
  end do
end subroutine
subroutine l12(a, b)
  integer :: i
  real(8) :: a(1001), b(1001)
  do i = 1, 1001
    a(i) = b(i) * 3.0d0
  end do
end subroutine
subroutine l13(n, a, b, ix)
  integer :: n, i, ix(n)
  real(8) :: a(n), b(n)
  do i = 1, n
    a(i) = b(ix(i))
  end do
end subroutine
subroutine l14(n, a, b)
  integer :: n, i
  real(4) :: a(n), b(n)
  do i = 1, n
    a(i) = b(i) / 3.0
  end do
end subroutine
subroutine l15(n, a, b)
  integer :: n, i
  real(8) :: a(n), b(n)
  do i = 3, n
    a(i) = a(i-2) + b(i)
  end do
end subroutine
subroutine c1(a, b, ix)
  integer :: i, ix(1000)
  real(8) :: a(1000), b(1000)
  do i = 1, 1000
    a(i) = b(ix(i))
  end do
end subroutine
subroutine c2(a, b)
  integer :: i
  real(8) :: a(1000), b(2000)
  do i = 1, 1000
    a(i) = b(2*i) + 1.0d0
  end do
end subroutine
subroutine c3(a, s)
  integer :: i
  real(8) :: a(1000), s
  s = 0
  do i = 1, 1000
    s = s + a(i)
  end do
end subroutine
subroutine c4(a, k)
  integer :: i, k
  integer :: a(1000)
  k = 0
  do i = 1, 1000
    k = k + a(i)
  end do
end subroutine
subroutine c5(a, b)
  integer :: i
  real(8) :: a(1000), b(1000)
  do i = 1, 1000
    a(i) = sqrt(b(i)) + exp(b(i))
  end do
end subroutine
subroutine c6(a, b)
  integer :: i
  real(8) :: a(1002), b(1002)
  do i = 3, 1002
    a(i) = a(i-2) + b(i)
  end do
end subroutine
subroutine c7(a, b)
  integer :: i
  real(4) :: a(1000), b(1000)
  do i = 1, 1000
    a(i) = b(i) + 1.0
  end do
end subroutine
subroutine f1(n, a, b)
  integer :: n, i
  real(8) :: a(n), b(n)
  do 10 i = 1, n
    a(i) = b(i) + 2.0d0
10 continue
end subroutine
