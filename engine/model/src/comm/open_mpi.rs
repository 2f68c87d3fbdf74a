//! The algorithm Open MPI selects for a collective: the fixed decision rules of its
//! `tuned` component (Open MPI 4.1, `coll_tuned_decision_fixed.c`), as SimGrid's SMPI
//! 3.32 reproduces them (`smpi/coll-selector:ompi`, `smpi_openmpi_selector.cpp`).
//! p processes; b is the whole message of BCAST, REDUCE and ALLREDUCE (count × type
//! size) and the block per process of the gathers, scatters and all-to-all. Reductions
//! are taken to be commutative (MPI_SUM, MPI_MAX, ...: the operations programs use).

use super::algorithm::Algorithm;
use super::mpi::Op;

/// The first algorithm of `table` whose size bound exceeds `b` (strict, as Open MPI
/// compares), else `otherwise`.
fn by_size(b: f64, table: &[(f64, Algorithm)], otherwise: Algorithm) -> Algorithm {
    table
        .iter()
        .find(|(bound, _)| b < *bound)
        .map_or(otherwise, |(_, a)| *a)
}

const KIB: f64 = 1024.0;
const MIB: f64 = 1024.0 * 1024.0;

/// Open MPI's selection for `op` among `p` processes with `b` bytes.
pub fn algorithm(op: Op, p: f64, b: f64) -> Algorithm {
    match op {
        Op::Barrier => barrier(p),
        Op::Bcast => bcast(p, b),
        Op::Reduce => reduce(p, b),
        Op::Allreduce => allreduce(p, b),
        Op::Allgather => allgather(p, b),
        Op::Alltoall => alltoall(p, b),
        Op::Gather => gather(p, b),
        Op::Scatter => scatter(p, b),
        Op::CommCreate | Op::CommSplit => Algorithm::LinearGroup,
        Op::Send | Op::Recv | Op::SendRecv => Algorithm::Linear,
    }
}

/// Recursive doubling below 4 and from 8 to 64 processes, linear from 4 to 8, Bruck
/// and tree beyond.
fn barrier(p: f64) -> Algorithm {
    if p < 4.0 || (8.0..64.0).contains(&p) {
        Algorithm::RecursiveDoubling
    } else if p < 8.0 {
        Algorithm::Linear
    } else if (256.0..512.0).contains(&p) || (1024.0..4096.0).contains(&p) {
        Algorithm::BinaryTree {
            segment: 0,
            streamed: false,
        }
    } else {
        Algorithm::Bruck
    }
}

/// Open MPI's pipeline broadcast: its segment from the message size and p.
fn bcast_pipeline(p: f64, b: f64) -> Algorithm {
    let segment = if p < 1.6134e-6 * b + 2.1102 {
        128 * 1024
    } else if p < 2.3679e-6 * b + 1.1787 {
        64 * 1024
    } else if p < 3.2118e-6 * b + 8.7936 {
        16 * 1024
    } else {
        128 * 1024
    };
    Algorithm::Chain {
        segment,
        streamed: false,
    }
}

fn bcast(p: f64, b: f64) -> Algorithm {
    use Algorithm::*;
    // SMPI's NTSL and NTSB post every segment's send at once.
    let ntsl = Chain {
        segment: 8192,
        streamed: true,
    };
    let ntsb = BinaryTree {
        segment: 8192,
        streamed: true,
    };
    let pipeline = bcast_pipeline(p, b);
    let split = SplitBinaryTree {
        segment: if b < 370_728.0 { 1024 } else { 8192 },
    };
    let (table, otherwise): (&[(f64, Algorithm)], Algorithm) = if p < 4.0 {
        (
            &[
                (32.0, pipeline),
                (256.0, ntsb),
                (512.0, pipeline),
                (1024.0, Knomial),
                (32.0 * KIB, ntsl),
                (128.0 * KIB, ntsb),
                (256.0 * KIB, pipeline),
                (512.0 * KIB, ntsl),
                (MIB, Binomial),
            ],
            ntsb,
        )
    } else if p < 8.0 {
        (
            &[
                (64.0, ntsb),
                (128.0, Binomial),
                (2.0 * KIB, ntsb),
                (8.0 * KIB, Binomial),
                (MIB, ntsl),
            ],
            pipeline,
        )
    } else if p < 16.0 {
        (
            &[
                (8.0, Knomial),
                (64.0, ntsb),
                (4.0 * KIB, Knomial),
                (16.0 * KIB, ntsb),
                (32.0 * KIB, Binomial),
            ],
            ntsl,
        )
    } else if p < 32.0 {
        (
            &[(4.0 * KIB, Knomial), (MIB, Binomial)],
            ScatterRecursiveDoubling,
        )
    } else if p < 64.0 {
        (&[(2.0 * KIB, Binomial)], Knomial)
    } else if p < 128.0 {
        (&[], Knomial)
    } else if p < 256.0 {
        (
            &[
                (2.0, Binomial),
                (16.0 * KIB, ntsb),
                (32.0 * KIB, ntsl),
                (64.0 * KIB, ntsb),
            ],
            Knomial,
        )
    } else if p < 1024.0 {
        (&[(16.0 * KIB, Knomial), (32.0 * KIB, split)], Knomial)
    } else if p < 2048.0 {
        (&[(512.0 * KIB, Knomial)], ScatterRecursiveDoubling)
    } else if p < 4096.0 {
        (&[(256.0 * KIB, Knomial)], ScatterRecursiveDoubling)
    } else {
        (
            &[
                (8.0 * KIB, Knomial),
                (16.0 * KIB, ntsb),
                (256.0 * KIB, Knomial),
            ],
            ScatterRecursiveDoubling,
        )
    };
    by_size(b, table, otherwise)
}

/// Open MPI's pipeline reduce: its segment from the message size and p.
fn reduce_pipeline(p: f64, b: f64) -> Algorithm {
    let segment = if p > (0.0410 / 1024.0) * b + 9.7128 {
        1024
    } else if p > (0.0033 / 1024.0) * b + 1.6761 {
        32 * 1024
    } else {
        64 * 1024
    };
    Algorithm::Chain {
        segment,
        streamed: false,
    }
}

/// Open MPI's binomial reduce: unsegmented for small messages, else in 1 KiB
/// segments where p is large for the size.
fn reduce_binomial(p: f64, b: f64) -> Algorithm {
    if (p < 8.0 && b < 20480.0) || b < 2048.0 || b <= 8.0 || p <= (0.6016 / 1024.0) * b + 1.3496 {
        Algorithm::Binomial
    } else {
        Algorithm::SegmentedBinomial { segment: 1024 }
    }
}

fn reduce(p: f64, b: f64) -> Algorithm {
    use Algorithm::*;
    // Open MPI's chain reduce: min(p/2, 32) chains of 64 KiB segments, priced as one
    // chain of the chains' length.
    let chain = Chain {
        segment: 65536,
        streamed: false,
    };
    let binary = BinaryTree {
        segment: 32768,
        streamed: false,
    };
    let pipeline = reduce_pipeline(p, b);
    let binomial = reduce_binomial(p, b);
    let (table, otherwise): (&[(f64, Algorithm)], Algorithm) = if p < 4.0 {
        (
            &[
                (8.0, Linear),
                (16.0, binary),
                (32.0, pipeline),
                (256.0 * KIB, Linear),
                (512.0 * KIB, pipeline),
                (MIB, chain),
            ],
            pipeline,
        )
    } else if p < 8.0 {
        (
            &[
                (4.0 * KIB, binary),
                (64.0 * KIB, chain),
                (256.0 * KIB, binomial),
                (512.0 * KIB, Linear),
                (MIB, binomial),
            ],
            Linear,
        )
    } else if p < 16.0 {
        (&[(8.0 * KIB, binary)], binomial)
    } else if p < 32.0 {
        (&[(4.0 * KIB, binary)], binomial)
    } else if p < 256.0 {
        (&[], binomial)
    } else if p < 512.0 {
        (
            &[(8.0 * KIB, binomial), (16.0 * KIB, InOrderBinary)],
            binomial,
        )
    } else if p < 2048.0 {
        (&[], binomial)
    } else if p < 4096.0 {
        (
            &[
                (512.0, binomial),
                (KIB, InOrderBinary),
                (8.0 * KIB, binomial),
                (16.0 * KIB, InOrderBinary),
            ],
            binomial,
        )
    } else {
        (
            &[
                (16.0, binomial),
                (32.0, InOrderBinary),
                (KIB, binomial),
                (2.0 * KIB, InOrderBinary),
                (8.0 * KIB, binomial),
                (16.0 * KIB, InOrderBinary),
            ],
            binomial,
        )
    };
    by_size(b, table, otherwise)
}

fn allreduce(p: f64, b: f64) -> Algorithm {
    use Algorithm::*;
    // The ring (and the segmented ring, which falls back to it for the sizes it is
    // chosen at) needs a count of at least p elements, else Open MPI reduces and
    // broadcasts.
    let ring = if b / 8.0 < p { ReduceBcast } else { Ring };
    let (table, otherwise): (&[(f64, Algorithm)], Algorithm) = if p < 4.0 {
        (
            &[
                (8.0, ring),
                (4.0 * KIB, RecursiveDoubling),
                (8.0 * KIB, ring),
                (16.0 * KIB, RecursiveDoubling),
                (64.0 * KIB, ring),
                (256.0 * KIB, ring),
            ],
            Rabenseifner,
        )
    } else if p < 8.0 {
        (
            &[(16.0, ring), (8.0 * KIB, RecursiveDoubling)],
            Rabenseifner,
        )
    } else if p < 16.0 {
        (&[(8.0 * KIB, RecursiveDoubling)], Rabenseifner)
    } else if p < 32.0 {
        (
            &[(64.0, ring), (4.0 * KIB, RecursiveDoubling)],
            Rabenseifner,
        )
    } else if p < 64.0 {
        (&[(128.0, ring)], Rabenseifner)
    } else if p < 128.0 {
        (&[(256.0 * KIB, RecursiveDoubling)], Rabenseifner)
    } else if p < 256.0 {
        (
            &[(128.0 * KIB, ReduceBcast), (256.0 * KIB, RecursiveDoubling)],
            Rabenseifner,
        )
    } else if p < 512.0 {
        (&[(4.0 * KIB, ReduceBcast)], Rabenseifner)
    } else if p < 2048.0 {
        (
            &[(2.0 * KIB, ReduceBcast), (16.0 * KIB, RecursiveDoubling)],
            Rabenseifner,
        )
    } else if p < 4096.0 {
        (
            &[
                (2.0 * KIB, ReduceBcast),
                (4.0 * KIB, ring),
                (16.0 * KIB, RecursiveDoubling),
            ],
            Rabenseifner,
        )
    } else {
        (
            &[
                (2.0 * KIB, ReduceBcast),
                (16.0 * KIB, ring),
                (32.0 * KIB, RecursiveDoubling),
            ],
            Rabenseifner,
        )
    };
    by_size(b, table, otherwise)
}

fn allgather(p: f64, b: f64) -> Algorithm {
    use Algorithm::*;
    // Neighbour exchange needs an even p (else the ring).
    let neighbor = if (p as u64).is_multiple_of(2) {
        NeighborExchange
    } else {
        Ring
    };
    if p <= 2.0 {
        return Pairwise;
    }
    let (table, otherwise): (&[(f64, Algorithm)], Algorithm) = if p < 32.0 {
        (&[], RecursiveDoubling)
    } else if p < 64.0 {
        (&[(KIB, RecursiveDoubling), (64.0 * KIB, neighbor)], Ring)
    } else if p < 128.0 {
        (&[(512.0, RecursiveDoubling), (64.0 * KIB, neighbor)], Ring)
    } else if p < 256.0 {
        (
            &[
                (512.0, RecursiveDoubling),
                (128.0 * KIB, neighbor),
                (512.0 * KIB, Ring),
                (MIB, neighbor),
            ],
            Ring,
        )
    } else if p < 512.0 {
        (
            &[
                (32.0, RecursiveDoubling),
                (128.0, Bruck),
                (KIB, RecursiveDoubling),
                (128.0 * KIB, neighbor),
                (512.0 * KIB, Ring),
                (MIB, neighbor),
            ],
            Ring,
        )
    } else if p < 1024.0 {
        (
            &[
                (64.0, RecursiveDoubling),
                (256.0, Bruck),
                (2.0 * KIB, RecursiveDoubling),
            ],
            neighbor,
        )
    } else {
        (&[(512.0, Bruck), (4.0 * KIB, RecursiveDoubling)], neighbor)
    };
    by_size(b, table, otherwise)
}

fn alltoall(p: f64, b: f64) -> Algorithm {
    use Algorithm::*;
    let (table, otherwise): (&[(f64, Algorithm)], Algorithm) = if p <= 2.0 {
        (
            &[
                (2.0, Pairwise),
                (4.0, Scattered),
                (16.0, Pairwise),
                (64.0, Scattered),
                (256.0, Pairwise),
                (4.0 * KIB, Scattered),
                (32.0 * KIB, Pairwise),
                (MIB, Scattered),
            ],
            Pairwise,
        )
    } else if p < 8.0 {
        (&[(MIB, Scattered)], Pairwise)
    } else if p < 16.0 {
        (&[], Scattered)
    } else if p < 32.0 {
        (&[(4.0, Scattered), (512.0, Bruck)], Scattered)
    } else if p < 64.0 {
        (&[(512.0, Bruck)], Scattered)
    } else if p < 256.0 {
        (&[(KIB, Bruck), (256.0 * KIB, Scattered)], Pairwise)
    } else if p < 512.0 {
        (&[(KIB, Bruck), (32.0 * KIB, Scattered)], Pairwise)
    } else if p < 1024.0 {
        (&[(512.0, Bruck), (256.0 * KIB, Scattered)], Pairwise)
    } else {
        (&[(2.0 * KIB, Bruck)], Scattered)
    };
    by_size(b, table, otherwise)
}

fn gather(p: f64, b: f64) -> Algorithm {
    use Algorithm::*;
    if p < 4.0 {
        by_size(
            b,
            &[
                (2.0, Linear),
                (4.0, Linear),
                (32.0 * KIB, Binomial),
                (64.0 * KIB, Linear),
                (128.0 * KIB, Binomial),
            ],
            Linear,
        )
    } else if p < 8.0 {
        by_size(
            b,
            &[(KIB, Binomial), (8.0 * KIB, Linear), (32.0 * KIB, Binomial)],
            Linear,
        )
    } else if (256.0..512.0).contains(&p) && (2.0 * KIB..8.0 * KIB).contains(&b) {
        Linear
    } else {
        Binomial
    }
}

fn scatter(p: f64, b: f64) -> Algorithm {
    use Algorithm::*;
    // Open MPI's nonblocking linear scatter posts every send at once.
    let nb = Scattered;
    let (table, otherwise): (&[(f64, Algorithm)], Algorithm) = if p < 4.0 {
        (
            &[(2.0, nb), (128.0 * KIB, Linear), (256.0 * KIB, nb)],
            Linear,
        )
    } else if p < 8.0 {
        (
            &[
                (2.0 * KIB, Binomial),
                (4.0 * KIB, Linear),
                (8.0 * KIB, Binomial),
                (32.0 * KIB, Linear),
                (MIB, nb),
            ],
            Linear,
        )
    } else if p < 16.0 {
        (&[(16.0 * KIB, Binomial), (MIB, nb)], Linear)
    } else if p < 32.0 {
        (&[(16.0 * KIB, Binomial), (32.0 * KIB, Linear)], nb)
    } else if p < 64.0 {
        (
            &[(512.0, Binomial), (8.0 * KIB, nb), (16.0 * KIB, Binomial)],
            nb,
        )
    } else {
        (&[(512.0, Binomial)], nb)
    };
    by_size(b, table, otherwise)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn small_broadcasts_and_reductions_take_open_mpi_s_trees() {
        assert_eq!(algorithm(Op::Bcast, 16.0, 8.0), Algorithm::Knomial);
        assert_eq!(algorithm(Op::Bcast, 48.0, 8.0), Algorithm::Binomial);
        assert_eq!(
            algorithm(Op::Bcast, 4.0, 8.0),
            Algorithm::BinaryTree {
                segment: 8192,
                streamed: true
            }
        );
        assert_eq!(
            algorithm(Op::Reduce, 4.0, 8.0),
            Algorithm::BinaryTree {
                segment: 32768,
                streamed: false
            }
        );
        assert_eq!(algorithm(Op::Reduce, 64.0, 8.0), Algorithm::Binomial);
        assert_eq!(
            algorithm(Op::Reduce, 64.0, 65536.0),
            Algorithm::SegmentedBinomial { segment: 1024 }
        );
    }

    #[test]
    fn allreduce_switches_with_size_and_count() {
        assert_eq!(algorithm(Op::Allreduce, 4.0, 8.0), Algorithm::ReduceBcast);
        assert_eq!(
            algorithm(Op::Allreduce, 4.0, 1024.0),
            Algorithm::RecursiveDoubling
        );
        assert_eq!(algorithm(Op::Allreduce, 4.0, 1e6), Algorithm::Rabenseifner);
        assert_eq!(
            algorithm(Op::Allreduce, 8.0, 8.0),
            Algorithm::RecursiveDoubling
        );
        // The segmented ring of one element among 16 reduces and broadcasts.
        assert_eq!(algorithm(Op::Allreduce, 16.0, 8.0), Algorithm::ReduceBcast);
        assert_eq!(algorithm(Op::Allreduce, 48.0, 64.0), Algorithm::ReduceBcast);
        assert_eq!(
            algorithm(Op::Allreduce, 48.0, 4096.0),
            Algorithm::Rabenseifner
        );
        assert_eq!(algorithm(Op::Allreduce, 3.0, 6000.0), Algorithm::Ring);
    }

    #[test]
    fn the_gathers_and_all_to_all() {
        assert_eq!(algorithm(Op::Allgather, 2.0, 8.0), Algorithm::Pairwise);
        assert_eq!(
            algorithm(Op::Allgather, 16.0, 1e6),
            Algorithm::RecursiveDoubling
        );
        assert_eq!(
            algorithm(Op::Allgather, 40.0, 4096.0),
            Algorithm::NeighborExchange
        );
        assert_eq!(algorithm(Op::Allgather, 41.0, 4096.0), Algorithm::Ring);
        assert_eq!(algorithm(Op::Alltoall, 4.0, 8.0), Algorithm::Scattered);
        assert_eq!(algorithm(Op::Alltoall, 4.0, 2e6), Algorithm::Pairwise);
        assert_eq!(algorithm(Op::Alltoall, 40.0, 100.0), Algorithm::Bruck);
        assert_eq!(algorithm(Op::Gather, 16.0, 8.0), Algorithm::Binomial);
        assert_eq!(algorithm(Op::Scatter, 4.0, 8.0), Algorithm::Binomial);
        assert_eq!(algorithm(Op::Barrier, 4.0, 0.0), Algorithm::Linear);
        assert_eq!(
            algorithm(Op::Barrier, 16.0, 0.0),
            Algorithm::RecursiveDoubling
        );
    }

    #[test]
    fn a_pipelined_chain_pays_one_segment_per_step() {
        let p2p = |_m: f64| (1e-6, 1e-9);
        let chain = |streamed| Algorithm::Chain {
            segment: 8192,
            streamed,
        };
        // 4 processes, 32 KiB in 8 KiB segments: p − 2 + S = 6 steps one after another,
        let t = chain(false).time(Op::Bcast, 4.0, 32768.0, &p2p);
        assert!((t - 6.0 * (1e-6 + 8192.0 * 1e-9)).abs() < 1e-15, "{t}");
        // or 3 hops of the first segment and the other 24 KiB behind it.
        let t = chain(true).time(Op::Bcast, 4.0, 32768.0, &p2p);
        let want = 3.0 * (1e-6 + 8192.0 * 1e-9) + 24576.0 * 1e-9;
        assert!((t - want).abs() < 1e-15, "{t}");
        // A message smaller than a segment: one segment, p − 1 hops.
        let t = chain(false).time(Op::Bcast, 4.0, 100.0, &p2p);
        assert!((t - 3.0 * (1e-6 + 100.0 * 1e-9)).abs() < 1e-15, "{t}");
    }
}
