! One iteration of a 2-D Jacobi sweep on a column-block decomposition: this process owns
! m columns of an n-row grid, stored in columns 1..m of a(n, 0:m+1), plus one ghost column
! on each side. The halo exchange sends an owned boundary column (n doubles) to each
! neighbour and receives its ghost column (MPI_PROC_NULL at the ends of the process row,
! where the ghost column holds the fixed boundary); then the local five-point sweep.
subroutine jacobi_step(n, m, a, b, left, right, comm)
  implicit none
  include 'mpif.h'
  integer, intent(in) :: n, m, left, right, comm
  real(8), intent(inout) :: a(n, 0:m + 1)
  real(8), intent(inout) :: b(n, 0:m + 1)
  integer :: i, j, ierr
  integer :: status(MPI_STATUS_SIZE)
  ! Halo exchange: my last column to the right, my left ghost from the left ...
  call MPI_SENDRECV(a(1, m), n, MPI_DOUBLE_PRECISION, right, 1, &
                    a(1, 0), n, MPI_DOUBLE_PRECISION, left, 1, comm, status, ierr)
  ! ... and my first column to the left, my right ghost from the right.
  call MPI_SENDRECV(a(1, 1), n, MPI_DOUBLE_PRECISION, left, 2, &
                    a(1, m + 1), n, MPI_DOUBLE_PRECISION, right, 2, comm, status, ierr)
  do j = 1, m
    do i = 2, n - 1
      b(i, j) = 0.25d0 * (a(i - 1, j) + a(i + 1, j) + a(i, j - 1) + a(i, j + 1))
    end do
  end do
end subroutine jacobi_step
