! The cache model with bounds that leave i64 (LSP fuzz, seed 1, 2026-11-29): an extent
! hi - lo + 1 of 2**63 + 1 overflowed in cache/nest.rs, and byte addresses of elements
! near 2**62 in cache/lines.rs. The extent is now unknown and the addresses saturate.
subroutine s(n, a, b)
  integer :: n, i
  real(8) :: a(-4611686018427387904_8:4611686018427387904_8)
  real(8) :: b(4611686018427387000_8)
  do i = 1, n
    a(i) = b(i * 1000000000) + a(i - 1)
  end do
end subroutine s
