! Master-worker with collectives: the master (rank 0) broadcasts the problem size,
! deals each worker a task of TASK doubles by MPI_SEND and collects a result of RES
! doubles from each; then every process takes part in an MPI_REDUCE, an MPI_GATHER
! and an MPI_BARRIER. ROUNDS rounds.
! The sizes are PARAMETERs of params.h (task, res, rounds).
program master_worker
  use mpi
  implicit none
  include 'params.h'
  integer :: ierr, nprocs, rank, w, r, k
  integer :: status(MPI_STATUS_SIZE)
  double precision :: work(task), result(res), total(res), mine(4)
  double precision, allocatable :: everyone(:)
  integer :: sizes(2)

  call mpi_init(ierr)
  call mpi_comm_size(mpi_comm_world, nprocs, ierr)
  call mpi_comm_rank(mpi_comm_world, rank, ierr)
  allocate (everyone(4 * nprocs))
  sizes(1) = task
  sizes(2) = res
  call mpi_bcast(sizes, 2, mpi_integer, 0, mpi_comm_world, ierr)
  work = 1.0d0
  result = 0.0d0

  do r = 1, rounds
    if (rank == 0) then
      do w = 1, nprocs - 1
        call mpi_send(work, task, mpi_double_precision, w, 1, mpi_comm_world, ierr)
      end do
      do w = 1, nprocs - 1
        call mpi_recv(result, res, mpi_double_precision, w, 2, mpi_comm_world, status, ierr)
      end do
    else
      call mpi_recv(work, task, mpi_double_precision, 0, 1, mpi_comm_world, status, ierr)
      do k = 1, res
        result(k) = work(mod(k - 1, task) + 1) * k
      end do
      call mpi_send(result, res, mpi_double_precision, 0, 2, mpi_comm_world, ierr)
    end if
    call mpi_reduce(result, total, res, mpi_double_precision, mpi_sum, 0, mpi_comm_world, ierr)
    mine = total(1)
    call mpi_gather(mine, 4, mpi_double_precision, everyone, 4, mpi_double_precision, 0, &
                    mpi_comm_world, ierr)
    call mpi_barrier(mpi_comm_world, ierr)
  end do

  call mpi_finalize(ierr)
end program master_worker
