//! A unit's MPI calls process by process: on each rank r of the P processes the counts,
//! peers and branches are evaluated with the rank's own values ([`Carts::bindings`]:
//! its rank, grid coordinates and neighbours), so a master that deals work, the edge
//! of a non-periodic grid (an MPI_PROC_NULL peer moves nothing) and interior
//! processes each get their own record.
//!
//! Per rank: point-to-point messages and bytes sent and received, collective calls
//! and the bytes the rank contributes to them (COUNT × the type's size, as a PMPI
//! wrapper counts them), and the rank's communication time. The times come from a
//! replay of all ranks' calls together ([`super::trace`], [`super::replay`]): a rank
//! waits for the partners of its messages and for the last rank at a collective, so
//! a token passed around a ring or a master serving its workers in turn costs what
//! its chain of messages costs. Where the calls cannot be replayed (too many, an
//! iteration space that cannot be listed), each rank's calls are priced one by one
//! ([`TimeSource::PerCall`]):
//! - a blocking send, receive or SENDRECV that moves a message costs α + β·b (a
//!   SENDRECV's two messages overlap: the larger counts);
//! - ISEND and IRECV start transfers a WAIT completes: a WAIT(ALL) costs α + β·B with
//!   B the larger of the bytes sent and received since the last one (the transfers
//!   progress together, as MPI libraries progress them);
//! - a collective costs its algorithm's critical path ([`super::mpi::cost`]), and so
//!   does making a communicator (COMM_DUP, CART_CREATE, COMM_SPLIT), which is not
//!   counted among the collectives.
//!
//! The unit's communication time is the slowest rank's (the critical path over the
//! ranks). NT and TD are totals over all ranks; the most any one rank sends is kept
//! beside them.
//!
//! Where a call's count rests on something the text does not give (an assumed or
//! measured-on-average probability or trip count, a value that varied, a count
//! without a value) and a profile run on as many ranks counted the call, each rank
//! takes its own measured calls per run of the unit ([`RankProfile`]), and its
//! measured elements per call where its count argument has no value.

use super::cart::{Carts, PROC_NULL, integer};
use super::cost::{CommMetrics, Network};
use super::mpi::{MpiCall, Op, cost, unpriced};
use super::replay::replay;
use super::trace;
use crate::freq::measured::PerRank;
use crate::freq::{FreqOptions, UnitFrequencies};
use costline_symbolic::{Env, Sym};
use costline_syntax::ir::{StmtId, StmtKind, Unit};
use std::collections::HashMap;

/// Ranks beyond this many are not evaluated one by one.
pub const MAX_RANKS: i128 = 4096;

/// What one process does with MPI in one run of the unit.
#[derive(Clone, Debug, Default, PartialEq, serde::Serialize)]
pub struct RankComm {
    /// 0-based, as MPI numbers processes.
    pub rank: usize,
    pub sends: f64,
    pub send_bytes: f64,
    pub recvs: f64,
    pub recv_bytes: f64,
    pub collectives: f64,
    pub collective_bytes: f64,
    pub time_s: f64,
}

/// The unit's MPI calls on every rank.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct MpiRanks {
    pub ranks: Vec<RankComm>,
    /// Each call's NT, TD, TT over all ranks and its slowest rank's time (`path_s`).
    pub stmts: HashMap<StmtId, CommMetrics>,
    /// Calls left out on some rank, with why.
    pub missing: Vec<(StmtId, String)>,
    /// Calls counted on an assumption (a peer with no value taken to be a process).
    pub assumed: Vec<(StmtId, String)>,
    /// Calls counted with each rank's measured counts.
    pub measured: Vec<(StmtId, String)>,
    /// How the times were found.
    pub timing: TimeSource,
}

/// How the ranks' communication times were found.
#[derive(Clone, Debug, PartialEq)]
pub enum TimeSource {
    /// By replaying the processes' calls together ([`super::replay`]); `unmatched`
    /// transfers and collectives found no partner and were priced alone.
    Replayed { unmatched: usize },
    /// Call by call on each process, without waiting for partners (the replay could
    /// not be made: why).
    PerCall(String),
}

impl Default for TimeSource {
    fn default() -> TimeSource {
        TimeSource::PerCall("no replay".into())
    }
}

impl MpiRanks {
    /// The slowest rank's communication time.
    pub fn path_s(&self) -> f64 {
        self.ranks.iter().map(|r| r.time_s).fold(0.0, f64::max)
    }

    /// The most messages any one rank sends.
    pub fn max_sends(&self) -> f64 {
        self.ranks.iter().map(|r| r.sends).fold(0.0, f64::max)
    }
}

/// What the per-rank evaluation needs of a unit.
pub struct RankJob<'a> {
    pub unit: &'a Unit,
    pub calls: &'a HashMap<StmtId, MpiCall>,
    pub carts: &'a Carts,
    pub freqs: &'a UnitFrequencies,
    pub env: Env<'a>,
    pub options: &'a FreqOptions,
    pub net: &'a Network,
    /// What a profile run on as many ranks counted of the unit.
    pub profile: Option<RankProfile<'a>>,
}

/// A profile run's per-rank counts of a unit, for [`RankJob`].
pub struct RankProfile<'a> {
    pub counts: &'a PerRank,
    /// The run in words.
    pub run: &'a str,
    /// Whether the unit's value of a name is a profile's record that varied on one
    /// rank.
    pub varied: &'a dyn Fn(&str) -> bool,
    /// The value of a name the profile recorded on a rank, when it was one value there
    /// and the ranks' values differ.
    pub rank_value: &'a dyn Fn(&str, usize) -> Option<i128>,
}

impl RankJob<'_> {
    /// The number of processes: the value of the variable MPI_COMM_SIZE stores it in,
    /// else `p`, else the size of the unit's Cartesian grid.
    pub fn processes(&self) -> Result<i128, String> {
        let size_var = self.calls.values().find_map(|c| c.size_var.clone());
        let known = size_var
            .as_deref()
            .and_then(self.env)
            .or_else(|| (self.env)("p"))
            .or_else(|| {
                self.calls
                    .values()
                    .filter_map(|c| c.comm.as_deref())
                    .find_map(|c| self.carts.size_of(c, self.env)?.ok())
            });
        match known {
            Some(p) if (1..=MAX_RANKS).contains(&p) => Ok(p),
            Some(p) => Err(format!(
                "{p} processes: per-rank records are kept for 1 to {MAX_RANKS}"
            )),
            None => Err(match size_var {
                Some(v) => format!("the process count needs a value for `{v}` (or `p`)"),
                None => "the process count needs a value for `p`".to_string(),
            }),
        }
    }

    /// Every rank's record, or why there is none.
    pub fn run(&self) -> Result<MpiRanks, String> {
        let p = self.processes()?;
        let mut order: Vec<(StmtId, Option<&MpiCall>)> = Vec::new();
        self.unit.walk(&mut |s, _| {
            if let Some(c) = self.calls.get(&s.id) {
                order.push((s.id, Some(c)));
            } else if let StmtKind::Call(c) = &s.kind
                && matches!(
                    c.name.as_str(),
                    "mpi_wait" | "mpi_waitall" | "mpi_waitany" | "mpi_waitsome"
                )
            {
                order.push((s.id, None));
            }
        });
        let mut out = MpiRanks::default();
        self.unit.walk(&mut |s, _| {
            if let StmtKind::Call(c) = &s.kind
                && c.name.starts_with("mpi_")
                && unpriced(&c.name)
            {
                let what = format!("`{}` is not priced", c.name.to_uppercase());
                out.missing.push((s.id, what));
            }
        });
        let mut shared: HashMap<StmtId, Option<f64>> = HashMap::new();
        for r in 0..p {
            let bindings = self.carts.bindings(r, self.env)?;
            let measured = |n: &str| (self.profile.as_ref()?.rank_value)(n, r as usize);
            let env = |n: &str| {
                bindings
                    .get(n)
                    .copied()
                    .or_else(|| measured(n))
                    .or_else(|| (self.env)(n))
            };
            let mut rank = Rank {
                job: self,
                env: &env,
                processes: p,
                record: RankComm {
                    rank: r as usize,
                    ..RankComm::default()
                },
                pending: (0.0, 0.0),
                out: &mut out,
                shared: &mut shared,
            };
            for (id, call) in &order {
                rank.call(*id, *call);
            }
            let record = rank.record;
            out.ranks.push(record);
        }
        self.replayed(p, &mut out);
        Ok(out)
    }

    /// The ranks' times and each call's slowest rank from a replay of the calls, where
    /// one can be made ([`trace`], [`replay`]); else the call-by-call times stay.
    fn replayed(&self, p: i128, out: &mut MpiRanks) {
        let traces = match trace::traces(self, p) {
            Ok(t) => t,
            Err(why) => {
                out.timing = TimeSource::PerCall(why);
                return;
            }
        };
        let processes = usize::try_from(p).unwrap_or(usize::MAX);
        let price = |from: usize, to: usize, b: f64| self.net.price(from, to, processes, b);
        let result = replay(&traces, &price);
        for m in out.stmts.values_mut() {
            m.path_s = 0.0;
        }
        for (rank, (clock, by_stmt)) in out
            .ranks
            .iter_mut()
            .zip(result.clocks.iter().zip(&result.by_stmt))
        {
            rank.time_s = *clock;
            for (id, t) in by_stmt {
                let m = out.stmts.entry(*id).or_default();
                m.path_s = m.path_s.max(*t);
            }
        }
        out.timing = TimeSource::Replayed {
            unmatched: result.unmatched,
        };
    }
}

/// One rank's walk through the unit's calls.
struct Rank<'a, 'b> {
    job: &'a RankJob<'a>,
    env: Env<'b>,
    processes: i128,
    record: RankComm,
    /// Bytes sent and received by transfers started and not yet waited for.
    pending: (f64, f64),
    out: &'b mut MpiRanks,
    /// Frequencies that do not depend on the rank, by statement.
    shared: &'b mut HashMap<StmtId, Option<f64>>,
}

impl Rank<'_, '_> {
    fn call(&mut self, id: StmtId, call: Option<&MpiCall>) {
        let Some(freq) = self.freq(id) else {
            return;
        };
        if freq == 0.0 {
            return;
        }
        let Some(call) = call else {
            // A WAIT: the transfers started since the last one complete together.
            let (sent, received) = std::mem::take(&mut self.pending);
            if sent + received > 0.0 {
                let (a, beta) = self.hockney(sent.max(received) / freq);
                let time = freq * a + sent.max(received) * beta;
                self.add(id, time, Totals::default());
            }
            return;
        };
        let Some(bytes) = self.bytes(id, &call.count, &call.type_bytes) else {
            return;
        };
        match call.op {
            Op::Send | Op::Recv | Op::SendRecv => {
                let sent = match &call.dest {
                    Some(d) if self.peer(id, d) => bytes,
                    _ => -1.0,
                };
                let received = match (&call.source, &call.recv) {
                    (Some(s), Some((count, ty))) if self.peer(id, s) => {
                        let Some(b) = self.bytes(id, count, ty) else {
                            return;
                        };
                        b
                    }
                    (Some(s), None) if self.peer(id, s) => bytes,
                    _ => -1.0,
                };
                if sent >= 0.0 {
                    self.record.sends += freq;
                    self.record.send_bytes += freq * sent;
                }
                if received >= 0.0 {
                    self.record.recvs += freq;
                    self.record.recv_bytes += freq * received;
                }
                let moved = sent.max(received);
                if moved < 0.0 {
                    return;
                }
                let (nt, td) = if sent >= 0.0 {
                    (freq, freq * sent)
                } else {
                    (0.0, 0.0)
                };
                if call.nonblocking {
                    self.pending.0 += freq * sent.max(0.0);
                    self.pending.1 += freq * received.max(0.0);
                    self.add(id, 0.0, Totals { nt, td, tt: 0.0 });
                } else {
                    let (a, beta) = self.hockney(moved);
                    let time = freq * (a + moved * beta);
                    let tt = if sent >= 0.0 { time } else { 0.0 };
                    self.add(id, time, Totals { nt, td, tt });
                }
            }
            op => {
                let group = match call.comm.as_deref() {
                    Some(c) => match self.job.carts.size_of(c, self.env) {
                        Some(Ok(size)) => size,
                        Some(Err(why)) => return self.missing(id, why),
                        None => self.processes,
                    },
                    None => self.processes,
                };
                if !matches!(op, Op::CommCreate | Op::CommSplit) {
                    self.record.collectives += freq;
                    self.record.collective_bytes += freq * bytes;
                }
                let m = cost(op, group as f64, bytes, self.job.net);
                // NT, TD and TT of the whole collective, counted once (on its first rank).
                let totals = if self.record.rank == 0 {
                    Totals {
                        nt: freq * m.nt,
                        td: freq * m.td_bytes,
                        tt: freq * m.tt_s,
                    }
                } else {
                    Totals::default()
                };
                self.add(id, freq * m.path_s, totals);
            }
        }
    }

    /// How often statement `id` runs on this rank; `None` (and a missing entry) when it
    /// has no value. A count the text does not give is the rank's measured calls per
    /// run, where a profile counted them.
    fn freq(&mut self, id: StmtId) -> Option<f64> {
        if let Some(f) = self.shared.get(&id) {
            return *f;
        }
        let count = self.job.freqs.of(id)?;
        let value = count.eval(self.env, self.job.options);
        let derived = value.is_ok()
            && count.assumptions.is_empty()
            && !self
                .job
                .profile
                .as_ref()
                .is_some_and(|p| count.unknowns().iter().any(|n| (p.varied)(n)));
        if !derived
            && let Some(p) = &self.job.profile
            && let Some(f) = p.counts.calls_per_run(id, self.record.rank)
        {
            self.measured(
                id,
                format!("its calls per run on each rank (measured: {})", p.run),
            );
            return Some(f);
        }
        let depends = count.unknowns().iter().any(|n| !self.binds_alike(n));
        match value {
            Ok(v) => {
                let f = v.to_f64();
                if !depends {
                    self.shared.insert(id, Some(f));
                }
                Some(f)
            }
            Err(e) => {
                self.missing(id, format!("its frequency needs values: {e}"));
                None
            }
        }
    }

    /// Notes once that what `id` takes (`what`) came from the profile.
    fn measured(&mut self, id: StmtId, what: String) {
        if !self
            .out
            .measured
            .iter()
            .any(|(s, w)| *s == id && *w == what)
        {
            self.out.measured.push((id, what));
        }
    }

    /// Whether `name` means the same on every rank (the topology does not bind it).
    fn binds_alike(&self, name: &str) -> bool {
        (self.env)(name) == (self.job.env)(name)
    }

    /// count × element bytes on this rank.
    fn bytes(
        &mut self,
        id: StmtId,
        count: &Result<Sym, String>,
        ty: &Result<Sym, String>,
    ) -> Option<f64> {
        let measured = self
            .job
            .profile
            .as_ref()
            .and_then(|p| Some((p.counts.elements_per_call(id, self.record.rank)?, p.run)));
        let value = match (count, ty) {
            (_, Err(e)) => Err(format!("not modelled: {e}")),
            (count, Ok(t)) => {
                let c = count.as_ref().ok().and_then(|c| integer(c, self.env));
                match (c, integer(t, self.env), measured) {
                    (Some(c), Some(t), _) => c
                        .checked_mul(t)
                        .map(|b| b as f64)
                        .ok_or_else(|| format!("its size `{c}` × `{t}` is too large")),
                    (None, Some(t), Some((elements, run))) => {
                        self.measured(
                            id,
                            format!("its count: each rank's elements per call (measured: {run})"),
                        );
                        Ok(elements * t as f64)
                    }
                    (None, _, _) => Err(match count {
                        Ok(c) => format!("its count `{c}` needs a value"),
                        Err(e) => format!("not modelled: {e}"),
                    }),
                    (_, None, _) => Err(format!("its datatype's size `{t}` needs a value")),
                }
            }
        };
        match value {
            Ok(b) => Some(b),
            Err(why) => {
                self.missing(id, why);
                None
            }
        }
    }

    /// Whether the peer `p` is a process (not MPI_PROC_NULL); a peer with no value is
    /// taken to be one, and said so.
    fn peer(&mut self, id: StmtId, p: &Result<Sym, String>) -> bool {
        match p.as_ref().ok().and_then(|p| integer(p, self.env)) {
            Some(v) => v != PROC_NULL,
            None => {
                let why = match p {
                    Ok(p) => format!("its peer `{p}` has no value: taken to be a process"),
                    Err(e) => format!("{e}: taken to be a process"),
                };
                if !self.out.assumed.iter().any(|(s, w)| *s == id && *w == why) {
                    self.out.assumed.push((id, why));
                }
                true
            }
        }
    }

    fn hockney(&self, bytes: f64) -> (f64, f64) {
        let net = self.job.net;
        net.hockney(bytes, self.processes <= net.cores_per_node as i128)
    }

    /// Adds `time` to this rank's and the call's totals over the ranks.
    fn add(&mut self, id: StmtId, time: f64, totals: Totals) {
        self.record.time_s += time;
        let m = self.out.stmts.entry(id).or_default();
        m.nt += totals.nt;
        m.td_bytes += totals.td;
        m.tt_s += totals.tt;
        m.path_s = m.path_s.max(time);
    }

    fn missing(&mut self, id: StmtId, why: String) {
        if !self.out.missing.iter().any(|(s, w)| *s == id && *w == why) {
            self.out.missing.push((id, why));
        }
    }
}

/// A call's share of NT, TD and TT (Definitions 4.4–4.6, totals over all ranks).
#[derive(Clone, Copy, Default)]
struct Totals {
    nt: f64,
    td: f64,
    tt: f64,
}
