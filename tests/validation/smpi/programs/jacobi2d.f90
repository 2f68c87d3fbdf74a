! Jacobi iteration on an N x N grid over a PX x PY Cartesian grid of processes
! (non-periodic): each process holds an (N/PX) x (N/PY) block with one halo layer.
! Halo columns (contiguous) go by MPI_SENDRECV of N/PX doubles, halo rows (stride
! N/PX+2) by one element of an MPI_TYPE_VECTOR; the boundary processes' neighbours
! are MPI_PROC_NULL. A residual MPI_ALLREDUCE closes every sweep.
! The sizes are PARAMETERs of params.h (n, px, py, niter; PX*PY processes, PX and
! PY divide N), which the harness writes per configuration, as NPB's npbparams.h.
program jacobi2d
  use mpi
  implicit none
  include 'params.h'
  integer, parameter :: nx = n / px, ny = n / py
  integer :: it, i, j
  integer :: ierr, nprocs, rank, comm2d, rowtype
  integer :: west, east, south, north
  integer :: dims(2), coords(2)
  logical :: periods(2)
  integer :: status(MPI_STATUS_SIZE)
  double precision :: u(0:nx + 1, 0:ny + 1), v(0:nx + 1, 0:ny + 1)
  double precision :: local, global

  call mpi_init(ierr)
  call mpi_comm_size(mpi_comm_world, nprocs, ierr)

  dims(1) = px
  dims(2) = py
  periods(1) = .false.
  periods(2) = .false.
  call mpi_cart_create(mpi_comm_world, 2, dims, periods, .true., comm2d, ierr)
  call mpi_comm_rank(comm2d, rank, ierr)
  call mpi_cart_coords(comm2d, rank, 2, coords, ierr)
  call mpi_cart_shift(comm2d, 0, 1, west, east, ierr)
  call mpi_cart_shift(comm2d, 1, 1, south, north, ierr)

  u = 0.0d0
  v = 0.0d0
  call mpi_type_vector(ny, 1, nx + 2, mpi_double_precision, rowtype, ierr)
  call mpi_type_commit(rowtype, ierr)

  do it = 1, niter
    ! rows i = nx and i = 1 to the east and west neighbours
    call mpi_sendrecv(u(nx, 1), 1, rowtype, east, 1, u(0, 1), 1, rowtype, west, 1, &
                      comm2d, status, ierr)
    call mpi_sendrecv(u(1, 1), 1, rowtype, west, 2, u(nx + 1, 1), 1, rowtype, east, 2, &
                      comm2d, status, ierr)
    ! columns j = ny and j = 1 to the north and south neighbours
    call mpi_sendrecv(u(1, ny), nx, mpi_double_precision, north, 3, u(1, 0), nx, &
                      mpi_double_precision, south, 3, comm2d, status, ierr)
    call mpi_sendrecv(u(1, 1), nx, mpi_double_precision, south, 4, u(1, ny + 1), nx, &
                      mpi_double_precision, north, 4, comm2d, status, ierr)
    local = 0.0d0
    do j = 1, ny
      do i = 1, nx
        v(i, j) = 0.25d0 * (u(i - 1, j) + u(i + 1, j) + u(i, j - 1) + u(i, j + 1))
        local = local + (v(i, j) - u(i, j))**2
      end do
    end do
    u(1:nx, 1:ny) = v(1:nx, 1:ny)
    call mpi_allreduce(local, global, 1, mpi_double_precision, mpi_sum, comm2d, ierr)
  end do

  call mpi_type_free(rowtype, ierr)
  call mpi_finalize(ierr)
end program jacobi2d
