! Livermore Fortran Kernel 15 -- "casual Fortran", development version (McMahon 1986):
! a 2-D nest (j = 2..7, k = 2..n) of data-dependent branches, MAX, SQRT and divisions.
! The original arithmetic IFs and GO TOs are written as IF blocks and CYCLE.
subroutine lfk15(n, vy, vh, vf, vg, vs)
  implicit none
  integer, intent(in) :: n
  real(8), intent(out) :: vy(n, 7), vs(n, 7)
  real(8), intent(in) :: vh(n, 7), vf(n, 7), vg(n, 7)
  integer :: j, k, ng, nz
  real(8) :: ar, br, r, s, t
  ng = 7
  nz = n
  ar = 0.053d0
  br = 0.073d0
  do j = 2, ng
    do k = 2, nz
      if (j >= ng) then
        vy(k, j) = 0.0d0
        cycle
      end if
      if (vh(k, j + 1) > vh(k, j)) then
        t = ar
      else
        t = br
      end if
      if (vf(k, j) < vf(k - 1, j)) then
        r = max(vh(k - 1, j), vh(k - 1, j + 1))
        s = vf(k - 1, j)
      else
        r = max(vh(k, j), vh(k, j + 1))
        s = vf(k, j)
      end if
      vy(k, j) = sqrt(vg(k, j)**2 + r*r)*t/s
      if (k >= nz) then
        vs(k, j) = 0.0d0
        cycle
      end if
      if (vf(k, j) < vf(k, j - 1)) then
        r = max(vg(k, j - 1), vg(k + 1, j - 1))
        s = vf(k, j - 1)
        t = br
      else
        r = max(vg(k, j), vg(k + 1, j))
        s = vf(k, j)
        t = ar
      end if
      vs(k, j) = sqrt(vh(k, j)**2 + r*r)*t/s
    end do
  end do
end subroutine lfk15
