//! The quantities of the performance estimators, computed from the IR: execution counts
//! (`freq`, P^3T+ section 4.1), HPF distributions and ownership (`distribution`), work
//! per processor and wd (`work`), communication records and MPI costs (`comm`), cache
//! lines (`cache`), machine models (`machine`), computation and predicted time
//! (`time`), scaling: crossing points and isospeed range comparison (`scaling`), and
//! what calls bind and move (`calls`), and what the figures leave out (`completeness`).
//! Pure and synchronous: no salsa, no LSP, no presentation; the database crate wires it.

pub mod cache;
pub mod calls;
pub mod comm;
pub mod completeness;
pub mod distribution;
pub mod freq;
pub mod machine;
pub mod scaling;
pub mod time;
pub mod work;

#[cfg(test)]
mod testing;
