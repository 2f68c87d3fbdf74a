program p
  include '/dev/zero'
  x = 1
end program p
