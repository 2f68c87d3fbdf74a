//! MPI routines in a skeleton run (Fortran bindings, the error argument last): what
//! each one sets in the program's variables (ranks, sizes, topologies, communicator and
//! datatype handles, requests), the events it adds to the process's trace, and what a
//! PMPI counter would count of it (messages and bytes by count × datatype size, to
//! peers other than MPI_PROC_NULL; BARRIER, BCAST, REDUCE, ALLREDUCE, GATHER, SCATTER,
//! ALLGATHER and ALLTOALL as collectives).

use super::comms::{Comm, WORLD};
use super::run::{Frame, Rank};
use super::slice::key;
use super::value::Value;
use crate::comm::cart::{PROC_NULL, dims_create};
use crate::comm::cost::MpiLibrary;
use crate::comm::mpi::{Op, cost, datatype_bytes, unpriced};
use crate::comm::replay::{Event, Step};
use crate::comm::skeleton::run::{Abort, Flow};
use costline_syntax::ir::{Call, Expr, StmtId};
use std::sync::Arc;

/// Handles of the predefined datatypes: this plus their index in [`DATATYPES`].
const PREDEFINED_TYPE: i64 = 1 << 16;
/// The first handle of a datatype the program makes.
pub const FIRST_DERIVED_TYPE: i64 = 1 << 20;

const DATATYPES: &[&str] = &[
    "mpi_byte",
    "mpi_character",
    "mpi_integer1",
    "mpi_packed",
    "mpi_integer2",
    "mpi_integer",
    "mpi_real",
    "mpi_logical",
    "mpi_integer4",
    "mpi_real4",
    "mpi_double_precision",
    "mpi_real8",
    "mpi_integer8",
    "mpi_complex",
    "mpi_2real",
    "mpi_double_complex",
    "mpi_complex16",
    "mpi_2double_precision",
];

const COMM_NULL: i64 = -3;
const COMM_SELF: i64 = -5;
const REQUEST_NULL: i64 = -4;
const ANY_SOURCE: i64 = -2;
const UNDEFINED: i64 = -32766;

/// The value of MPI's named constant `name`, as the run numbers handles.
pub fn constant(name: &str) -> Option<i64> {
    if let Some(k) = DATATYPES.iter().position(|d| *d == name) {
        return Some(PREDEFINED_TYPE + k as i64);
    }
    Some(match name {
        "mpi_comm_world" => WORLD as i64,
        "mpi_comm_self" => COMM_SELF,
        "mpi_comm_null" => COMM_NULL,
        "mpi_request_null" => REQUEST_NULL,
        "mpi_proc_null" => PROC_NULL as i64,
        "mpi_any_source" => ANY_SOURCE,
        "mpi_any_tag" => -1,
        "mpi_undefined" => UNDEFINED,
        "mpi_success" => 0,
        "mpi_status_size" => 6,
        "mpi_max_processor_name" => 256,
        "mpi_sum" => 101,
        "mpi_max" => 102,
        "mpi_min" => 103,
        "mpi_prod" => 104,
        "mpi_land" => 105,
        "mpi_lor" => 106,
        "mpi_maxloc" => 107,
        "mpi_minloc" => 108,
        _ => return None,
    })
}

/// The reduction of `values` by MPI operation `op` (sum, max, min, prod, land, lor).
fn reduce(op: i64, values: &[Value]) -> Value {
    use costline_syntax::ir::BinaryOp;
    let mut it = values.iter().cloned();
    let Some(first) = it.next() else {
        return Value::Unknown;
    };
    it.fold(first, |acc, v| match op {
        101 => super::value::binary(BinaryOp::Add, &acc, &v),
        104 => super::value::binary(BinaryOp::Mul, &acc, &v),
        105 => super::value::binary(BinaryOp::And, &acc, &v),
        106 => super::value::binary(BinaryOp::Or, &acc, &v),
        102 | 103 => {
            let name = if op == 102 { "max" } else { "min" };
            super::value::intrinsic(name, &[acc, v]).unwrap_or_default()
        }
        _ => Value::Unknown,
    })
}

/// The entries of `v` whose dimension `remain`s.
fn kept<T: Clone>(v: &[T], remain: &[bool]) -> Vec<T> {
    v.iter()
        .zip(remain)
        .filter(|(_, r)| **r)
        .map(|(x, _)| x.clone())
        .collect()
}

impl Rank<'_, '_> {
    fn arg(&mut self, frame: &mut Frame, c: &Call, i: usize) -> Result<Value, Abort> {
        match c.args.get(i) {
            Some(a) => self.eval(frame, &a.value),
            None => Ok(Value::Unknown),
        }
    }

    fn set(&mut self, frame: &mut Frame, c: &Call, i: usize, v: Value) -> Result<(), Abort> {
        match c.args.get(i) {
            Some(a) => self.assign(frame, &a.value, v),
            None => Ok(()),
        }
    }

    fn array(
        &mut self,
        frame: &mut Frame,
        c: &Call,
        i: usize,
        n: i64,
    ) -> Result<Vec<Value>, Abort> {
        match c.args.get(i) {
            Some(a) => self.elements(frame, &a.value, n),
            None => Ok(Vec::new()),
        }
    }

    fn set_array(
        &mut self,
        frame: &mut Frame,
        c: &Call,
        i: usize,
        v: &[Value],
    ) -> Result<(), Abort> {
        match c.args.get(i) {
            Some(a) => self.store_elements(frame, &a.value, v),
            None => Ok(()),
        }
    }

    fn comm(&self, v: &Value) -> Option<Comm> {
        match v.int()? {
            COMM_SELF => Some(Comm {
                id: (1 << 40) + self.me as u64,
                group: Arc::new(vec![self.me]),
                cart: None,
            }),
            h if h >= 0 => self.shared.comms.get(&(h as u64)).cloned(),
            _ => None,
        }
    }

    fn type_size(&self, v: &Value) -> Option<i64> {
        let h = v.int()?;
        if let Some(s) = self.types.get(&h) {
            return Some(*s);
        }
        let name = DATATYPES.get(usize::try_from(h - PREDEFINED_TYPE).ok()?)?;
        datatype_bytes(name).map(|b| b as i64)
    }

    /// Bytes of `count` elements of datatype `ty`.
    fn bytes(&self, count: &Value, ty: &Value) -> Option<i64> {
        count.int()?.checked_mul(self.type_size(ty)?)
    }

    /// The bytes a call (statement `id` of `frame`'s unit) moves: `count` elements of
    /// `ty`; where the run cannot evaluate the count, the elements the profile run's
    /// counts give this rank's call ([`super::measured::Decisions::elements`]). `None`,
    /// noted, when neither is known.
    fn moved_bytes(&mut self, frame: &Frame, id: StmtId, count: &Value, ty: &Value) -> Option<f64> {
        if let Some(b) = self.bytes(count, ty).filter(|&b| b >= 0) {
            return Some(b as f64);
        }
        if let (None, Some(size)) = (count.int(), self.type_size(ty))
            && let Some(elements) =
                self.decisions
                    .elements(self.program.profiled, &frame.unit.name, id)
        {
            let what = "its count: the elements this rank's calls passed".into();
            self.measured(frame.unit, id, what);
            return Some((elements as i64 * size) as f64);
        }
        let what = "a count or datatype the run cannot evaluate: its bytes are left out".into();
        self.note(frame.unit, id, what, false);
        None
    }

    fn push(&mut self, stmt: StmtId, event: Event) {
        self.events.push(Step { stmt, event });
    }

    /// The next collective's place on communicator `comm`.
    fn next_seq(&mut self, comm: u64) -> u64 {
        let s = self.seq.entry(comm).or_default();
        *s += 1;
        *s
    }

    /// Runs MPI routine call `c` (statement `id` of `frame`'s unit).
    pub fn mpi(&mut self, frame: &mut Frame, id: StmtId, c: &Call) -> Result<Flow, Abort> {
        let site = self.site(frame.unit, id);
        let name = c.name.as_str();
        match name {
            "mpi_abort" => return Ok(Flow::Stop),
            "mpi_init_thread" => {
                let required = self.arg(frame, c, 0)?;
                self.set(frame, c, 1, required)?;
            }
            "mpi_comm_rank" | "mpi_comm_size" => {
                let v = self.arg(frame, c, 0)?;
                let out = match self.comm(&v) {
                    Some(comm) if name == "mpi_comm_size" => Value::Int(comm.group.len() as i64),
                    Some(comm) => comm
                        .rank_of(self.me)
                        .map_or(Value::Int(UNDEFINED), |r| Value::Int(r as i64)),
                    None => {
                        self.unknown_comm(frame, id);
                        Value::Unknown
                    }
                };
                self.set(frame, c, 1, out)?;
            }
            "mpi_comm_dup" | "mpi_comm_split" | "mpi_cart_create" | "mpi_cart_sub" => {
                self.create(frame, id, site, c)?;
            }
            "mpi_cart_coords" | "mpi_cart_rank" | "mpi_cart_shift" | "mpi_cart_get" => {
                self.topology(frame, id, c)?;
            }
            "mpi_dims_create" => {
                let n = self.arg(frame, c, 0)?.int();
                let k = self.arg(frame, c, 1)?.int().unwrap_or(0).clamp(0, 16);
                let given = self.array(frame, c, 2, k)?;
                let fixed: i64 = given
                    .iter()
                    .filter_map(Value::int)
                    .filter(|&d| d > 0)
                    .product();
                let free = given.iter().filter(|v| v.int() == Some(0)).count();
                let out = match n {
                    Some(n)
                        if fixed > 0
                            && n % fixed == 0
                            && free
                                + given
                                    .iter()
                                    .filter(|v| v.int().is_some_and(|d| d > 0))
                                    .count()
                                == k as usize =>
                    {
                        let mut spread = dims_create((n / fixed) as i128, free).into_iter();
                        given
                            .iter()
                            .map(|v| match v.int() {
                                Some(0) => Value::Int(spread.next().unwrap_or(1) as i64),
                                _ => v.clone(),
                            })
                            .collect()
                    }
                    _ => vec![Value::Unknown; k as usize],
                };
                self.set_array(frame, c, 2, &out)?;
            }
            "mpi_type_contiguous"
            | "mpi_type_vector"
            | "mpi_type_hvector"
            | "mpi_type_create_hvector"
            | "mpi_type_indexed"
            | "mpi_type_create_hindexed"
            | "mpi_type_struct"
            | "mpi_type_create_struct"
            | "mpi_type_create_subarray" => {
                self.datatype(frame, c)?;
            }
            "mpi_type_size" => {
                let t = self.arg(frame, c, 0)?;
                let size = self.type_size(&t).map_or(Value::Unknown, Value::Int);
                self.set(frame, c, 1, size)?;
            }
            "mpi_send" | "mpi_ssend" | "mpi_bsend" | "mpi_rsend" | "mpi_isend" | "mpi_issend"
            | "mpi_ibsend" | "mpi_irsend" | "mpi_recv" | "mpi_irecv" => {
                let send = !name.ends_with("recv");
                let count = self.arg(frame, c, 1)?;
                let ty = self.arg(frame, c, 2)?;
                let peer = self.arg(frame, c, 3)?;
                let comm = self.arg(frame, c, 5)?;
                let request = self.transfer(frame, id, site, send, &count, &ty, &peer, &comm);
                if name.starts_with("mpi_i") {
                    let handle = request.map_or(REQUEST_NULL, |r| r as i64);
                    self.set(frame, c, 6, Value::Int(handle))?;
                } else if let Some(r) = request {
                    self.push(site, Event::WaitFor { requests: vec![r] });
                }
            }
            "mpi_sendrecv" | "mpi_sendrecv_replace" => {
                let replace = name == "mpi_sendrecv_replace";
                let count = self.arg(frame, c, 1)?;
                let ty = self.arg(frame, c, 2)?;
                let dest = self.arg(frame, c, 3)?;
                let (rcount, rty, source, comm) = if replace {
                    (
                        count.clone(),
                        ty.clone(),
                        self.arg(frame, c, 5)?,
                        self.arg(frame, c, 7)?,
                    )
                } else {
                    (
                        self.arg(frame, c, 6)?,
                        self.arg(frame, c, 7)?,
                        self.arg(frame, c, 8)?,
                        self.arg(frame, c, 10)?,
                    )
                };
                let r = self.transfer(frame, id, site, false, &rcount, &rty, &source, &comm);
                let s = self.transfer(frame, id, site, true, &count, &ty, &dest, &comm);
                let requests: Vec<usize> = r.into_iter().chain(s).collect();
                if !requests.is_empty() {
                    self.push(site, Event::WaitFor { requests });
                }
            }
            "mpi_wait" | "mpi_waitall" | "mpi_waitany" | "mpi_waitsome" => {
                self.wait(frame, id, site, c)?;
            }
            "mpi_barrier" => {
                let comm = self.arg(frame, c, 0)?;
                self.collective(
                    frame,
                    id,
                    site,
                    Op::Barrier,
                    &Value::Int(0),
                    &Value::Int(PREDEFINED_TYPE),
                    &comm,
                    true,
                );
            }
            "mpi_bcast" | "mpi_reduce" | "mpi_allreduce" => self.reduction(frame, id, site, c)?,
            "mpi_gather" | "mpi_scatter" | "mpi_allgather" | "mpi_alltoall" => {
                let op = match name {
                    "mpi_gather" => Op::Gather,
                    "mpi_scatter" => Op::Scatter,
                    "mpi_allgather" => Op::Allgather,
                    _ => Op::Alltoall,
                };
                // What each process contributes (SCATTER: what it receives).
                let (ci, ti) = if op == Op::Scatter { (4, 5) } else { (1, 2) };
                let count = self.arg(frame, c, ci)?;
                let ty = self.arg(frame, c, ti)?;
                let comm_at = if matches!(op, Op::Gather | Op::Scatter) {
                    7
                } else {
                    6
                };
                let comm = self.arg(frame, c, comm_at)?;
                self.collective(frame, id, site, op, &count, &ty, &comm, true);
            }
            "mpi_alltoallv" | "mpi_allgatherv" | "mpi_gatherv" | "mpi_scatterv"
            | "mpi_reduce_scatter" => self.vector_collective(frame, id, site, c)?,
            _ if unpriced(name) => {
                let what = format!("`{name}` is not modelled: its messages are left out");
                self.note(frame.unit, id, what, false);
            }
            _ => {}
        }
        Ok(Flow::Next)
    }

    fn unknown_comm(&mut self, frame: &Frame, id: StmtId) {
        let what = "a communicator the run cannot tell: the call is left out".into();
        self.note(frame.unit, id, what, false);
    }

    /// Starts a send or receive of `count` elements of `ty` with rank `peer` of `comm`;
    /// its request index (`None` for MPI_PROC_NULL or a call left out).
    #[allow(clippy::too_many_arguments)]
    fn transfer(
        &mut self,
        frame: &Frame,
        id: StmtId,
        site: StmtId,
        send: bool,
        count: &Value,
        ty: &Value,
        peer: &Value,
        comm: &Value,
    ) -> Option<usize> {
        let Some(comm) = self.comm(comm) else {
            self.unknown_comm(frame, id);
            return None;
        };
        let peer = match peer.int() {
            Some(v) if v == PROC_NULL as i64 => return None,
            Some(ANY_SOURCE) if !send => {
                let what =
                    "a receive from MPI_ANY_SOURCE: its sender is not known, priced alone".into();
                self.note(frame.unit, id, what, true);
                usize::MAX
            }
            Some(v) if v >= 0 && (v as usize) < comm.group.len() => comm.group[v as usize],
            _ => {
                let side = if send { "destination" } else { "source" };
                let what = format!("a {side} the run cannot evaluate: the message is priced alone");
                self.note(frame.unit, id, what, false);
                usize::MAX
            }
        };
        let bytes = self.moved_bytes(frame, id, count, ty).unwrap_or(0.0);
        if send {
            self.counts.sends += 1.0;
            self.counts.send_bytes += bytes;
            self.push(site, Event::Send { peer, bytes });
        } else {
            self.counts.recvs += 1.0;
            self.counts.recv_bytes += bytes;
            self.push(site, Event::Recv { peer, bytes });
        }
        self.requests += 1;
        Some(self.requests - 1)
    }

    /// MPI_WAIT, WAITALL, WAITANY, WAITSOME: waits for the requests' transfers; the
    /// requests become MPI_REQUEST_NULL.
    fn wait(&mut self, frame: &mut Frame, id: StmtId, site: StmtId, c: &Call) -> Result<(), Abort> {
        let (handles, at) = if c.name == "mpi_wait" {
            (vec![self.arg(frame, c, 0)?], 0)
        } else {
            let n = self.arg(frame, c, 0)?.int();
            let Some(n) = n else {
                let what = "a request count the run cannot evaluate: nothing waited for".into();
                self.note(frame.unit, id, what, false);
                return Ok(());
            };
            (self.array(frame, c, 1, n)?, 1)
        };
        let mut waited: Vec<usize> = handles
            .iter()
            .filter_map(Value::int)
            .filter(|&h| h >= 0)
            .map(|h| h as usize)
            .collect();
        if c.name == "mpi_waitany" && waited.len() > 1 {
            waited.truncate(1);
            let what = "MPI_WAITANY taken to complete the first active request".into();
            self.note(frame.unit, id, what, true);
        }
        if handles.contains(&Value::Unknown) {
            let what = "a request the run cannot tell: not waited for here".into();
            self.note(frame.unit, id, what, false);
        }
        let cleared: Vec<Value> = handles
            .iter()
            .map(|h| match h.int() {
                Some(v) if waited.contains(&(v as usize)) && v >= 0 => Value::Int(REQUEST_NULL),
                _ => h.clone(),
            })
            .collect();
        if c.name == "mpi_waitany" {
            let index = handles
                .iter()
                .position(|h| h.int().is_some_and(|v| v >= 0))
                .map_or(Value::Int(UNDEFINED), |k| Value::Int(k as i64 + 1));
            self.set(frame, c, 2, index)?;
        }
        if at == 0 {
            self.set(frame, c, 0, cleared[0].clone())?;
        } else {
            self.set_array(frame, c, 1, &cleared)?;
        }
        if !waited.is_empty() {
            self.push(site, Event::WaitFor { requests: waited });
        }
        Ok(())
    }

    /// A collective `op` over `comm` with `count` elements of `ty` per process; counted
    /// as a PMPI counter counts it when `counted`. Under SMPI, the first BCAST, REDUCE
    /// or ALLREDUCE on a communicator first builds its helper communicators.
    #[allow(clippy::too_many_arguments)]
    fn collective(
        &mut self,
        frame: &Frame,
        id: StmtId,
        site: StmtId,
        op: Op,
        count: &Value,
        ty: &Value,
        comm: &Value,
        counted: bool,
    ) -> Option<(Comm, u64)> {
        let Some(comm) = self.comm(comm) else {
            self.unknown_comm(frame, id);
            return None;
        };
        let bytes = match op {
            Op::Barrier | Op::CommCreate | Op::CommSplit => 0.0,
            _ => self.moved_bytes(frame, id, count, ty).unwrap_or(0.0),
        };
        if counted {
            self.counts.collectives += 1.0;
            self.counts.collective_bytes += bytes;
        }
        let size = comm.group.len();
        let seq = self.next_seq(comm.id);
        if size <= 1 {
            return Some((comm, seq));
        }
        let first = self.made.insert(comm.id);
        let setup = (self.net.library == MpiLibrary::Smpi
            && matches!(op, Op::Bcast | Op::Reduce | Op::Allreduce)
            && first)
            .then(|| {
                let g = size as f64;
                if comm.id == WORLD {
                    cost(Op::CommCreate, g, 0.0, self.net).path_s
                } else {
                    let (alpha, _) = self.net.hockney(0.0, size <= self.net.cores_per_node);
                    (g.log2().ceil() + 1.0) * alpha
                }
            });
        let own = cost(op, size as f64, bytes, self.net).path_s;
        for path_s in setup.into_iter().chain([own]) {
            let event = Event::GroupCollective {
                comm: comm.id,
                size,
                path_s,
            };
            self.push(site, event);
        }
        Some((comm, seq))
    }

    /// BCAST, REDUCE and ALLREDUCE, with the values they carry when the program's
    /// counts or peers depend on them (taken from the previous pass's contributions).
    fn reduction(
        &mut self,
        frame: &mut Frame,
        id: StmtId,
        site: StmtId,
        c: &Call,
    ) -> Result<(), Abort> {
        let (op, buf, out, ci, ti, root_at, comm_at) = match c.name.as_str() {
            "mpi_bcast" => (Op::Bcast, 0, 0, 1, 2, Some(3), 4),
            "mpi_reduce" => (Op::Reduce, 0, 1, 2, 3, Some(5), 6),
            _ => (Op::Allreduce, 0, 1, 2, 3, None, 5),
        };
        let count = self.arg(frame, c, ci)?;
        let ty = self.arg(frame, c, ti)?;
        let comm = self.arg(frame, c, comm_at)?;
        let root = match root_at {
            Some(k) => self.arg(frame, c, k)?.int(),
            None => None,
        };
        let Some((comm, seq)) = self.collective(frame, id, site, op, &count, &ty, &comm, true)
        else {
            return Ok(());
        };
        let target = |k: usize| c.args.get(k).map(|a| &a.value);
        let carries = target(out).is_some_and(|e| match e {
            Expr::Name(n) => self.slice.relevant.contains(&key(frame.unit, n)),
            Expr::Array(a) => self.slice.relevant.contains(&key(frame.unit, &a.name)),
            _ => false,
        });
        let n = count.int().unwrap_or(0);
        if !carries || !(1..=4096).contains(&n) {
            return Ok(());
        }
        let in_place = matches!(target(buf), Some(Expr::Name(x)) if x == "mpi_in_place");
        let source = if in_place { out } else { buf };
        let mine = self.array(frame, c, source, n)?;
        self.shared.contribute((comm.id, seq), self.me, mine);
        let all = self.shared.contributions((comm.id, seq), &comm.group);
        let me_in = comm.rank_of(self.me);
        let values: Vec<Value> = match op {
            Op::Bcast => match root.and_then(|r| all.get(r as usize)) {
                Some(Some(v)) => v.clone(),
                _ => vec![Value::Unknown; n as usize],
            },
            _ if op == Op::Reduce && root.map(|r| r as usize) != me_in => return Ok(()),
            _ => {
                let opv = self.arg(frame, c, 4)?.int().unwrap_or(0);
                (0..n as usize)
                    .map(|k| {
                        let column: Option<Vec<Value>> = all
                            .iter()
                            .map(|v| v.as_ref().and_then(|v| v.get(k).cloned()))
                            .collect();
                        column.map_or(Value::Unknown, |col| reduce(opv, &col))
                    })
                    .collect()
            }
        };
        self.set_array(frame, c, out, &values)
    }

    /// ALLTOALLV, ALLGATHERV, GATHERV, SCATTERV, REDUCE_SCATTER: priced as their
    /// regular kin with the average block; not counted as collectives (the PMPI
    /// counter does not wrap them).
    fn vector_collective(
        &mut self,
        frame: &mut Frame,
        id: StmtId,
        site: StmtId,
        c: &Call,
    ) -> Result<(), Abort> {
        let comm_at = match c.name.as_str() {
            "mpi_alltoallv" => 8,
            "mpi_allgatherv" => 7,
            "mpi_reduce_scatter" => 5,
            _ => 8,
        };
        let comm = self.arg(frame, c, comm_at)?;
        let size = self.comm(&comm).map_or(1, |x| x.group.len() as i64);
        let (op, count, ty) = match c.name.as_str() {
            "mpi_alltoallv" => {
                let counts = self.array(frame, c, 1, size)?;
                let total = counts.iter().try_fold(0i64, |a, v| Some(a + v.int()?));
                (
                    Op::Alltoall,
                    total.map_or(Value::Unknown, |t| Value::Int(t / size.max(1))),
                    self.arg(frame, c, 3)?,
                )
            }
            "mpi_allgatherv" => (
                Op::Allgather,
                self.arg(frame, c, 1)?,
                self.arg(frame, c, 2)?,
            ),
            "mpi_gatherv" => (Op::Gather, self.arg(frame, c, 1)?, self.arg(frame, c, 2)?),
            "mpi_scatterv" => (Op::Scatter, self.arg(frame, c, 5)?, self.arg(frame, c, 6)?),
            _ => {
                let counts = self.array(frame, c, 2, size)?;
                let total = counts.iter().try_fold(0i64, |a, v| Some(a + v.int()?));
                (
                    Op::Allreduce,
                    total.map_or(Value::Unknown, Value::Int),
                    self.arg(frame, c, 3)?,
                )
            }
        };
        self.collective(frame, id, site, op, &count, &ty, &comm, false);
        Ok(())
    }

    /// COMM_DUP, COMM_SPLIT, CART_CREATE, CART_SUB: the new communicator's handle.
    fn create(
        &mut self,
        frame: &mut Frame,
        id: StmtId,
        site: StmtId,
        c: &Call,
    ) -> Result<(), Abort> {
        let parent = self.arg(frame, c, 0)?;
        let op = if c.name == "mpi_comm_split" {
            Op::CommSplit
        } else {
            Op::CommCreate
        };
        let zero = Value::Int(0);
        let Some((parent, seq)) =
            self.collective(frame, id, site, op, &zero, &zero, &parent, false)
        else {
            return Ok(());
        };
        let me = parent.rank_of(self.me);
        let (made, out_at) = match c.name.as_str() {
            "mpi_comm_dup" => (Some((0, parent.group.clone(), parent.cart.clone())), 1),
            "mpi_comm_split" => {
                let color = self.arg(frame, c, 1)?;
                let order = self.arg(frame, c, 2)?;
                let at = (parent.id, seq);
                self.shared
                    .contribute(at, self.me, vec![color.clone(), order]);
                let all = self.shared.contributions(at, &parent.group);
                let made = match color.int() {
                    Some(UNDEFINED) => None,
                    Some(col) => {
                        let mut members: Vec<(i64, usize, usize)> = all
                            .iter()
                            .enumerate()
                            .filter_map(|(r, v)| {
                                let v = v.as_ref()?;
                                (v.first()?.int()? == col)
                                    .then(|| Some((v.get(1)?.int()?, r, parent.group[r])))?
                            })
                            .collect();
                        if !members.iter().any(|m| m.2 == self.me) {
                            members.push((0, me.unwrap_or(0), self.me));
                        }
                        members.sort();
                        Some((
                            col,
                            Arc::new(members.into_iter().map(|m| m.2).collect()),
                            None,
                        ))
                    }
                    None => {
                        let what = "a COMM_SPLIT color the run cannot evaluate".into();
                        self.note(frame.unit, id, what, false);
                        None
                    }
                };
                (made, 3)
            }
            "mpi_cart_create" => {
                let k = self.arg(frame, c, 1)?.int().unwrap_or(0).clamp(0, 16);
                let dims: Option<Vec<i64>> =
                    self.array(frame, c, 2, k)?.iter().map(Value::int).collect();
                let periods: Vec<bool> = self
                    .array(frame, c, 3, k)?
                    .iter()
                    .map(|v| v.truth().unwrap_or(false))
                    .collect();
                let made = match dims {
                    Some(dims) if dims.iter().all(|&d| d > 0) => {
                        let n = dims.iter().product::<i64>() as usize;
                        let inside = me.is_some_and(|r| r < n) && n <= parent.group.len();
                        inside.then(|| {
                            (
                                0,
                                Arc::new(parent.group[..n].to_vec()),
                                Some((dims, periods)),
                            )
                        })
                    }
                    _ => {
                        let what = "CART_CREATE dimensions the run cannot evaluate".into();
                        self.note(frame.unit, id, what, false);
                        None
                    }
                };
                (made, 5)
            }
            _ => {
                let (dims, periods) = parent.cart.clone().unwrap_or_default();
                let remain: Vec<bool> = self
                    .array(frame, c, 1, dims.len() as i64)?
                    .iter()
                    .map(|v| v.truth().unwrap_or(false))
                    .collect();
                let mine = me.and_then(|r| parent.coords(r as i64));
                let made = mine.map(|mine| {
                    let fixed = |co: &[i64]| -> Vec<i64> {
                        co.iter()
                            .zip(&remain)
                            .filter(|(_, r)| !**r)
                            .map(|(c, _)| *c)
                            .collect()
                    };
                    let key = fixed(&mine);
                    let group: Vec<usize> = (0..parent.group.len())
                        .filter(|&r| parent.coords(r as i64).is_some_and(|co| fixed(&co) == key))
                        .map(|r| parent.group[r])
                        .collect();
                    let color = key.iter().fold(0i64, |a, c| a * 4096 + c);
                    let cart = (kept(&dims, &remain), kept(&periods, &remain));
                    (color, Arc::new(group), Some(cart))
                });
                (made, 2)
            }
        };
        let handle = match made {
            Some((color, group, cart)) => {
                let id = self.shared.id(parent.id, seq, color);
                self.shared.comms.insert(id, Comm { id, group, cart });
                Value::Int(id as i64)
            }
            None => Value::Int(COMM_NULL),
        };
        self.set(frame, c, out_at, handle)
    }

    /// CART_COORDS, CART_RANK, CART_SHIFT, CART_GET.
    fn topology(&mut self, frame: &mut Frame, id: StmtId, c: &Call) -> Result<(), Abort> {
        let v = self.arg(frame, c, 0)?;
        let Some(comm) = self.comm(&v).filter(|x| x.cart.is_some()) else {
            self.unknown_comm(frame, id);
            return Ok(());
        };
        let (dims, periods) = comm.cart.clone().unwrap_or_default();
        let k = dims.len() as i64;
        let ints = |v: Option<Vec<i64>>| -> Vec<Value> {
            v.map_or(vec![Value::Unknown; k as usize], |v| {
                v.into_iter().map(Value::Int).collect()
            })
        };
        match c.name.as_str() {
            "mpi_cart_coords" => {
                let r = self.arg(frame, c, 1)?.int();
                let coords = r.and_then(|r| comm.coords(r));
                self.set_array(frame, c, 3, &ints(coords))?;
            }
            "mpi_cart_rank" => {
                let co: Option<Vec<i64>> =
                    self.array(frame, c, 1, k)?.iter().map(Value::int).collect();
                let r = co.and_then(|co| comm.rank_at(&co));
                self.set(frame, c, 2, r.map_or(Value::Unknown, Value::Int))?;
            }
            "mpi_cart_shift" => {
                let dir = self.arg(frame, c, 1)?.int();
                let disp = self.arg(frame, c, 2)?.int();
                let mine = comm.rank_of(self.me).and_then(|r| comm.coords(r as i64));
                let (src, dst) = match (dir, disp, mine) {
                    (Some(d), Some(s), Some(mine)) if (0..k).contains(&d) => {
                        let moved = |by: i64| {
                            let mut co = mine.clone();
                            co[d as usize] += by;
                            Value::Int(comm.rank_at(&co).unwrap_or(PROC_NULL as i64))
                        };
                        (moved(-s), moved(s))
                    }
                    _ => (Value::Unknown, Value::Unknown),
                };
                self.set(frame, c, 3, src)?;
                self.set(frame, c, 4, dst)?;
            }
            _ => {
                let mine = comm.rank_of(self.me).and_then(|r| comm.coords(r as i64));
                self.set_array(frame, c, 2, &ints(Some(dims)))?;
                let p: Vec<Value> = periods.into_iter().map(Value::Bool).collect();
                self.set_array(frame, c, 3, &p)?;
                self.set_array(frame, c, 4, &ints(mine))?;
            }
        }
        Ok(())
    }

    /// The type constructors: the new type's size (bytes it carries).
    fn datatype(&mut self, frame: &mut Frame, c: &Call) -> Result<(), Abort> {
        let count = self.arg(frame, c, 0)?.int();
        let (size, out_at) = match c.name.as_str() {
            "mpi_type_contiguous" => {
                let old = self.arg(frame, c, 1)?;
                (count.zip(self.type_size(&old)).map(|(n, s)| n * s), 2)
            }
            "mpi_type_vector" | "mpi_type_hvector" | "mpi_type_create_hvector" => {
                let bl = self.arg(frame, c, 1)?.int();
                let old = self.arg(frame, c, 3)?;
                let s = self.type_size(&old);
                (count.zip(bl).zip(s).map(|((n, b), s)| n * b * s), 4)
            }
            "mpi_type_indexed" | "mpi_type_create_hindexed" => {
                let n = count.unwrap_or(0).clamp(0, 4096);
                let bls = self.array(frame, c, 1, n)?;
                let old = self.arg(frame, c, 3)?;
                let total = bls.iter().try_fold(0i64, |a, v| Some(a + v.int()?));
                (total.zip(self.type_size(&old)).map(|(t, s)| t * s), 4)
            }
            "mpi_type_struct" | "mpi_type_create_struct" => {
                let n = count.unwrap_or(0).clamp(0, 4096);
                let bls = self.array(frame, c, 1, n)?;
                let types = self.array(frame, c, 3, n)?;
                let total = bls
                    .iter()
                    .zip(&types)
                    .try_fold(0i64, |a, (b, t)| Some(a + b.int()? * self.type_size(t)?));
                (total, 4)
            }
            _ => {
                let n = count.unwrap_or(0).clamp(0, 16);
                let subs = self.array(frame, c, 2, n)?;
                let old = self.arg(frame, c, 5)?;
                let cells = subs.iter().try_fold(1i64, |a, v| Some(a * v.int()?));
                (cells.zip(self.type_size(&old)).map(|(t, s)| t * s), 6)
            }
        };
        let handle = self.next_type;
        self.next_type += 1;
        if let Some(s) = size {
            self.types.insert(handle, s);
        }
        self.set(frame, c, out_at, Value::Int(handle))
    }
}
