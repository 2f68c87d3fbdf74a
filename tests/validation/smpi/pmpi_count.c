/* A PMPI wrapper (a preloaded shared library) that counts, per rank, what the program asks MPI to move: point-to-
 * point messages and bytes sent and received (MPI_PROC_NULL peers move nothing), and
 * collective calls with the bytes each rank contributes (count x type size). At
 * MPI_Finalize each rank prints one line:
 *   pmpi rank=R sends=N send_bytes=B recvs=N recv_bytes=B colls=N coll_bytes=B time=S
 * where S is the simulated time from the end of MPI_Init to the start of MPI_Finalize
 * (with computation switched off: the rank's communication time).
 * SMPI runs every rank as a thread of one process and privatizes the program's globals
 * by loading a copy of it per rank, so the wrapper cannot be linked into the program
 * (its copies' calls would not reach it): it is built as a shared library and set in
 * LD_PRELOAD, its counters indexed by world rank. */
#include <mpi.h>
#include <stdio.h>

#define MAX_RANKS 4096

struct counts {
  long sends, send_bytes, recvs, recv_bytes, colls, coll_bytes;
  double started;
};

static struct counts all[MAX_RANKS];

/* This rank's counters (SMPI switches ranks only inside MPI calls). */
static struct counts *mine(void) {
  int rank = 0;
  PMPI_Comm_rank(MPI_COMM_WORLD, &rank);
  return &all[rank % MAX_RANKS];
}

static long bytes_of(int count, MPI_Datatype type) {
  int size = 0;
  PMPI_Type_size(type, &size);
  return (long)count * size;
}

static void sent(int count, MPI_Datatype type, int dest) {
  if (dest == MPI_PROC_NULL) return;
  mine()->sends += 1;
  mine()->send_bytes += bytes_of(count, type);
}

static void received(int count, MPI_Datatype type, int source) {
  if (source == MPI_PROC_NULL) return;
  mine()->recvs += 1;
  mine()->recv_bytes += bytes_of(count, type);
}

static void collective(int count, MPI_Datatype type) {
  mine()->colls += 1;
  mine()->coll_bytes += bytes_of(count, type);
}

int MPI_Init(int *argc, char ***argv) {
  int rc = PMPI_Init(argc, argv);
  mine()->started = PMPI_Wtime();
  return rc;
}

int MPI_Init_thread(int *argc, char ***argv, int required, int *provided) {
  int rc = PMPI_Init_thread(argc, argv, required, provided);
  mine()->started = PMPI_Wtime();
  return rc;
}

int MPI_Finalize(void) {
  int rank = 0;
  PMPI_Comm_rank(MPI_COMM_WORLD, &rank);
  struct counts *c = mine();
  printf("pmpi rank=%d sends=%ld send_bytes=%ld recvs=%ld recv_bytes=%ld colls=%ld "
         "coll_bytes=%ld time=%.9e\n",
         rank, c->sends, c->send_bytes, c->recvs, c->recv_bytes, c->colls, c->coll_bytes,
         PMPI_Wtime() - c->started);
  fflush(stdout);
  return PMPI_Finalize();
}

int MPI_Send(const void *b, int c, MPI_Datatype t, int d, int tag, MPI_Comm comm) {
  sent(c, t, d);
  return PMPI_Send(b, c, t, d, tag, comm);
}

int MPI_Ssend(const void *b, int c, MPI_Datatype t, int d, int tag, MPI_Comm comm) {
  sent(c, t, d);
  return PMPI_Ssend(b, c, t, d, tag, comm);
}

int MPI_Bsend(const void *b, int c, MPI_Datatype t, int d, int tag, MPI_Comm comm) {
  sent(c, t, d);
  return PMPI_Bsend(b, c, t, d, tag, comm);
}

int MPI_Rsend(const void *b, int c, MPI_Datatype t, int d, int tag, MPI_Comm comm) {
  sent(c, t, d);
  return PMPI_Rsend(b, c, t, d, tag, comm);
}

int MPI_Isend(const void *b, int c, MPI_Datatype t, int d, int tag, MPI_Comm comm,
              MPI_Request *r) {
  sent(c, t, d);
  return PMPI_Isend(b, c, t, d, tag, comm, r);
}

int MPI_Recv(void *b, int c, MPI_Datatype t, int s, int tag, MPI_Comm comm, MPI_Status *st) {
  received(c, t, s);
  return PMPI_Recv(b, c, t, s, tag, comm, st);
}

int MPI_Irecv(void *b, int c, MPI_Datatype t, int s, int tag, MPI_Comm comm, MPI_Request *r) {
  received(c, t, s);
  return PMPI_Irecv(b, c, t, s, tag, comm, r);
}

int MPI_Sendrecv(const void *sb, int sc, MPI_Datatype st, int d, int stag, void *rb, int rc,
                 MPI_Datatype rt, int s, int rtag, MPI_Comm comm, MPI_Status *status) {
  sent(sc, st, d);
  received(rc, rt, s);
  return PMPI_Sendrecv(sb, sc, st, d, stag, rb, rc, rt, s, rtag, comm, status);
}

int MPI_Sendrecv_replace(void *b, int c, MPI_Datatype t, int d, int stag, int s, int rtag,
                         MPI_Comm comm, MPI_Status *status) {
  sent(c, t, d);
  received(c, t, s);
  return PMPI_Sendrecv_replace(b, c, t, d, stag, s, rtag, comm, status);
}

int MPI_Barrier(MPI_Comm comm) {
  collective(0, MPI_BYTE);
  return PMPI_Barrier(comm);
}

int MPI_Bcast(void *b, int c, MPI_Datatype t, int root, MPI_Comm comm) {
  collective(c, t);
  return PMPI_Bcast(b, c, t, root, comm);
}

int MPI_Reduce(const void *s, void *r, int c, MPI_Datatype t, MPI_Op op, int root,
               MPI_Comm comm) {
  collective(c, t);
  return PMPI_Reduce(s, r, c, t, op, root, comm);
}

int MPI_Allreduce(const void *s, void *r, int c, MPI_Datatype t, MPI_Op op, MPI_Comm comm) {
  collective(c, t);
  return PMPI_Allreduce(s, r, c, t, op, comm);
}

int MPI_Gather(const void *s, int sc, MPI_Datatype st, void *r, int rc, MPI_Datatype rt,
               int root, MPI_Comm comm) {
  collective(sc, st);
  return PMPI_Gather(s, sc, st, r, rc, rt, root, comm);
}

int MPI_Scatter(const void *s, int sc, MPI_Datatype st, void *r, int rc, MPI_Datatype rt,
                int root, MPI_Comm comm) {
  collective(rc, rt);
  return PMPI_Scatter(s, sc, st, r, rc, rt, root, comm);
}

int MPI_Allgather(const void *s, int sc, MPI_Datatype st, void *r, int rc, MPI_Datatype rt,
                  MPI_Comm comm) {
  collective(sc, st);
  return PMPI_Allgather(s, sc, st, r, rc, rt, comm);
}

int MPI_Alltoall(const void *s, int sc, MPI_Datatype st, void *r, int rc, MPI_Datatype rt,
                 MPI_Comm comm) {
  collective(sc, st);
  return PMPI_Alltoall(s, sc, st, r, rc, rt, comm);
}
