//! What communication costs: P^3T+ Definitions 4.4–4.6 over the communication records,
//! with the Hockney model t = α + β·bytes per message plus γ per extra network hop (the
//! range-comparison model T = Z(ρ + β·D + γ·h)), and the time on the critical path
//! (the most loaded processor).

use super::pattern::Pattern;
use super::records::Record;
use crate::machine::{Collective, Locality, Machine, Segment};
use std::collections::{BTreeMap, HashMap};

/// How processors are wired: the number of links a message between two of them
/// crosses (processors numbered 1..=p in arrangement order).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Topology {
    /// Every pair one hop apart (a crossbar, or a fat tree priced as one).
    Full,
    /// A bidirectional ring: the shorter way round.
    Ring,
    /// A 2-D mesh `width` processors wide, row by row: the Manhattan distance.
    Mesh { width: usize },
    /// A hypercube: the bits in which the (0-based) numbers differ.
    Hypercube,
}

impl Topology {
    /// Hops between processors `from` and `to` (1-based) of `p`; 0 for the same one.
    pub fn hops(self, from: usize, to: usize, p: usize) -> usize {
        let (a, b) = (from.saturating_sub(1), to.saturating_sub(1));
        let d = a.abs_diff(b);
        match self {
            _ if a == b => 0,
            Topology::Full => 1,
            Topology::Ring => d.min(p.max(b + 1).max(a + 1) - d),
            Topology::Mesh { width } => {
                let w = width.max(1);
                (a / w).abs_diff(b / w) + (a % w).abs_diff(b % w)
            }
            Topology::Hypercube => (a ^ b).count_ones() as usize,
        }
    }
}

/// The network parameters communication is priced with, from the machine model
/// ([`Network::of`]): Hockney α/β (piecewise by message size and by whether both
/// processors share a node), γ per extra hop on the topology, and the collectives'
/// runtime functions or algorithms. [`Network::default`] is a plain InfiniBand HDR
/// pair (~1.2 µs, ~24 GB/s, published figures: NOTES.md) for tests.
#[derive(Clone, Debug, PartialEq)]
pub struct Network {
    /// α: message startup time, seconds (one hop included), where no segment applies.
    pub alpha_s: f64,
    /// β: transfer time per byte, seconds, where no segment applies.
    pub beta_s_per_byte: f64,
    /// γ: time per hop beyond the first, seconds.
    pub hop_s: f64,
    pub topology: Topology,
    /// Processors per node: processors 1..c share the first node, and so on.
    pub cores_per_node: usize,
    /// Piecewise α/β by message size and locality.
    pub segments: Vec<Segment>,
    /// Fitted runtime functions or algorithms of the collectives, by name (`bcast`, ...).
    pub collectives: BTreeMap<String, Collective>,
    /// The MPI library the collectives and communicators are priced for.
    pub library: MpiLibrary,
}

/// An MPI library whose behaviour the model follows.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum MpiLibrary {
    /// MPICH's collective algorithm selection.
    #[default]
    Mpich,
    /// SimGrid's SMPI with MPICH's selector (`smpi/coll-selector:mpich`): MPICH's
    /// algorithms, and a communicator's node-aware helper communicators made at its
    /// first BCAST, REDUCE or ALLREDUCE.
    Smpi,
    /// Open MPI's `tuned` selection (`super::open_mpi`).
    OpenMpi,
}

impl Default for Network {
    fn default() -> Network {
        Network {
            alpha_s: 1.2e-6,
            beta_s_per_byte: 1.0 / 24.0e9,
            hop_s: 1.3e-7,
            topology: Topology::Full,
            cores_per_node: 1,
            segments: Vec::new(),
            collectives: BTreeMap::new(),
            library: MpiLibrary::Mpich,
        }
    }
}

impl Network {
    /// The network part of a machine model (a validated one: its topology is known).
    pub fn of(m: &Machine) -> Network {
        let n = &m.network;
        let topology = match n.topology.as_str() {
            "ring" => Topology::Ring,
            "mesh" => Topology::Mesh {
                width: n.mesh_width.unwrap_or(1).max(1) as usize,
            },
            "hypercube" => Topology::Hypercube,
            _ => Topology::Full,
        };
        Network {
            alpha_s: n.alpha_s,
            beta_s_per_byte: n.beta_s_per_byte,
            hop_s: n.hop_s,
            topology,
            cores_per_node: n.cores_per_node.max(1) as usize,
            segments: n.segments.clone(),
            collectives: m.collectives.clone(),
            library: match n.mpi_library.as_str() {
                "smpi" => MpiLibrary::Smpi,
                "openmpi" => MpiLibrary::OpenMpi,
                _ => MpiLibrary::Mpich,
            },
        }
    }

    /// (α, β) for one message of `bytes`: the first segment of its locality whose
    /// `up_to_bytes` covers it, else the top-level pair.
    pub fn hockney(&self, bytes: f64, intra_node: bool) -> (f64, f64) {
        let locality = if intra_node {
            Locality::IntraNode
        } else {
            Locality::InterNode
        };
        self.segments
            .iter()
            .filter(|s| s.locality.is_none_or(|l| l == locality))
            .find(|s| bytes <= s.up_to_bytes)
            .map_or((self.alpha_s, self.beta_s_per_byte), |s| {
                (s.alpha_s, s.beta_s_per_byte)
            })
    }

    /// Whether processors `from` and `to` (1-based) share a node.
    pub fn same_node(&self, from: usize, to: usize) -> bool {
        let c = self.cores_per_node.max(1);
        from.saturating_sub(1) / c == to.saturating_sub(1) / c
    }

    /// One message of `bytes` from process `from` to process `to` (0-based) of `p`:
    /// (latency, serialization) = (α + γ·(hops − 1), β·bytes), α and β of its size and
    /// of whether both share a node, hops on the topology. A `to` past the last process
    /// (a partner that never came) is taken to be one hop away on another node.
    pub fn price(&self, from: usize, to: usize, p: usize, bytes: f64) -> (f64, f64) {
        let (intra, hops) = if to < p {
            let intra = self.same_node(from + 1, to + 1);
            (intra, self.topology.hops(from + 1, to + 1, p))
        } else {
            (false, 1)
        };
        let (alpha, beta) = self.hockney(bytes, intra);
        let extra = if intra { 0 } else { hops.saturating_sub(1) };
        (alpha + self.hop_s * extra as f64, beta * bytes)
    }

    /// α·messages + β·bytes for `messages` of equal size carrying `bytes` in all, between
    /// neighbours (one hop).
    pub fn time(&self, messages: f64, bytes: f64, intra_node: bool) -> f64 {
        if messages <= 0.0 {
            return self.beta_s_per_byte * bytes;
        }
        let (alpha, beta) = self.hockney(bytes / messages, intra_node);
        alpha * messages + beta * bytes
    }

    /// The time of `messages` carrying `bytes` in all from processor `from` to `to` of
    /// `p`: each message pays α + γ·(hops − 1), each byte β.
    pub fn time_between(&self, from: usize, to: usize, p: usize, messages: f64, bytes: f64) -> f64 {
        let intra = self.same_node(from, to);
        let extra = if intra {
            0.0
        } else {
            self.topology.hops(from, to, p).saturating_sub(1) as f64
        };
        self.time(messages, bytes, intra) + self.hop_s * extra * messages
    }
}

/// NT, TD, TT (Definition 4.4: over all records) and CT, the communication time on the
/// critical path, per run of the unit.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct CommMetrics {
    /// Number of transfers (messages).
    pub nt: f64,
    /// Data transferred, bytes.
    pub td_bytes: f64,
    /// Transfer time, seconds: Σ over messages of α + β·bytes.
    pub tt_s: f64,
    /// The communication time of the busiest processor (the critical path), seconds.
    pub path_s: f64,
}

impl CommMetrics {
    /// The metrics of one reference's records. The critical path: each processor sends
    /// and receives at once (one port each way), so its time is the larger of what it
    /// sends and what it receives; a broadcast goes down a binomial tree, ⌈log2(R+1)⌉
    /// rounds for R receivers, as MPI implementations do it.
    /// `p` is the number of processors (for the topology's distances).
    pub fn of(records: &[Record], pattern: Pattern, net: &Network, p: usize) -> CommMetrics {
        let time = |r: &Record| net.time_between(r.from, r.to, p, r.messages, r.bytes);
        // Folded from +0 (an empty f64 sum is -0).
        let nt = records.iter().fold(0.0, |a, r| a + r.messages);
        let td_bytes = records.iter().fold(0.0, |a, r| a + r.bytes);
        let tt_s = records.iter().fold(0.0, |a, r| a + time(r));
        let path_s = match pattern {
            Pattern::Broadcast if !records.is_empty() => {
                let rounds = ((records.len() + 1) as f64).log2().ceil();
                let worst = records.iter().map(time).fold(0.0, f64::max);
                rounds * worst
            }
            Pattern::Reduction => {
                let p = records.iter().map(|r| r.from.max(r.to)).max().unwrap_or(1);
                let worst = records.iter().map(time).fold(0.0, f64::max);
                super::reduction::rounds(p) * worst
            }
            _ => {
                let mut send: HashMap<usize, f64> = HashMap::new();
                let mut recv: HashMap<usize, f64> = HashMap::new();
                for r in records {
                    let t = time(r);
                    *send.entry(r.from).or_default() += t;
                    *recv.entry(r.to).or_default() += t;
                }
                send.values()
                    .chain(recv.values())
                    .copied()
                    .fold(0.0, f64::max)
            }
        };
        CommMetrics {
            nt,
            td_bytes,
            tt_s,
            path_s,
        }
    }

    /// Definition 4.5/4.6: the sum (phases one after the other).
    pub fn sum(all: &[CommMetrics]) -> CommMetrics {
        all.iter()
            .fold(CommMetrics::default(), |a, m| a.plus(m, 1.0))
    }

    /// `self + k·m`.
    pub fn plus(&self, m: &CommMetrics, k: f64) -> CommMetrics {
        CommMetrics {
            nt: self.nt + k * m.nt,
            td_bytes: self.td_bytes + k * m.td_bytes,
            tt_s: self.tt_s + k * m.tt_s,
            path_s: self.path_s + k * m.path_s,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_message_is_priced_by_its_pair_of_processes() {
        let net = Network {
            alpha_s: 1e-6,
            beta_s_per_byte: 1e-9,
            hop_s: 1e-7,
            topology: Topology::Ring,
            cores_per_node: 2,
            segments: vec![Segment {
                up_to_bytes: 1e15,
                alpha_s: 2e-7,
                beta_s_per_byte: 1e-10,
                locality: Some(Locality::IntraNode),
            }],
            ..Network::default()
        };
        // Processes 0 and 1 share a node: its segment, no hops.
        assert_eq!(net.price(0, 1, 8, 100.0), (2e-7, 100.0 * 1e-10));
        // 0 and 3 are three hops apart on the ring of 8: two extra hops.
        let (latency, bytes) = net.price(0, 3, 8, 100.0);
        assert!((latency - (1e-6 + 2e-7)).abs() < 1e-18 && bytes == 100.0 * 1e-9);
        // A partner that never came: another node, one hop.
        assert_eq!(net.price(0, 9, 8, 100.0), (1e-6, 100.0 * 1e-9));
    }

    #[test]
    fn hops_follow_the_topology() {
        assert_eq!(Topology::Full.hops(1, 7, 8), 1);
        assert_eq!(Topology::Full.hops(3, 3, 8), 0);
        assert_eq!(Topology::Ring.hops(1, 8, 8), 1);
        assert_eq!(Topology::Ring.hops(2, 6, 8), 4);
        assert_eq!(Topology::Ring.hops(1, 4, 8), 3);
        // 3 wide: 1 2 3 / 4 5 6 / 7 8 9.
        assert_eq!(Topology::Mesh { width: 3 }.hops(1, 9, 9), 4);
        assert_eq!(Topology::Mesh { width: 3 }.hops(2, 5, 9), 1);
        assert_eq!(Topology::Hypercube.hops(1, 8, 8), 3);
        assert_eq!(Topology::Hypercube.hops(3, 4, 8), 1);
        assert_eq!(Topology::Hypercube.hops(2, 3, 8), 2);
    }

    #[test]
    fn extra_hops_cost_gamma_per_message() {
        let net = Network {
            alpha_s: 1e-6,
            beta_s_per_byte: 1e-9,
            hop_s: 1e-7,
            topology: Topology::Ring,
            ..Network::default()
        };
        let r = Record {
            from: 1,
            to: 5,
            messages: 2.0,
            bytes: 1000.0,
        };
        // 4 hops on a ring of 8: 3 beyond the first, per message.
        let m = CommMetrics::of(std::slice::from_ref(&r), Pattern::General, &net, 8);
        let expected = 2.0 * 1e-6 + 1000.0 * 1e-9 + 2.0 * 3.0 * 1e-7;
        assert!((m.tt_s - expected).abs() < 1e-15, "{}", m.tt_s);
        let full = Network {
            topology: Topology::Full,
            ..net.clone()
        };
        let m = CommMetrics::of(&[r], Pattern::General, &full, 8);
        assert!((m.tt_s - (2.0 * 1e-6 + 1000.0 * 1e-9)).abs() < 1e-15);
    }
}
