! Livermore Fortran Kernel 8 -- ADI integration (McMahon 1986): two x-lines of a
! three-component field, loop length n along y; reads time level 1, writes level 2.
subroutine lfk08(n, a11, a12, a13, a21, a22, a23, a31, a32, a33, sig, &
                 u1, u2, u3, du1, du2, du3)
  implicit none
  integer, intent(in) :: n
  real(8), intent(in) :: a11, a12, a13, a21, a22, a23, a31, a32, a33, sig
  real(8), intent(inout) :: u1(5, n + 1, 2), u2(5, n + 1, 2), u3(5, n + 1, 2)
  real(8), intent(out) :: du1(n), du2(n), du3(n)
  integer :: kx, ky, nl1, nl2
  nl1 = 1
  nl2 = 2
  do kx = 2, 3
    do ky = 2, n
      du1(ky) = u1(kx, ky + 1, nl1) - u1(kx, ky - 1, nl1)
      du2(ky) = u2(kx, ky + 1, nl1) - u2(kx, ky - 1, nl1)
      du3(ky) = u3(kx, ky + 1, nl1) - u3(kx, ky - 1, nl1)
      u1(kx, ky, nl2) = u1(kx, ky, nl1) + a11*du1(ky) + a12*du2(ky) + a13*du3(ky) + &
                        sig*(u1(kx + 1, ky, nl1) - 2.0d0*u1(kx, ky, nl1) + u1(kx - 1, ky, nl1))
      u2(kx, ky, nl2) = u2(kx, ky, nl1) + a21*du1(ky) + a22*du2(ky) + a23*du3(ky) + &
                        sig*(u2(kx + 1, ky, nl1) - 2.0d0*u2(kx, ky, nl1) + u2(kx - 1, ky, nl1))
      u3(kx, ky, nl2) = u3(kx, ky, nl1) + a31*du1(ky) + a32*du2(ky) + a33*du3(ky) + &
                        sig*(u3(kx + 1, ky, nl1) - 2.0d0*u3(kx, ky, nl1) + u3(kx - 1, ky, nl1))
    end do
  end do
end subroutine lfk08
