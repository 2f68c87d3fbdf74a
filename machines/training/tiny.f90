! tiny.f90 -- the callee of the `call` training kernel (kernels.f90, k_call): a
! procedure compiled on its own so that the call cannot be inlined and its cost is
! what a call to a separately compiled procedure costs.
subroutine k_tiny(x)
  implicit none
  real(kind(1.0d0)), intent(inout) :: x
  x = x + 1.0d0
end subroutine k_tiny
