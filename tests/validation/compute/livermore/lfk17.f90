! Livermore Fortran Kernel 17 -- implicit, conditional computation (McMahon 1986): a
! backward scan i = n..2 carrying xnm and e6 from one element to the next through one of
! two branches. The original GO TO 60 / 61 loop is written as a DO loop with an IF block.
subroutine lfk17(n, vxne, vxnd, ve3, vlr, vlin, vsp, vstp)
  implicit none
  integer, intent(in) :: n
  real(8), intent(inout) :: vxne(n), vxnd(n), ve3(n)
  real(8), intent(in) :: vlr(n), vlin(n), vsp(n), vstp(n)
  integer :: i
  real(8) :: scale, xnm, e6, e3, xnei, xnc
  scale = 5.0d0/3.0d0
  xnm = 1.0d0/3.0d0
  e6 = 1.03d0/3.07d0
  do i = n, 2, -1
    e3 = xnm*vlr(i) + vlin(i)
    xnei = vxne(i)
    vxnd(i) = e6
    xnc = scale*e3
    if (xnm > xnc .or. xnei > xnc) then
      e6 = xnm*vsp(i) + vstp(i)
      vxne(i) = e6
      xnm = e6
      ve3(i) = e6
    else
      ve3(i) = e3
      e6 = e3 + e3 - xnm
      vxne(i) = e3 + e3 - xnei
      xnm = e6
    end if
  end do
end subroutine lfk17
