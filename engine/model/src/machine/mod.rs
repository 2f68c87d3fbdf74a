//! Machine models: the per-machine tables every time in costline is priced from
//! (DESIGN.md section 6), loaded from `machines/NAME.toml` by name or path.

mod catalog;
mod load;
mod model;
pub mod ops;

pub use catalog::{Catalog, DEFAULT, Entry, Source, user_dir};
pub use load::{MachineError, parse, read};
pub use model::{
    CacheLevel, Collective, Locality, Machine, Memory, NetworkModel, Processor, Segment, Tlb,
    Training, tlb_miss_share,
};

/// The collective operations a model may price.
pub const COLLECTIVES: &[&str] = &[
    "bcast",
    "scatter",
    "gather",
    "allgather",
    "reduce",
    "allreduce",
    "alltoall",
    "barrier",
];

/// The algorithms a collective may be priced by (MPICH's, with their cost formulas in
/// `comm::mpi`).
pub const ALGORITHMS: &[&str] = &[
    "binomial",
    "ring",
    "rabenseifner",
    "pairwise",
    "dissemination",
    "recursive_doubling",
    "linear",
];
