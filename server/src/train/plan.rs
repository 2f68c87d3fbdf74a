//! How much to measure: the sizes, samples and time limits of a full run and of
//! `--quick` (under 3 minutes, compilation included).

use std::time::Duration;

/// The measurement plan.
#[derive(Clone, Debug, PartialEq)]
pub struct Plan {
    pub quick: bool,
    /// The overlap model to fit (`--overlap`).
    pub overlap: super::Overlap,
    /// Seconds per sample of a training kernel, and rounds (one sample of every kernel
    /// per round).
    pub ops_seconds: f64,
    pub ops_rounds: u32,
    /// The largest pointer-chase working set, whether to add the 1.5·2ᵏ midpoints, and
    /// the dependent loads timed per working set.
    pub chase_max_bytes: u64,
    pub chase_midpoints: bool,
    pub chase_hops: u64,
    /// The array of the stride sweep (larger than the caches) and its strides.
    pub stride_bytes: u64,
    pub strides: Vec<u64>,
    /// Pages of the page gather (the TLB's entries and walk).
    pub page_counts: Vec<u64>,
    /// Bytes the triad moves per sample at least, and samples per working set.
    pub triad_min_bytes: u64,
    pub triad_samples: u32,
    /// Seconds per sample of the ping-pong and the collectives, and rounds (one sample
    /// of every size per round).
    pub mpi_seconds: f64,
    pub mpi_rounds: u32,
    /// Bytes per process of the collectives.
    pub collective_sizes: Vec<u64>,
    /// Process counts of the collectives on this node.
    pub procs: Vec<u32>,
    /// Process counts of the collectives with a rank per node (`--mpirun-nodes`).
    pub node_procs: Vec<u32>,
    pub compile_limit: Duration,
    pub run_limit: Duration,
}

/// The stride of the sweep whose time per access is `memory.strided_line_s`.
pub const STRIDED_BYTES: u64 = 8192;

impl Plan {
    pub fn new(quick: bool, overlap: super::Overlap) -> Plan {
        // 8 KiB: every access its own line beyond the prefetchers' reach
        // (`strided_line_s`).
        let strides = vec![8, 16, 32, 64, 128, 256, 512, STRIDED_BYTES];
        if quick {
            Plan {
                quick,
                overlap,
                ops_seconds: 0.002,
                ops_rounds: 30,
                chase_max_bytes: 64 << 20,
                chase_midpoints: false,
                chase_hops: 1 << 19,
                stride_bytes: 64 << 20,
                strides,
                page_counts: vec![256, 1024, 2048, 3072, 4096, 8192],
                triad_min_bytes: 200_000_000,
                triad_samples: 3,
                mpi_seconds: 0.002,
                mpi_rounds: 10,
                collective_sizes: vec![8, 128, 2048, 32768, 262_144, 1 << 20],
                procs: vec![2],
                node_procs: vec![2, 4],
                compile_limit: Duration::from_secs(120),
                run_limit: Duration::from_secs(90),
            }
        } else {
            Plan {
                quick,
                overlap,
                ops_seconds: 0.005,
                ops_rounds: 60,
                chase_max_bytes: 256 << 20,
                chase_midpoints: true,
                chase_hops: 1 << 21,
                stride_bytes: 128 << 20,
                strides,
                page_counts: vec![
                    256, 512, 1024, 1536, 2048, 2560, 3072, 3584, 4096, 6144, 8192,
                ],
                triad_min_bytes: 1_000_000_000,
                triad_samples: 7,
                mpi_seconds: 0.005,
                mpi_rounds: 20,
                // Powers of four from 8 B, and 1 MiB.
                collective_sizes: vec![
                    8,
                    32,
                    128,
                    512,
                    2048,
                    8192,
                    32768,
                    131_072,
                    524_288,
                    1 << 20,
                ],
                procs: vec![2, 3, 4],
                node_procs: vec![2, 4, 8, 16],
                compile_limit: Duration::from_secs(180),
                run_limit: Duration::from_secs(600),
            }
        }
    }
}
