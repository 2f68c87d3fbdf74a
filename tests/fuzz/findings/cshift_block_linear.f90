! A CSHIFT along the BLOCK-distributed dimension: the analysis time grows linearly with n
! (costline check: 0.44 s at n = 10**6, 4.1 s at 10**7, 41 s at 10**8); it is not cancelled.
subroutine stencil(u, v)
  integer, parameter :: n = 100000000
  real :: u(n, n), v(n, n)
!HPF$ PROCESSORS grid(4)
!HPF$ DISTRIBUTE (BLOCK, *) ONTO grid :: u, v
  v = cshift(u, 1, 1)
end subroutine stencil
