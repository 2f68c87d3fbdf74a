//! From counts to seconds: the operations of each statement priced from the machine
//! model (P^3T+ section 4.3, Balasundaram's ESTIMATE), memory traffic from the cache
//! level its data lives in, computation per processor, and the predicted time on the
//! critical path.

pub mod compute;
pub mod layout;
pub mod memory;
pub mod ops;

pub use compute::{Inputs, Timing, UnitTimes, unit_times};
pub use layout::array_local_bytes;
pub use memory::{MemInputs, memory_seconds};
pub use ops::{OpCounts, stmt_ops, type_of};
