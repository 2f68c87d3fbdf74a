//! MPI calls priced by the algorithms MPI libraries choose for them (p processes, b
//! bytes per process, lgp = ⌈log2 p⌉; see [`algorithm`] for the selection table):
//! point-to-point α + b·β per message (a send; its receive is the same message), a
//! collective by its algorithm's critical path. The message size is COUNT × the
//! datatype's size (a predefined type, a variable holding one, or a derived type: see
//! `datatype`); p is the size the program's MPI_COMM_SIZE stores (bind that variable,
//! or `p`), or the size of the Cartesian communicator the call runs on. The cost of one
//! call is multiplied by how often the call runs; [`super::ranks`] evaluates the calls
//! process by process.

pub use super::algorithm::Algorithm;
use super::cost::{CommMetrics, MpiLibrary, Network};
use super::datatype::{Datatypes, Outer};
use crate::freq::UnitFrequencies;
use crate::freq::convert::Scope;
use costline_symbolic::{Env, Num, Sym};
use costline_syntax::ir::{Expr, StmtId, StmtKind, Unit};
use std::collections::HashMap;

/// The MPI operations costed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Op {
    Send,
    Recv,
    SendRecv,
    Bcast,
    Scatter,
    Gather,
    Allgather,
    Reduce,
    Allreduce,
    Alltoall,
    Barrier,
    /// A new communicator over the same processes (COMM_DUP, CART_CREATE, COMM_CREATE).
    CommCreate,
    /// COMM_SPLIT: the colors and keys of every process gathered.
    CommSplit,
}

impl Op {
    fn of(name: &str) -> Option<Op> {
        Some(match name {
            "mpi_send" | "mpi_isend" | "mpi_ssend" | "mpi_bsend" | "mpi_rsend" | "mpi_issend"
            | "mpi_ibsend" | "mpi_irsend" => Op::Send,
            "mpi_recv" | "mpi_irecv" => Op::Recv,
            "mpi_sendrecv" | "mpi_sendrecv_replace" => Op::SendRecv,
            "mpi_bcast" => Op::Bcast,
            "mpi_scatter" => Op::Scatter,
            "mpi_gather" => Op::Gather,
            "mpi_allgather" => Op::Allgather,
            "mpi_reduce" => Op::Reduce,
            "mpi_allreduce" => Op::Allreduce,
            "mpi_alltoall" => Op::Alltoall,
            "mpi_barrier" => Op::Barrier,
            "mpi_comm_dup" | "mpi_cart_create" | "mpi_comm_create" => Op::CommCreate,
            "mpi_comm_split" => Op::CommSplit,
            _ => return None,
        })
    }

    /// The collective a machine model's `[collectives]` key names (`bcast`, ...).
    pub fn of_collective(name: &str) -> Option<Op> {
        [
            Op::Bcast,
            Op::Scatter,
            Op::Gather,
            Op::Allgather,
            Op::Reduce,
            Op::Allreduce,
            Op::Alltoall,
            Op::Barrier,
            Op::CommCreate,
            Op::CommSplit,
        ]
        .into_iter()
        .find(|op| op.collective() == Some(name))
    }

    /// The name of a collective in a machine model's `[collectives]`.
    fn collective(self) -> Option<&'static str> {
        Some(match self {
            Op::Bcast => "bcast",
            Op::Scatter => "scatter",
            Op::Gather => "gather",
            Op::Allgather => "allgather",
            Op::Reduce => "reduce",
            Op::Allreduce => "allreduce",
            Op::Alltoall => "alltoall",
            Op::Barrier => "barrier",
            Op::CommCreate => "comm_create",
            Op::CommSplit => "comm_split",
            Op::Send | Op::Recv | Op::SendRecv => return None,
        })
    }

    pub fn as_str(self) -> &'static str {
        match self {
            Op::Send => "send",
            Op::Recv => "receive",
            Op::SendRecv => "sendrecv",
            Op::Bcast => "broadcast",
            Op::Scatter => "scatter",
            Op::Gather => "gather",
            Op::Allgather => "allgather",
            Op::Reduce => "reduce",
            Op::Allreduce => "allreduce",
            Op::Alltoall => "alltoall",
            Op::Barrier => "barrier",
            Op::CommCreate => "communicator creation",
            Op::CommSplit => "communicator split",
        }
    }

    /// Whether every process of the communicator takes part.
    pub fn is_collective(self) -> bool {
        self.collective().is_some()
    }

    /// (argument holding the count, argument holding the datatype), 0-based, for the
    /// calls' Fortran bindings; the count sent per process.
    fn count_and_type(self) -> Option<(usize, usize)> {
        match self {
            Op::Barrier | Op::CommCreate | Op::CommSplit => None,
            // (sendbuf, recvbuf, count, datatype, op, ...)
            Op::Reduce | Op::Allreduce => Some((2, 3)),
            // (buf, count, datatype, ...) and (sendbuf, sendcount, sendtype, ...)
            _ => Some((1, 2)),
        }
    }

    /// The argument holding the communicator, 0-based.
    fn comm_arg(self, name: &str) -> usize {
        match self {
            Op::Barrier | Op::CommCreate | Op::CommSplit => 0,
            Op::Bcast => 4,
            Op::Send | Op::Recv => 5,
            Op::Allreduce => 5,
            Op::Reduce | Op::Allgather | Op::Alltoall => 6,
            Op::Scatter | Op::Gather => 7,
            Op::SendRecv if name == "mpi_sendrecv_replace" => 7,
            Op::SendRecv => 10,
        }
    }
}

/// MPI routines that send nothing of their own (local queries, type and request
/// bookkeeping; a WAIT completes a transfer priced at its ISEND or IRECV).
const NO_MESSAGES: &[&str] = &[
    "mpi_init",
    "mpi_init_thread",
    "mpi_initialized",
    "mpi_finalize",
    "mpi_finalized",
    "mpi_comm_rank",
    "mpi_comm_size",
    "mpi_wtime",
    "mpi_wtick",
    "mpi_abort",
    "mpi_wait",
    "mpi_waitall",
    "mpi_waitany",
    "mpi_waitsome",
    "mpi_test",
    "mpi_testall",
    "mpi_testany",
    "mpi_request_free",
    "mpi_get_count",
    "mpi_get_processor_name",
    "mpi_error_string",
    "mpi_error_class",
    "mpi_op_create",
    "mpi_op_free",
    "mpi_info_create",
    "mpi_info_set",
    "mpi_info_free",
    "mpi_comm_free",
    "mpi_group_free",
    "mpi_comm_group",
    "mpi_group_incl",
    "mpi_cart_coords",
    "mpi_cart_rank",
    "mpi_cart_shift",
    "mpi_cart_get",
    "mpi_dims_create",
    "mpi_address",
    "mpi_get_address",
];

/// Whether a call of the MPI routine `name` has a cost the model leaves out: it is
/// neither priced ([`Op`]) nor free of messages (type constructors are free: they
/// only describe memory).
pub fn unpriced(name: &str) -> bool {
    Op::of(name).is_none() && !NO_MESSAGES.contains(&name) && !name.starts_with("mpi_type_")
}

/// One MPI call of a unit.
#[derive(Clone, Debug)]
pub struct MpiCall {
    pub op: Op,
    /// ISEND, IRECV and their kin: the transfer completes at a WAIT.
    pub nonblocking: bool,
    /// Elements per message (per process for the collectives), in the count's scope.
    pub count: Result<Sym, String>,
    /// The bytes one element of its datatype carries (see [`super::datatype`]).
    pub type_bytes: Result<Sym, String>,
    /// The variable MPI_COMM_SIZE stores the process count in: the unit's own, else
    /// the shared one another unit sets.
    pub size_var: Option<String>,
    /// The rank a send goes to (a send and SENDRECV), a formula in the unit's unknowns.
    pub dest: Option<Result<Sym, String>>,
    /// The rank a receive comes from (a receive and SENDRECV).
    pub source: Option<Result<Sym, String>>,
    /// SENDRECV's receive: its count and the bytes of its datatype's element.
    pub recv: Option<(Result<Sym, String>, Result<Sym, String>)>,
    /// The variable naming the communicator, when it is one.
    pub comm: Option<String>,
}

/// The MPI calls of a unit, with the datatypes it defines (`types`) and reads from
/// outside (`outer`); `world_size` is the shared variable another unit stores the
/// process count in, for a unit that does not call MPI_COMM_SIZE itself.
pub fn calls(
    unit: &Unit,
    freqs: &UnitFrequencies,
    types: &Datatypes,
    outer: Outer,
    world_size: Option<&str>,
) -> HashMap<StmtId, MpiCall> {
    let mut size_var = None;
    unit.walk(&mut |s, _| {
        if let StmtKind::Call(c) = &s.kind
            && c.name == "mpi_comm_size"
            && let Some(Expr::Name(n)) = c.args.get(1).map(|a| &a.value)
        {
            size_var = Some(n.clone());
        }
    });
    let size_var = size_var.or_else(|| world_size.map(str::to_string));
    let mut out = HashMap::new();
    unit.walk(&mut |s, _| {
        let StmtKind::Call(c) = &s.kind else { return };
        let Some(op) = Op::of(&c.name) else { return };
        let sym = |k: usize, what: &str| match (c.args.get(k), freqs.scope_of(s.id)) {
            (Some(a), Some(names)) => Scope {
                unit,
                names,
                integers: true,
            }
            .sym(&a.value)
            .map_err(|why| format!("its {what} depends on {why}")),
            _ => Err(format!("it has no {what} argument")),
        };
        let bytes = |k: usize| match c.args.get(k) {
            Some(a) => types.size_of(&a.value, outer),
            None => Err("it has no datatype argument".into()),
        };
        let (count, type_bytes) = match op.count_and_type() {
            None => (Ok(Sym::zero()), Ok(Sym::zero())),
            Some((ci, ti)) => (sym(ci, "count"), bytes(ti)),
        };
        let replace = c.name == "mpi_sendrecv_replace";
        let (dest, source, recv) = match op {
            Op::Send => (Some(sym(3, "destination")), None, None),
            Op::Recv => (None, Some(sym(3, "source")), None),
            Op::SendRecv if replace => (
                Some(sym(3, "destination")),
                Some(sym(5, "source")),
                Some((sym(1, "count"), bytes(2))),
            ),
            Op::SendRecv => (
                Some(sym(3, "destination")),
                Some(sym(8, "source")),
                Some((sym(6, "count"), bytes(7))),
            ),
            _ => (None, None, None),
        };
        let comm = match c.args.get(op.comm_arg(&c.name)).map(|a| &a.value) {
            Some(Expr::Name(n)) => Some(n.clone()),
            _ => None,
        };
        out.insert(
            s.id,
            MpiCall {
                op,
                nonblocking: c.name.starts_with("mpi_i"),
                count,
                type_bytes,
                size_var: size_var.clone(),
                dest,
                source,
                recv,
                comm,
            },
        );
    });
    out
}

/// The size of an MPI datatype, bytes.
pub fn datatype_bytes(name: &str) -> Option<u64> {
    Some(match name {
        "mpi_byte" | "mpi_character" | "mpi_integer1" | "mpi_packed" => 1,
        "mpi_integer2" => 2,
        "mpi_integer" | "mpi_real" | "mpi_logical" | "mpi_integer4" | "mpi_real4" => 4,
        "mpi_double_precision" | "mpi_real8" | "mpi_integer8" | "mpi_complex" | "mpi_2real" => 8,
        "mpi_double_complex" | "mpi_complex16" | "mpi_2double_precision" => 16,
        _ => return None,
    })
}

/// One MPI call under the bindings.
#[derive(Clone, Debug, PartialEq)]
pub struct MpiValues {
    pub op: Op,
    /// Bytes per message (per process for collectives).
    pub bytes: Option<f64>,
    pub processes: Option<i128>,
    /// How a collective is priced: its algorithm, or the machine's fitted function.
    pub algorithm: Option<&'static str>,
    pub metrics: Result<CommMetrics, String>,
}

impl MpiValues {
    /// These values with the metrics of the per-rank evaluation ([`super::ranks`]).
    pub fn with_metrics(self, metrics: CommMetrics) -> MpiValues {
        MpiValues {
            metrics: Ok(metrics),
            ..self
        }
    }
}

/// The cost of `call`, run `freq` times, under `env`; `group` is the size of its
/// communicator where the topology gives it (else the program's process count).
pub fn values(
    call: &MpiCall,
    freq: Option<f64>,
    env: Env,
    net: &Network,
    group: Option<i128>,
) -> MpiValues {
    let int = |s: &Sym| match s.eval(env).ok()? {
        Num::Exact(r) => r.as_integer(),
        Num::Approx(_) => None,
    };
    let processes = group
        .or_else(|| call.size_var.as_deref().and_then(env))
        .or_else(|| env("p"))
        .filter(|p| *p >= 1);
    let bytes = match (&call.count, &call.type_bytes) {
        (Ok(c), Ok(b)) => int(c)
            .zip(int(b))
            .and_then(|(c, b)| c.checked_mul(b))
            .map(|m| m as f64),
        _ => None,
    };
    let metrics = (|| {
        let freq = freq.ok_or("its frequency needs values")?;
        let b = match (&call.count, &call.type_bytes) {
            (Err(e), _) | (_, Err(e)) => return Err(format!("not modelled: {e}")),
            _ => bytes.ok_or("its count needs a value")?,
        };
        let p = processes.ok_or_else(|| match &call.size_var {
            Some(v) => format!("the process count needs a value for `{v}` (or `p`)"),
            None => "the process count needs a value for `p`".to_string(),
        })? as f64;
        Ok(CommMetrics::default().plus(&cost(call.op, p, b, net), freq))
    })();
    let algorithm = match (bytes, processes) {
        (Some(b), Some(p)) if call.op.is_collective() => Some(priced_by(call.op, p as f64, b, net)),
        _ => None,
    };
    MpiValues {
        op: call.op,
        bytes,
        processes,
        algorithm,
        metrics,
    }
}

/// What prices collective `op` on `net`: the fitted runtime function, the algorithm
/// the machine model names, or the one the library selects.
pub fn priced_by(op: Op, p: f64, b: f64, net: &Network) -> &'static str {
    let fitted = op.collective().and_then(|name| net.collectives.get(name));
    if fitted.is_some_and(|c| c.tau1_s.is_some()) {
        return "fitted runtime function";
    }
    fitted
        .and_then(|c| c.algorithm.as_deref())
        .and_then(Algorithm::named)
        .unwrap_or_else(|| algorithm(net.library, op, p, b))
        .as_str()
}

/// One call of `op` among `p` processes with `b` bytes per process: messages and
/// bytes over all processes, and its time (the algorithm's critical path, which is
/// also its TT: the messages of one round overlap). The time is the machine's fitted
/// runtime function t = τ1 + τ2·p + tc·p·b (Kühnemann et al., Table 1) when the model
/// has one for the operation, else the algorithm's cost (the model's choice of
/// algorithm, else the library's: [`algorithm`]) with α and β for the message size —
/// intra-node when all `p` processes fit on one node.
pub fn cost(op: Op, p: f64, b: f64, net: &Network) -> CommMetrics {
    if p <= 1.0 && op != Op::Send && op != Op::SendRecv {
        return CommMetrics::default();
    }
    let intra = p <= net.cores_per_node as f64;
    let (a, beta) = net.hockney(b, intra);
    let lgp = p.log2().ceil().max(0.0);
    let n = b * p; // the whole buffer of a rooted or all- collective
    let (nt, td) = match op {
        Op::Send | Op::SendRecv => (1.0, b),
        Op::Recv => (0.0, 0.0),
        Op::Bcast | Op::Reduce => (p - 1.0, (p - 1.0) * b),
        Op::Scatter | Op::Gather => (p - 1.0, n * (p - 1.0) / p),
        Op::Allgather | Op::Alltoall => (p * (p - 1.0), (p - 1.0) * n),
        Op::Allreduce => (2.0 * p * lgp, 2.0 * (p - 1.0) * b),
        Op::Barrier => (p * lgp, 0.0),
        Op::CommCreate => (2.0 * (p - 1.0) + p * lgp, 0.0),
        Op::CommSplit => (p - 1.0 + p * lgp, 0.0),
    };
    let fitted = op.collective().and_then(|name| net.collectives.get(name));
    let runtime = fitted.and_then(|c| {
        let (t1, t2, tc) = (
            c.tau1_s?,
            c.tau2_s.unwrap_or(0.0),
            c.tc_s_per_byte.unwrap_or(0.0),
        );
        Some(t1 + t2 * p + tc * p * b)
    });
    let chosen = fitted
        .and_then(|c| c.algorithm.as_deref())
        .and_then(Algorithm::named);
    let t = match (op, runtime) {
        (Op::Recv, _) => 0.0,
        (Op::Send | Op::SendRecv, _) => a + b * beta,
        (_, Some(t)) => t,
        (_, None) => chosen
            .unwrap_or_else(|| algorithm(net.library, op, p, b))
            .time(op, p, b, &|m| net.hockney(m, intra)),
    };
    CommMetrics {
        nt,
        td_bytes: td,
        tt_s: t,
        path_s: t,
    }
}

/// The time of the collective `name` (a `[collectives]` key) among `p` processes with
/// `b` bytes per process by the algorithm `net`'s library selects, priced with `net`'s
/// point-to-point α and β — what [`cost`] charges when the machine model has no entry
/// for it (`costline train` compares it with its fits). None for an unknown name.
pub fn library_time(name: &str, p: f64, b: f64, net: &Network) -> Option<f64> {
    let op = Op::of_collective(name)?;
    let plain = Network {
        collectives: Default::default(),
        ..net.clone()
    };
    Some(cost(op, p, b, &plain).path_s)
}

/// The algorithm `library` selects for `op` among `p` processes with `b` bytes per
/// process: [`mpich`] (MPICH, and SMPI with its MPICH selector) or Open MPI's
/// ([`super::open_mpi::algorithm`]).
pub fn algorithm(library: MpiLibrary, op: Op, p: f64, b: f64) -> Algorithm {
    match library {
        // MPICH itself (not SMPI's copy of its selector) takes Rabenseifner's
        // ALLREDUCE above 2 KiB when the count reaches the largest power of two ≤ p.
        MpiLibrary::Mpich if op == Op::Allreduce && b > 2048.0 && b / 8.0 >= p => {
            Algorithm::Rabenseifner
        }
        MpiLibrary::Mpich | MpiLibrary::Smpi => mpich(op, p, b),
        MpiLibrary::OpenMpi => super::open_mpi::algorithm(op, p, b),
    }
}

/// The algorithm MPICH selects for `op` among `p` processes with `b` bytes per process,
/// by its thresholds as SimGrid's SMPI reproduces them (`smpi/coll-selector:mpich`,
/// checked against SMPI 3.32 on this machine: ../shared/NOTES.md):
/// BARRIER dissemination; BCAST binomial below 12 KiB or 8 processes, else scatter +
/// recursive-doubling allgather below 512 KiB on a power of two, else scatter + ring;
/// REDUCE Rabenseifner from 2 KiB, binomial below; ALLREDUCE recursive doubling (SMPI's
/// selector keeps it at every size; MPICH itself switches to Rabenseifner above 2 KiB);
/// ALLGATHER recursive doubling (Bruck off a power of two) below 512 KiB gathered, ring
/// above; GATHER and SCATTER binomial; ALLTOALL Bruck up to 256 B from 8 processes,
/// all posted at once up to 32 KiB, pairwise above; a new communicator as SMPI makes
/// it (rank 0 collects the group one process at a time).
pub fn mpich(op: Op, p: f64, b: f64) -> Algorithm {
    let power_of_two = p >= 1.0 && (p as u64).is_power_of_two();
    match op {
        Op::Barrier => Algorithm::Dissemination,
        Op::Bcast if b < 12288.0 || p < 8.0 => Algorithm::Binomial,
        Op::Bcast if b < 524288.0 && power_of_two => Algorithm::ScatterRecursiveDoubling,
        Op::Bcast => Algorithm::ScatterRing,
        Op::Reduce if b >= 2048.0 => Algorithm::Rabenseifner,
        Op::Reduce => Algorithm::Binomial,
        Op::Allreduce => Algorithm::RecursiveDoubling,
        Op::Allgather if b * p < 524288.0 && power_of_two => Algorithm::RecursiveDoubling,
        Op::Allgather if b * p < 524288.0 => Algorithm::Bruck,
        Op::Allgather => Algorithm::Ring,
        Op::Gather | Op::Scatter => Algorithm::Binomial,
        Op::Alltoall if b <= 256.0 && p >= 8.0 => Algorithm::Bruck,
        Op::Alltoall if b <= 32768.0 => Algorithm::Scattered,
        Op::Alltoall => Algorithm::Pairwise,
        Op::CommCreate | Op::CommSplit => Algorithm::LinearGroup,
        Op::Send | Op::Recv | Op::SendRecv => Algorithm::Linear,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn net() -> Network {
        Network {
            alpha_s: 1e-6,
            beta_s_per_byte: 1e-9,
            hop_s: 0.0,
            ..Network::default()
        }
    }

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() <= 1e-12 * b.abs().max(1e-30)
    }

    #[test]
    fn allgather_switches_from_recursive_doubling_to_the_ring_with_size() {
        // p = 8 processes contributing 1 KiB each (n = 8 KiB): lgp·α + n(p-1)/p·β.
        let m = cost(Op::Allgather, 8.0, 1024.0, &net());
        assert!(close(m.path_s, 3.0 * 1e-6 + 8192.0 * 7.0 / 8.0 * 1e-9));
        assert_eq!((m.nt, m.td_bytes), (56.0, 7.0 * 8192.0));
        // 128 KiB each (n = 1 MiB, past 512 KiB): the ring, (p-1)·α + n(p-1)/p·β.
        let big = cost(Op::Allgather, 8.0, 131072.0, &net());
        let n = 8.0 * 131072.0;
        assert!(close(big.path_s, 7.0 * 1e-6 + n * 7.0 / 8.0 * 1e-9));
    }

    #[test]
    fn the_library_picks_the_algorithm_by_size_and_processes() {
        assert_eq!(mpich(Op::Bcast, 16.0, 8.0), Algorithm::Binomial);
        assert_eq!(
            mpich(Op::Bcast, 16.0, 16384.0),
            Algorithm::ScatterRecursiveDoubling
        );
        assert_eq!(mpich(Op::Bcast, 12.0, 16384.0), Algorithm::ScatterRing);
        assert_eq!(mpich(Op::Reduce, 4.0, 128.0), Algorithm::Binomial);
        assert_eq!(mpich(Op::Reduce, 4.0, 2048.0), Algorithm::Rabenseifner);
        assert_eq!(mpich(Op::Alltoall, 16.0, 8.0), Algorithm::Bruck);
        assert_eq!(mpich(Op::Alltoall, 4.0, 8.0), Algorithm::Scattered);
        assert_eq!(mpich(Op::Alltoall, 4.0, 65536.0), Algorithm::Pairwise);
    }

    #[test]
    fn trees_take_log_p_rounds() {
        let b = cost(Op::Bcast, 5.0, 100.0, &net());
        assert!(close(b.path_s, 3.0 * (1e-6 + 100.0 * 1e-9)));
        // An 8-byte ALLREDUCE by recursive doubling: lgp rounds of one message.
        let r = cost(Op::Allreduce, 4.0, 8.0, &net());
        assert!(close(r.path_s, 2.0 * (1e-6 + 8.0 * 1e-9)));
        assert_eq!(cost(Op::Barrier, 1.0, 0.0, &net()), CommMetrics::default());
    }

    #[test]
    fn a_fitted_runtime_function_replaces_the_algorithm() {
        let mut net = net();
        net.collectives.insert(
            "bcast".into(),
            crate::machine::Collective {
                algorithm: None,
                tau1_s: Some(2e-6),
                tau2_s: Some(1e-7),
                tc_s_per_byte: Some(1e-10),
                fit_rel_rms: None,
            },
        );
        let b = cost(Op::Bcast, 4.0, 1000.0, &net);
        assert!(close(b.path_s, 2e-6 + 4.0 * 1e-7 + 4.0 * 1000.0 * 1e-10));
    }

    #[test]
    fn message_sizes_pick_their_segment() {
        let mut net = net();
        net.cores_per_node = 8;
        net.segments = vec![
            crate::machine::Segment {
                up_to_bytes: 4096.0,
                alpha_s: 3e-7,
                beta_s_per_byte: 4e-10,
                locality: Some(crate::machine::Locality::IntraNode),
            },
            crate::machine::Segment {
                up_to_bytes: 1e12,
                alpha_s: 2e-6,
                beta_s_per_byte: 2e-10,
                locality: Some(crate::machine::Locality::IntraNode),
            },
        ];
        let small = cost(Op::Send, 2.0, 1000.0, &net);
        assert!(close(small.path_s, 3e-7 + 1000.0 * 4e-10));
        let large = cost(Op::Send, 2.0, 1e5, &net);
        assert!(close(large.path_s, 2e-6 + 1e5 * 2e-10));
        // Processors 8 and 9 are on different nodes: no segment, the top-level pair.
        assert!(close(
            net.time_between(8, 9, 16, 1.0, 1000.0),
            1e-6 + 1000.0 * 1e-9
        ));
        assert!(close(
            net.time_between(1, 8, 16, 1.0, 1000.0),
            3e-7 + 1000.0 * 4e-10
        ));
    }

    #[test]
    fn the_library_time_ignores_fitted_entries() {
        let mut net = net();
        let by_library = library_time("bcast", 4.0, 1000.0, &net).unwrap();
        assert!(close(by_library, 2.0 * (1e-6 + 1000.0 * 1e-9)));
        net.collectives.insert(
            "bcast".into(),
            crate::machine::Collective {
                algorithm: Some("linear".into()),
                tau1_s: None,
                tau2_s: None,
                tc_s_per_byte: None,
                fit_rel_rms: None,
            },
        );
        assert_eq!(library_time("bcast", 4.0, 1000.0, &net), Some(by_library));
        assert_eq!(library_time("gossip", 4.0, 8.0, &net), None);
    }

    #[test]
    fn datatypes_have_their_sizes() {
        assert_eq!(datatype_bytes("mpi_double_precision"), Some(8));
        assert_eq!(datatype_bytes("mpi_integer"), Some(4));
        assert_eq!(datatype_bytes("mpi_my_type"), None);
    }
}
