! Livermore Fortran Kernel 3 -- inner product (McMahon 1986), loop length n.
subroutine lfk03(n, q, x, z)
  implicit none
  integer, intent(in) :: n
  real(8), intent(out) :: q
  real(8), intent(in) :: x(n), z(n)
  integer :: k
  q = 0.0d0
  do k = 1, n
    q = q + z(k)*x(k)
  end do
end subroutine lfk03
