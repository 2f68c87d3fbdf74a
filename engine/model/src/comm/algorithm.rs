//! The algorithms MPI libraries run collectives by, and each one's critical path in
//! Hockney terms: p processes, b bytes per process (N = p·b gathered or scattered in
//! all), lgp = ⌈log2 p⌉ rounds of a binomial tree, d = ⌊log2 p⌋ levels of a binary
//! tree; α and β of the size each message has (a segment's for the pipelined ones).

use super::mpi::Op;
use super::replay::EAGER_LIMIT_BYTES;

/// The algorithm a collective runs by.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Algorithm {
    Binomial,
    RecursiveDoubling,
    Bruck,
    Ring,
    Rabenseifner,
    /// BCAST as a binomial scatter and a recursive-doubling allgather (van de Geijn).
    ScatterRecursiveDoubling,
    /// BCAST as a binomial scatter and a ring allgather.
    ScatterRing,
    Linear,
    Pairwise,
    /// ALLTOALL with every send and receive posted at once.
    Scattered,
    Dissemination,
    /// A communicator made as SMPI makes it: rank 0 collects the group one process at a
    /// time and hands the new communicator out.
    LinearGroup,
    /// A chain 0 → 1 → … → p−1 the message moves down in S segments of s =
    /// `segment` bytes. `streamed` (NTSL: every segment's send posted at once): the
    /// first segment pays α at each of the p − 1 hops, the others follow at the link's
    /// rate (β of the whole message): (p − 1)·(α_s + s·β_s) + (b − s)·β_b. Else (Open
    /// MPI's pipeline and chain: a node's next segment waits for its last) the
    /// textbook pipeline: (p − 2 + S)·(α_s + s·β_s).
    Chain {
        segment: u32,
        streamed: bool,
    },
    /// A binary tree the message moves down (or up, reduced) in segments, each node
    /// sending to (receiving from) f = min(2, p − 1) over one link: streamed (NTSB)
    /// d·(α_s + f·s·β_s) + f·(b − s)·β_b, else (d + S − 1)·(α_s + f·s·β_s).
    BinaryTree {
        segment: u32,
        streamed: bool,
    },
    /// Open MPI's split binary tree: each half of the message down one subtree in
    /// segments (S of the half), then partners swap halves:
    /// (d + S − 2)·(α_s + 2s·β_s) + α + (b/2)·β.
    SplitBinaryTree {
        segment: u32,
    },
    /// A binomial tree of segments (Open MPI's segmented binomial reduce):
    /// (lgp + S − 1)·(α_s + s·β_s).
    SegmentedBinomial {
        segment: u32,
    },
    /// A k-nomial tree (k = 4): ⌈log4 p⌉ rounds, each parent sending to up to three
    /// children at once over its one link: α + 3b·β a round.
    Knomial,
    /// An unsegmented binary tree rooted at p − 1, then the result to the root:
    /// d·(α + 2b·β) + α + b·β.
    InOrderBinary,
    /// ALLGATHER by neighbour exchange: p/2 steps, (p/2)·α + (p − 1)·b·β.
    NeighborExchange,
    /// ALLREDUCE as a REDUCE to rank 0 and a BCAST, each as Open MPI selects it.
    ReduceBcast,
}

impl Algorithm {
    /// The algorithm a machine model names (`[collectives.allreduce] algorithm = ...`).
    pub fn named(name: &str) -> Option<Algorithm> {
        Some(match name {
            "binomial" => Algorithm::Binomial,
            "recursive_doubling" => Algorithm::RecursiveDoubling,
            "bruck" => Algorithm::Bruck,
            "ring" => Algorithm::Ring,
            "rabenseifner" => Algorithm::Rabenseifner,
            "scatter_recursive_doubling" => Algorithm::ScatterRecursiveDoubling,
            "scatter_ring" => Algorithm::ScatterRing,
            "linear" => Algorithm::Linear,
            "pairwise" => Algorithm::Pairwise,
            "scattered" => Algorithm::Scattered,
            "dissemination" => Algorithm::Dissemination,
            _ => return None,
        })
    }

    pub fn as_str(self) -> &'static str {
        match self {
            Algorithm::Binomial => "binomial tree",
            Algorithm::RecursiveDoubling => "recursive doubling",
            Algorithm::Bruck => "Bruck",
            Algorithm::Ring => "ring",
            Algorithm::Rabenseifner => "Rabenseifner",
            Algorithm::ScatterRecursiveDoubling => "scatter + recursive-doubling allgather",
            Algorithm::ScatterRing => "scatter + ring allgather",
            Algorithm::Linear => "linear",
            Algorithm::Pairwise => "pairwise exchange",
            Algorithm::Scattered => "all posted at once",
            Algorithm::Dissemination => "dissemination",
            Algorithm::LinearGroup => "group gathered and scattered by rank 0",
            Algorithm::Chain { .. } => "pipelined chain",
            Algorithm::BinaryTree { .. } => "pipelined binary tree",
            Algorithm::SplitBinaryTree { .. } => "split binary tree",
            Algorithm::SegmentedBinomial { .. } => "segmented binomial tree",
            Algorithm::Knomial => "4-nomial tree",
            Algorithm::InOrderBinary => "in-order binary tree",
            Algorithm::NeighborExchange => "neighbour exchange",
            Algorithm::ReduceBcast => "reduce + broadcast",
        }
    }

    /// The critical path of `op` by this algorithm among p processes with b bytes per
    /// process; `p2p(m)` is (α, β) for a message of m bytes.
    pub fn time(self, op: Op, p: f64, b: f64, p2p: &dyn Fn(f64) -> (f64, f64)) -> f64 {
        let (a, beta) = p2p(b);
        let lgp = p.log2().ceil().max(0.0);
        let depth = p.log2().floor().max(0.0);
        let share = (p - 1.0) / p; // the part of a buffer that moves
        let n = b * p;
        // (s, S, α, β) of `m` bytes cut into segments of `segment` bytes.
        let segments = |m: f64, segment: u32| {
            let s = m.min(f64::from(segment)).max(1.0);
            let count = (m / s).ceil().max(1.0);
            let (a, beta) = p2p(s);
            (s, count, a, beta)
        };
        // A root sending (or receiving) to each process in turn: below the eager limit
        // the sends do not wait for their receivers and only the bytes queue.
        let linear = if b < EAGER_LIMIT_BYTES {
            a + (p - 1.0) * b * beta
        } else {
            (p - 1.0) * (a + b * beta)
        };
        match (self, op) {
            (Algorithm::Linear, Op::Barrier) => 2.0 * a,
            (Algorithm::InOrderBinary | Algorithm::BinaryTree { .. }, Op::Barrier) => 2.0 * lgp * a,
            (_, Op::Barrier) => lgp * a,
            // Measured under SMPI 3.32 (CM02, 1.2 µs): COMM_DUP and CART_CREATE take
            // ≈ (2(p−1) + lgp)·α (10α at p = 4, 36α at 16), COMM_SPLIT ≈ (p−1 + lgp)·α.
            (_, Op::CommCreate) => (2.0 * (p - 1.0) + lgp) * a,
            (_, Op::CommSplit) => (p - 1.0 + lgp) * a,
            (Algorithm::LinearGroup, _) => (p - 1.0) * (a + b * beta),
            (Algorithm::Linear, Op::Gather | Op::Scatter | Op::Bcast) => linear,
            (Algorithm::Linear, _) | (Algorithm::Pairwise, _) => (p - 1.0) * (a + b * beta),
            (Algorithm::Scattered, _) => a + (p - 1.0) * b * beta,
            (Algorithm::Bruck, Op::Alltoall) => lgp * a + lgp * n / 2.0 * beta,
            (Algorithm::Binomial, Op::Gather | Op::Scatter) => lgp * a + share * n * beta,
            (Algorithm::Binomial, Op::Allreduce) => 2.0 * lgp * (a + b * beta),
            (Algorithm::Binomial, _) => lgp * (a + b * beta),
            (Algorithm::RecursiveDoubling, Op::Allreduce) => lgp * (a + b * beta),
            (Algorithm::RecursiveDoubling | Algorithm::Bruck | Algorithm::Dissemination, _) => {
                lgp * a + share * n * beta
            }
            (Algorithm::Ring, Op::Allreduce) => 2.0 * (p - 1.0) * a + 2.0 * share * b * beta,
            (Algorithm::Ring, Op::Bcast | Op::Reduce) => (p - 1.0) * a + 2.0 * share * b * beta,
            (Algorithm::Ring, _) => (p - 1.0) * a + share * n * beta,
            (Algorithm::Rabenseifner | Algorithm::ScatterRecursiveDoubling, _) => {
                2.0 * lgp * a + 2.0 * share * b * beta
            }
            (Algorithm::ScatterRing, _) => (lgp + p - 1.0) * a + 2.0 * share * b * beta,
            (Algorithm::Chain { segment, streamed }, _) => {
                let (s, count, sa, sbeta) = segments(b, segment);
                if streamed {
                    (p - 1.0).max(1.0) * (sa + s * sbeta) + (b - s) * beta
                } else {
                    (p - 2.0 + count).max(1.0) * (sa + s * sbeta)
                }
            }
            (Algorithm::BinaryTree { segment, streamed }, _) => {
                let fan = (p - 1.0).clamp(1.0, 2.0);
                let (s, count, sa, sbeta) = segments(b, segment);
                if streamed {
                    depth.max(1.0) * (sa + fan * s * sbeta) + fan * (b - s) * beta
                } else {
                    (depth + count - 1.0).max(1.0) * (sa + fan * s * sbeta)
                }
            }
            (Algorithm::SplitBinaryTree { segment }, _) => {
                let half = b / 2.0;
                let (s, count, sa, sbeta) = segments(half, segment);
                let (ha, hbeta) = p2p(half);
                (depth + count - 2.0).max(1.0) * (sa + 2.0 * s * sbeta) + ha + half * hbeta
            }
            (Algorithm::SegmentedBinomial { segment }, _) => {
                let (s, count, sa, sbeta) = segments(b, segment);
                (lgp + count - 1.0) * (sa + s * sbeta)
            }
            (Algorithm::Knomial, _) => {
                let rounds = (p.ln() / 4f64.ln()).ceil().max(0.0);
                rounds * (a + (p - 1.0).min(3.0) * b * beta)
            }
            (Algorithm::InOrderBinary, _) => depth * (a + 2.0 * b * beta) + a + b * beta,
            (Algorithm::NeighborExchange, _) => (p / 2.0).floor() * a + (p - 1.0) * b * beta,
            (Algorithm::ReduceBcast, _) => {
                let reduce = super::open_mpi::algorithm(Op::Reduce, p, b);
                let bcast = super::open_mpi::algorithm(Op::Bcast, p, b);
                reduce.time(Op::Reduce, p, b, p2p) + bcast.time(Op::Bcast, p, b, p2p)
            }
        }
    }
}
