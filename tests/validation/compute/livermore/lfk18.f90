! Livermore Fortran Kernel 18 -- 2-D explicit hydrodynamics fragment (McMahon 1986):
! three 2-D sweeps (k = 2..6, j = 2..n) over (n+1) x 7 grids.
subroutine lfk18(n, za, zb, zp, zq, zr, zm, zu, zv, zz)
  implicit none
  integer, intent(in) :: n
  real(8), intent(inout) :: za(n + 1, 7), zb(n + 1, 7), zr(n + 1, 7), zu(n + 1, 7), &
                            zv(n + 1, 7), zz(n + 1, 7)
  real(8), intent(in) :: zp(n + 1, 7), zq(n + 1, 7), zm(n + 1, 7)
  integer :: j, k, kn, jn
  real(8) :: s, t
  t = 0.0037d0
  s = 0.0041d0
  kn = 6
  jn = n
  do k = 2, kn
    do j = 2, jn
      za(j, k) = (zp(j - 1, k + 1) + zq(j - 1, k + 1) - zp(j - 1, k) - zq(j - 1, k)) &
                 *(zr(j, k) + zr(j - 1, k))/(zm(j - 1, k) + zm(j - 1, k + 1))
      zb(j, k) = (zp(j - 1, k) + zq(j - 1, k) - zp(j, k) - zq(j, k)) &
                 *(zr(j, k) + zr(j, k - 1))/(zm(j, k) + zm(j - 1, k))
    end do
  end do
  do k = 2, kn
    do j = 2, jn
      zu(j, k) = zu(j, k) + s*(za(j, k)*(zz(j, k) - zz(j + 1, k)) &
                               - za(j - 1, k)*(zz(j, k) - zz(j - 1, k)) &
                               - zb(j, k)*(zz(j, k) - zz(j, k - 1)) &
                               + zb(j, k + 1)*(zz(j, k) - zz(j, k + 1)))
      zv(j, k) = zv(j, k) + s*(za(j, k)*(zr(j, k) - zr(j + 1, k)) &
                               - za(j - 1, k)*(zr(j, k) - zr(j - 1, k)) &
                               - zb(j, k)*(zr(j, k) - zr(j, k - 1)) &
                               + zb(j, k + 1)*(zr(j, k) - zr(j, k + 1)))
    end do
  end do
  do k = 2, kn
    do j = 2, jn
      zr(j, k) = zr(j, k) + t*zu(j, k)
      zz(j, k) = zz(j, k) + t*zv(j, k)
    end do
  end do
end subroutine lfk18
