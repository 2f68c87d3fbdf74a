//! MPI calls rank by rank, hand-checked: on a non-periodic 1-D Cartesian grid the edge
//! processes' MPI_PROC_NULL neighbours move nothing; a master that deals tasks sends
//! P−1 messages while each worker receives one; MPI_DIMS_CREATE picks the grid.

use costline_db::project;
use costline_model::comm::ranks::{MpiRanks, RankComm, TimeSource};
use std::collections::BTreeMap;

fn ranks(text: &str, bindings: &[(&str, i64)]) -> Result<MpiRanks, String> {
    let bindings: BTreeMap<String, i64> =
        bindings.iter().map(|(k, v)| (k.to_string(), *v)).collect();
    let files = project::analyze(&[("t.f90".into(), text.as_bytes().to_vec())], &bindings);
    let units = files.into_iter().next().unwrap().unwrap().units;
    let program = units
        .iter()
        .find(|u| u.unit.name == "p")
        .expect("program p");
    program.mpi_ranks.as_ref().clone().expect("it calls MPI")
}

fn sends(r: &MpiRanks) -> Vec<(f64, f64, f64, f64)> {
    r.ranks
        .iter()
        .map(|r: &RankComm| (r.sends, r.send_bytes, r.recvs, r.recv_bytes))
        .collect()
}

const CHAIN: &str = "
program p
  implicit none
  include 'mpif.h'
  integer, parameter :: n = 100
  integer :: ierr, nprocs, rank, comm1d, left, right, it, dims(1)
  logical :: periods(1)
  integer :: status(MPI_STATUS_SIZE)
  double precision :: u(0:n + 1)
  call mpi_init(ierr)
  call mpi_comm_size(MPI_COMM_WORLD, nprocs, ierr)
  dims(1) = 0
  call mpi_dims_create(nprocs, 1, dims, ierr)
  periods(1) = .false.
  call mpi_cart_create(MPI_COMM_WORLD, 1, dims, periods, .false., comm1d, ierr)
  call mpi_comm_rank(comm1d, rank, ierr)
  call mpi_cart_shift(comm1d, 0, 1, left, right, ierr)
  do it = 1, 10
    call mpi_sendrecv(u(n), 1, MPI_DOUBLE_PRECISION, right, 0, u(0), 1, &
                      MPI_DOUBLE_PRECISION, left, 0, comm1d, status, ierr)
  end do
  call mpi_finalize(ierr)
end program
";

#[test]
fn the_ends_of_a_non_periodic_chain_send_or_receive_nothing() {
    let r = ranks(CHAIN, &[("nprocs", 4)]).unwrap();
    // Rank 0 has no left neighbour (it receives nothing), rank 3 no right one.
    assert_eq!(
        sends(&r),
        vec![
            (10.0, 80.0, 0.0, 0.0),
            (10.0, 80.0, 10.0, 80.0),
            (10.0, 80.0, 10.0, 80.0),
            (0.0, 0.0, 10.0, 80.0),
        ]
    );
    assert!(r.missing.is_empty(), "{:?}", r.missing);
    // NT over all ranks: 3 messages per step, and making the grid's communicator
    // (2(p−1) + p⌈log2 p⌉ = 14 messages as SMPI makes it).
    let nt: f64 = r.stmts.values().map(|m| m.nt).sum();
    assert_eq!(nt, 30.0 + 14.0);
}

#[test]
fn a_periodic_chain_is_a_ring() {
    let ring = CHAIN.replace("periods(1) = .false.", "periods(1) = .true.");
    let r = ranks(&ring, &[("nprocs", 3)]).unwrap();
    assert_eq!(sends(&r), vec![(10.0, 80.0, 10.0, 80.0); 3]);
}

#[test]
fn a_master_sends_to_every_worker_and_each_worker_receives_once() {
    let text = "
program p
  implicit none
  include 'mpif.h'
  integer :: ierr, nprocs, rank, w
  integer :: status(MPI_STATUS_SIZE)
  double precision :: task(250)
  call mpi_init(ierr)
  call mpi_comm_size(MPI_COMM_WORLD, nprocs, ierr)
  call mpi_comm_rank(MPI_COMM_WORLD, rank, ierr)
  if (rank == 0) then
    do w = 1, nprocs - 1
      call mpi_send(task, 250, MPI_DOUBLE_PRECISION, w, 1, MPI_COMM_WORLD, ierr)
    end do
  else
    call mpi_recv(task, 250, MPI_DOUBLE_PRECISION, 0, 1, MPI_COMM_WORLD, status, ierr)
  end if
  call mpi_barrier(MPI_COMM_WORLD, ierr)
  call mpi_finalize(ierr)
end program
";
    let r = ranks(text, &[("nprocs", 5)]).unwrap();
    assert_eq!(r.ranks[0].sends, 4.0);
    assert_eq!(r.ranks[0].send_bytes, 8000.0);
    for w in &r.ranks[1..] {
        assert_eq!((w.sends, w.recvs, w.recv_bytes), (0.0, 1.0, 2000.0));
        assert_eq!(w.collectives, 1.0);
    }
    // Replayed together, every rank leaves the barrier at the same time.
    assert_eq!(r.timing, TimeSource::Replayed { unmatched: 0 });
    assert!(r.ranks.iter().all(|w| w.time_s == r.ranks[0].time_s));
    assert_eq!(r.path_s(), r.ranks[0].time_s);
}

#[test]
fn a_token_passed_around_a_ring_costs_one_message_per_process() {
    let text = "
program p
  implicit none
  include 'mpif.h'
  integer :: ierr, nprocs, rank, token
  integer :: status(MPI_STATUS_SIZE)
  call mpi_init(ierr)
  call mpi_comm_size(MPI_COMM_WORLD, nprocs, ierr)
  call mpi_comm_rank(MPI_COMM_WORLD, rank, ierr)
  if (rank == 0) then
    call mpi_send(token, 1, MPI_INTEGER, 1, 0, MPI_COMM_WORLD, ierr)
    call mpi_recv(token, 1, MPI_INTEGER, nprocs - 1, 0, MPI_COMM_WORLD, status, ierr)
  else
    call mpi_recv(token, 1, MPI_INTEGER, rank - 1, 0, MPI_COMM_WORLD, status, ierr)
    call mpi_send(token, 1, MPI_INTEGER, mod(rank + 1, nprocs), 0, MPI_COMM_WORLD, ierr)
  end if
  call mpi_finalize(ierr)
end program
";
    let four = ranks(text, &[("nprocs", 4)]).unwrap();
    let eight = ranks(text, &[("nprocs", 8)]).unwrap();
    assert_eq!(four.timing, TimeSource::Replayed { unmatched: 0 });
    // Rank r holds the token after r messages; rank 0 gets it back after P.
    let one = four.ranks[1].time_s;
    for (r, rank) in eight.ranks.iter().enumerate() {
        let hops = if r == 0 { 8.0 } else { r as f64 };
        assert!((rank.time_s - hops * one).abs() < 1e-12 * one, "rank {r}");
    }
    assert!((eight.path_s() / four.path_s() - 2.0).abs() < 1e-9);
}

#[test]
fn without_a_process_count_there_are_no_per_rank_records() {
    let err = ranks(CHAIN, &[]).unwrap_err();
    assert!(err.contains("nprocs"), "{err}");
}
