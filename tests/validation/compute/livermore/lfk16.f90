! Livermore Fortran Kernel 16 -- Monte Carlo search loop (McMahon 1986): a walk over
! zones whose path depends on the data (three-way tests against plan and d, restarts with
! the next zone group m). The original's arithmetic IFs and GO TOs are written as IF
! blocks, CYCLE and EXIT with the same control flow; k2 and k3 count the steps.
subroutine lfk16(n, r, s, t, zone, plan, d, k2, k3)
  implicit none
  integer, intent(in) :: n
  real(8), intent(in) :: r, s, t
  integer, intent(in) :: zone(10*n + 1)
  real(8), intent(in) :: plan(2*n), d(2*n)
  integer, intent(out) :: k2, k3
  integer :: ii, lb, m, i1, j2, j4, j5, k, z
  real(8) :: tmp
  ii = n/3
  lb = ii + ii
  k2 = 0
  k3 = 0
  m = 1
  i1 = m
  search: do
    j2 = (n + n)*(m - 1) + 1
    do k = 1, n
      k2 = k2 + 1
      j4 = j2 + k + k
      j5 = zone(j4)
      if (j5 < n) then
        if (j5 < n - lb) then
          tmp = plan(j5) - t
        else if (j5 < n - ii) then
          tmp = plan(j5) - s
        else
          tmp = plan(j5) - r
        end if
      else if (j5 == n) then
        exit search
      else
        k3 = k3 + 1
        tmp = d(j5) - (d(j5 - 1)*(t - d(j5 - 2))**2 + (s - d(j5 - 3))**2 + (r - d(j5 - 4))**2)
      end if
      if (tmp == 0.0d0) exit search
      z = zone(j4 - 1)
      if (z == 0) exit search
      if ((tmp < 0.0d0 .and. z < 0) .or. (tmp > 0.0d0 .and. z > 0)) cycle
      ! the next zone group: restart the scan unless back at the first one
      m = m + 1
      if (m > zone(1)) m = 1
      if (i1 == m) exit search
      cycle search
    end do
    exit search
  end do search
end subroutine lfk16
