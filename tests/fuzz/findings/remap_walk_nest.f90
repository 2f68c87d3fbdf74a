! The remapping walk (distribution/dynamic.rs) looked for each loop's fixed point by walking
! its body at least twice, also when the body remaps nothing: time 2^depth (24 deep: 2.5 s,
! 32 deep: minutes), outside any interruption point (fuzz seed 11, edit 1771).
program p
  real :: a(100)
!HPF$ DYNAMIC a
  do i0 = 1, 2
  do i1 = 1, 2
  do i2 = 1, 2
  do i3 = 1, 2
  do i4 = 1, 2
  do i5 = 1, 2
  do i6 = 1, 2
  do i7 = 1, 2
  do i8 = 1, 2
  do i9 = 1, 2
  do i10 = 1, 2
  do i11 = 1, 2
  do i12 = 1, 2
  do i13 = 1, 2
  do i14 = 1, 2
  do i15 = 1, 2
  do i16 = 1, 2
  do i17 = 1, 2
  do i18 = 1, 2
  do i19 = 1, 2
  do i20 = 1, 2
  do i21 = 1, 2
  do i22 = 1, 2
  do i23 = 1, 2
  a(1) = 1
  end do
  end do
  end do
  end do
  end do
  end do
  end do
  end do
  end do
  end do
  end do
  end do
  end do
  end do
  end do
  end do
  end do
  end do
  end do
  end do
  end do
  end do
  end do
  end do
!HPF$ REDISTRIBUTE a(BLOCK)
end program p
