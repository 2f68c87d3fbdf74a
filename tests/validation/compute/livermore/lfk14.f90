! Livermore Fortran Kernel 14 -- 1-D particle in cell (McMahon 1986), loop length n:
! a gather, a push and a scatter-add into a 2048-cell grid (MOD2N(i, 2048) is iand(i, 2047)).
subroutine lfk14(n, flx, grd, ex, dex, vx, xx, xi, ex1, dex1, ix, ir, rx, rh)
  implicit none
  integer, intent(in) :: n
  real(8), intent(in) :: flx, grd(n), ex(n), dex(n)
  real(8), intent(inout) :: vx(n), xx(n), xi(n), ex1(n), dex1(n), rx(n), rh(2050)
  integer, intent(inout) :: ix(n), ir(n)
  integer :: k
  do k = 1, n
    vx(k) = 0.0d0
    xx(k) = 0.0d0
    ix(k) = int(grd(k))
    xi(k) = dble(ix(k))
    ex1(k) = ex(ix(k))
    dex1(k) = dex(ix(k))
  end do
  do k = 1, n
    vx(k) = vx(k) + ex1(k) + (xx(k) - xi(k))*dex1(k)
    xx(k) = xx(k) + vx(k) + flx
    ir(k) = int(xx(k))
    rx(k) = xx(k) - ir(k)
    ir(k) = iand(ir(k), 2047) + 1
    xx(k) = rx(k) + ir(k)
  end do
  do k = 1, n
    rh(ir(k)) = rh(ir(k)) + 1.0d0 - rx(k)
    rh(ir(k) + 1) = rh(ir(k) + 1) + rx(k)
  end do
end subroutine lfk14
