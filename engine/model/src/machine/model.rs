//! The machine model of DESIGN.md section 6: what each operation, memory access and
//! message costs on one target machine (Balasundaram et al.'s training set; P^3T+'s
//! benchmark kernel library, section 4.3; the MachineProperties file of the
//! source-code analyzer). Every number carries its unit in its name.

use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// One machine model, as read from (and written to) `machines/NAME.toml`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Machine {
    pub name: String,
    pub description: String,
    /// Where the numbers come from: `measured by costline train on DATE` or the papers
    /// and vendor documents they were taken from.
    pub provenance: String,
    pub processor: Processor,
    pub memory: Memory,
    /// The interconnect; a single node without one prices messages through shared memory.
    pub network: NetworkModel,
    /// Collective operations (`bcast`, `scatter`, `gather`, `allgather`, `reduce`,
    /// `allreduce`, `alltoall`, `barrier`): fitted runtime functions or the algorithm
    /// whose cost the point-to-point parameters give.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub collectives: BTreeMap<String, Collective>,
    /// How a trained model was measured and how well its fits agree with the
    /// measurements.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub training: Option<Training>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Processor {
    pub clock_hz: f64,
    /// Cores per node.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cores: Option<u32>,
    /// How the operations of one execution combine: `sum` (one after the other, as on
    /// a scalar in-order processor; the default) or `ports` (a superscalar core: the
    /// operations of each execution port overlap with the others', so an execution
    /// takes the busiest port's time plus the operations no port model covers — see
    /// [`super::ops::Port`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub overlap: Option<String>,
    /// Iterations of a loop an out-of-order core runs ahead of the oldest one while
    /// that waits on a loop-carried chain (`ports` model): past the end of a short
    /// inner loop they belong to its next entry, whose chain through array elements
    /// is independent, so short chains overlap. `costline train` fits it from
    /// recurrences over short inner loops; without it chains do not overlap.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub window_iterations: Option<f64>,
    /// Seconds per operation, by kind and type: `add_f64`, `mul_i32`, `div_f32`,
    /// `pow_f64`, `cmp_f64`, `load`, `store`, `branch`, `loop_iter`, `call`,
    /// `intrinsic_sqrt`, ... (see [`super::ops::OpKey`]).
    pub ops: BTreeMap<String, f64>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Memory {
    pub cache_line_bytes: u64,
    /// Main-memory latency (a dependent load that misses every cache), seconds.
    pub latency_s: f64,
    /// Sustained main-memory bandwidth of one core, bytes per second.
    pub bandwidth_bytes_per_s: f64,
    /// Seconds per line from main memory when the accesses of a loop are too far apart
    /// for the prefetchers to follow (a stride of 1 KiB or more, or an irregular
    /// subscript): each line is a demand miss, the latency over the misses the core
    /// keeps in flight. `costline train` measures it by the stride sweep at 8 KiB;
    /// without it such lines cost their bytes at the bandwidth.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub strided_line_s: Option<f64>,
    /// Address translation: without it translations cost nothing.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tlb: Option<Tlb>,
    /// The cache levels, innermost first.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub levels: Vec<CacheLevel>,
}

/// The translation lookaside buffer that decides (the last level, whose misses walk the
/// page tables): a cache of page translations, fully associative and LRU as the model
/// treats it. `costline train` finds `entries` where gathering one element per page
/// gets slower and `walk_s` from how much slower.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Tlb {
    pub page_bytes: u64,
    /// Pages whose translations it holds.
    pub entries: u64,
    /// Seconds per access whose translation misses it (a page walk, as independent
    /// accesses overlap them).
    pub walk_s: f64,
}

/// The share of the accesses of a cyclic walk over `pages` pages that miss a TLB of
/// `entries`: 1 − (entries / pages)², 0 while they fit. Not an LRU's all-or-nothing: a
/// set-associative TLB with its replacement keeps part of a walk a little too large
/// (measured here: the share rises from 0 at 3072 pages to 0.44 at 4096 and 0.86 at
/// 8192 on a TLB of 3072 entries, as the law says).
pub fn tlb_miss_share(pages: f64, entries: f64) -> f64 {
    if pages <= entries || pages <= 0.0 {
        0.0
    } else {
        1.0 - (entries / pages).powi(2)
    }
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CacheLevel {
    /// `L1`, `L2`, ...
    pub name: String,
    /// Capacity available to one core, bytes.
    pub bytes: u64,
    /// Latency of a dependent load that hits this level, seconds.
    pub latency_s: f64,
    /// Sustained bandwidth of one core streaming from this level, bytes per second.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bandwidth_bytes_per_s: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub associativity: Option<u32>,
    /// Seconds per line this level supplies to accesses too far apart for the
    /// prefetchers to follow (a stride of at least `cache::DEMAND_STRIDE_BYTES` in the
    /// innermost loop): the latency over the misses in flight, measured by a stride
    /// sweep inside the level (what `memory.strided_line_s` is for main memory).
    /// Without it such lines cost what streamed ones do.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub strided_line_s: Option<f64>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NetworkModel {
    /// α: message startup time (Hockney), seconds, for sizes no segment covers.
    pub alpha_s: f64,
    /// β: seconds per byte, for sizes no segment covers.
    pub beta_s_per_byte: f64,
    /// γ: seconds per network hop beyond the first.
    #[serde(default)]
    pub hop_s: f64,
    /// `full` (crossbar or fat tree), `ring`, `mesh` (with `mesh_width`), `hypercube`.
    #[serde(default = "full")]
    pub topology: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mesh_width: Option<u32>,
    /// Processors (MPI ranks) per node: consecutive ranks share a node and talk through
    /// its memory (the `intra_node` segments).
    #[serde(default = "one")]
    pub cores_per_node: u32,
    /// The MPI library whose collective algorithms and communicator set-up the model
    /// prices: `mpich` (the default), `openmpi` (Open MPI's tuned selection) or `smpi`
    /// (SimGrid's SMPI with MPICH's selector, which builds a communicator's node-aware
    /// helpers at its first BCAST, REDUCE or ALLREDUCE).
    #[serde(default = "mpich", skip_serializing_if = "is_mpich")]
    pub mpi_library: String,
    /// Piecewise α/β by message size and locality (eager and rendezvous protocols,
    /// packetization): a message of b bytes uses the first segment of its locality with
    /// `up_to_bytes ≥ b`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub segments: Vec<Segment>,
}

fn full() -> String {
    "full".to_string()
}

fn mpich() -> String {
    "mpich".to_string()
}

fn is_mpich(s: &str) -> bool {
    s == "mpich"
}

fn one() -> u32 {
    1
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Locality {
    IntraNode,
    InterNode,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Segment {
    pub up_to_bytes: f64,
    pub alpha_s: f64,
    pub beta_s_per_byte: f64,
    /// Both when absent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub locality: Option<Locality>,
}

/// A collective's cost: either the runtime function t = τ1 + τ2·p + tc·p·b of
/// Kühnemann et al. (Table 1; p processes, b bytes per process) fitted to
/// measurements, or the algorithm MPICH uses, priced with the point-to-point
/// parameters.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Collective {
    /// `binomial`, `ring`, `rabenseifner`, `pairwise`, `dissemination`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub algorithm: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tau1_s: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tau2_s: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tc_s_per_byte: Option<f64>,
    /// Root mean square of the fit's relative errors over the measurements.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fit_rel_rms: Option<f64>,
}

/// How a model was trained.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Training {
    /// ISO date, `YYYY-MM-DD`.
    pub date: String,
    /// The Fortran compiler and flags the kernels were built with.
    pub compiler: String,
    pub flags: String,
    #[serde(default)]
    pub quick: bool,
    /// What could not be measured and why (no MPI, ...).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub notes: Vec<String>,
    /// Fit quality by measurement group: root mean square of relative errors.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub fit_rel_rms: BTreeMap<String, f64>,
}
