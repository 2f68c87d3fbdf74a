! A subroutine with an INHERIT dummy and a contained procedure (seed 12): the contained
! procedure's scope read the host's mappings, which bound the dummy to its callers'
! actuals through the call graph, which lowers the contained procedure: a salsa query
! cycle (a panic in every request; `check` exited 101).
subroutine first(x)
!HPF$ INHERIT :: x
contains
  subroutine step
