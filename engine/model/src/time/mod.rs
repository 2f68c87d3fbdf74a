//! From counts to seconds: the operations of each statement priced from the machine
//! model (P^3T+ section 4.3, Balasundaram's ESTIMATE), memory traffic from the cache
//! lines each level loads (`cache`), computation per processor, and the predicted time on the
//! critical path.

pub mod compiler_report;
pub mod compute;
pub mod intrinsic;
pub mod invariant;
pub mod layout;
pub mod library;
pub mod memory;
pub mod ops;
pub mod recurrence;
pub mod vectorize;

pub use compute::{Inputs, Timing, UnitTimes, unit_times};
pub use intrinsic::{ElementLoop, IntrinsicTimes, element_loops};
pub use layout::dim_divisor;
pub use memory::memory_seconds;
pub use ops::{OpCounts, stmt_ops, type_of};
