program p
  include '/dev/stdin'
  x = 1
end program p
