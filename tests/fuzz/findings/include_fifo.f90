program p
  include 'fuzz.fifo'
  x = 1
end program p
