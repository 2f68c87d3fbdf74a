//! MPI calls priced by the algorithms MPI libraries use (MPICH's cost model, see
//! NOTES.md; p processes, n bytes, lgp = ⌈log2 p⌉):
//! point-to-point α + n·β per message (a send; its receive is the same message);
//! binomial BCAST lgp·(α + n·β); binomial REDUCE the same; binomial SCATTER/GATHER
//! lgp·α + n(p−1)/p·β with n the whole buffer; ring ALLGATHER (p−1)·α + n(p−1)/p·β;
//! Rabenseifner ALLREDUCE 2·lgp·α + 2n(p−1)/p·β; pairwise ALLTOALL (p−1)·(α + n/p·β);
//! dissemination BARRIER lgp·α. The message size is COUNT × the datatype's size (a
//! predefined type, a variable holding one, or a derived type: see `datatype`); p is
//! the size the program's MPI_COMM_SIZE stores (bind that variable, or `p`). The cost
//! of one call is multiplied by how often the call runs.

use super::cost::{CommMetrics, Network};
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
}

impl Op {
    fn of(name: &str) -> Option<Op> {
        Some(match name {
            "mpi_send" | "mpi_isend" | "mpi_ssend" | "mpi_bsend" | "mpi_rsend" => Op::Send,
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
            _ => return None,
        })
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
            Op::Send | Op::Recv | Op::SendRecv => return None,
        })
    }

    pub fn as_str(self) -> &'static str {
        match self {
            Op::Send => "send",
            Op::Recv => "receive",
            Op::SendRecv => "sendrecv",
            Op::Bcast => "broadcast (binomial tree)",
            Op::Scatter => "scatter (binomial tree)",
            Op::Gather => "gather (binomial tree)",
            Op::Allgather => "allgather (ring)",
            Op::Reduce => "reduce (binomial tree)",
            Op::Allreduce => "allreduce (Rabenseifner)",
            Op::Alltoall => "alltoall (pairwise)",
            Op::Barrier => "barrier (dissemination)",
        }
    }

    /// (argument holding the count, argument holding the datatype), 0-based, for the
    /// calls' Fortran bindings; the count sent per process.
    fn count_and_type(self) -> Option<(usize, usize)> {
        match self {
            Op::Barrier => None,
            // (sendbuf, recvbuf, count, datatype, op, ...)
            Op::Reduce | Op::Allreduce => Some((2, 3)),
            // (buf, count, datatype, ...) and (sendbuf, sendcount, sendtype, ...)
            _ => Some((1, 2)),
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
    /// Elements per message (per process for the collectives), in the count's scope.
    pub count: Result<Sym, String>,
    /// The bytes one element of its datatype carries (see [`super::datatype`]).
    pub type_bytes: Result<Sym, String>,
    /// The variable MPI_COMM_SIZE stores the process count in: the unit's own, else
    /// the shared one another unit sets.
    pub size_var: Option<String>,
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
        let (count, type_bytes) = match op.count_and_type() {
            None => (Ok(Sym::zero()), Ok(Sym::zero())),
            Some((ci, ti)) => {
                let count = match (c.args.get(ci), freqs.scope_of(s.id)) {
                    (Some(a), Some(names)) => Scope {
                        unit,
                        names,
                        integers: true,
                    }
                    .sym(&a.value)
                    .map_err(|why| format!("its count depends on {why}")),
                    _ => Err("it has no count argument".into()),
                };
                let bytes = match c.args.get(ti) {
                    Some(a) => types.size_of(&a.value, outer),
                    None => Err("it has no datatype argument".into()),
                };
                (count, bytes)
            }
        };
        out.insert(
            s.id,
            MpiCall {
                op,
                count,
                type_bytes,
                size_var: size_var.clone(),
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
    pub metrics: Result<CommMetrics, String>,
}

/// The cost of `call`, run `freq` times, under `env`.
pub fn values(call: &MpiCall, freq: Option<f64>, env: Env, net: &Network) -> MpiValues {
    let int = |s: &Sym| match s.eval(env).ok()? {
        Num::Exact(r) => r.as_integer(),
        Num::Approx(_) => None,
    };
    let processes = call
        .size_var
        .as_deref()
        .and_then(env)
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
    MpiValues {
        op: call.op,
        bytes,
        processes,
        metrics,
    }
}

/// One call of `op` among `p` processes with `b` bytes per process: messages and
/// bytes over all processes, and its time (the algorithm's critical path, which is
/// also its TT: the messages of one round overlap). The time is the machine's fitted
/// runtime function t = τ1 + τ2·p + tc·p·b (Kühnemann et al., Table 1) when the model
/// has one for the operation, else the algorithm's cost (the model's choice of
/// algorithm, MPICH's by default) with α and β for the message size — intra-node when
/// all `p` processes fit on one node.
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
    let algorithm = fitted.and_then(|c| c.algorithm.as_deref());
    let t = match (op, runtime, algorithm) {
        (Op::Recv, _, _) => 0.0,
        (Op::Send | Op::SendRecv, _, _) => a + b * beta,
        (_, Some(t), _) => t,
        (_, None, Some("linear")) => (p - 1.0) * (a + b * beta),
        (Op::Bcast | Op::Reduce, None, Some("ring" | "pairwise")) => {
            (p - 1.0) * a + 2.0 * b * (p - 1.0) / p * beta
        }
        (Op::Bcast | Op::Reduce, None, _) => lgp * (a + b * beta),
        (Op::Scatter | Op::Gather, None, _) => lgp * a + n * (p - 1.0) / p * beta,
        (Op::Allgather, None, Some("binomial" | "dissemination" | "recursive_doubling")) => {
            lgp * a + n * (p - 1.0) / p * beta
        }
        (Op::Allgather, None, _) => (p - 1.0) * a + n * (p - 1.0) / p * beta,
        (Op::Allreduce, None, Some("binomial")) => 2.0 * lgp * (a + b * beta),
        (Op::Allreduce, None, Some("recursive_doubling")) => lgp * (a + b * beta),
        (Op::Allreduce, None, Some("ring")) => 2.0 * (p - 1.0) * a + 2.0 * b * (p - 1.0) / p * beta,
        (Op::Allreduce, None, _) => 2.0 * lgp * a + 2.0 * b * (p - 1.0) / p * beta,
        (Op::Alltoall, None, _) => (p - 1.0) * (a + b * beta),
        (Op::Barrier, None, _) => lgp * a,
    };
    CommMetrics {
        nt,
        td_bytes: td,
        tt_s: t,
        path_s: t,
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
    fn ring_allgather_is_linear_in_p_and_in_the_gathered_bytes() {
        // p = 8 processes contributing 1 KiB each: (p-1)·α + n(p-1)/p·β, n = 8 KiB.
        let m = cost(Op::Allgather, 8.0, 1024.0, &net());
        assert!(close(m.path_s, 7.0 * 1e-6 + 8192.0 * 7.0 / 8.0 * 1e-9));
        assert_eq!((m.nt, m.td_bytes), (56.0, 7.0 * 8192.0));
    }

    #[test]
    fn trees_take_log_p_rounds() {
        let b = cost(Op::Bcast, 5.0, 100.0, &net());
        assert!(close(b.path_s, 3.0 * (1e-6 + 100.0 * 1e-9)));
        let r = cost(Op::Allreduce, 4.0, 800.0, &net());
        assert!(close(
            r.path_s,
            2.0 * 2.0 * 1e-6 + 2.0 * 800.0 * 3.0 / 4.0 * 1e-9
        ));
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
    fn datatypes_have_their_sizes() {
        assert_eq!(datatype_bytes("mpi_double_precision"), Some(8));
        assert_eq!(datatype_bytes("mpi_integer"), Some(4));
        assert_eq!(datatype_bytes("mpi_my_type"), None);
    }
}
