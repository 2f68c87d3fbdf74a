//! costline's analysis engine: Fortran/HPF front end and (as they land) the
//! performance parameters of P^3T+ — work distribution, communication, computation
//! time and cache lines. Synchronous, no LSP types; the `costline` binary wraps it.

pub mod alternatives;
pub mod cache;
pub mod comm;
pub mod db;
pub mod diagnostics;
pub mod distribution;
pub mod freq;
pub mod hpf;
pub mod ide;
pub mod ir;
pub mod machine;
pub mod normalize;
pub mod project;
pub mod report;
pub mod scaling;
pub mod source;
pub mod span;
pub mod symbolic;
pub mod syntax;
pub mod synthetic;
pub mod time;
pub mod work;
