//! Calls across units, the parts that need no database: what each call site passes and
//! binds ([`binding`]), which binding a procedure is analysed under when its calls
//! disagree ([`arbitrate`]), the parts an `EXTRINSIC(HPF_LOCAL)` procedure runs on
//! ([`local`]), the implicit remapping at a call ([`remap`]), the recursive cycles of
//! the call graph ([`recursion`]) and the notes a call carries ([`notes`]).
//!
//! A procedure as written is analysed under the binding of its call site that runs most
//! often (per run of its caller; the first on ties): integer dummies take that site's
//! values, transcriptive dummies its actuals' mappings; where the running sites disagree
//! a note says what was taken. Each call site whose binding differs is analysed as a
//! variant of the procedure keyed by its binding, so the callers' totals weight each
//! call's own costs by its own frequency (P^3T+ Definitions 4.4, 4.7, 4.10); a call in
//! a loop whose actuals change with the loop's values (a V-cycle's levels) has a
//! sub-site per combination of values ([`loop_values`]), each a share of its runs.
//! Callers in the callee's own recursive cycle bind nothing (their values would depend
//! on the callee's own). Integer COMMON values known at a call are bound like integer
//! dummies ([`globals`]). The database crate's `calls` queries gather the sites and the
//! graph.

pub mod arbitrate;
pub mod binding;
pub mod globals;
pub mod local;
pub mod loop_values;
pub mod notes;
pub mod recursion;
pub mod remap;

pub use arbitrate::{CallerSite, Incoming, MAX_VARIANTS, arbitrate};
pub use binding::{
    Actual, ActualMapping, Binding, KeyedActual, Site, actual, bind, declared_shape,
};
pub use globals::{CommonUse, Global, Member, globals_at, is_passed_key, received};
pub use local::{LocalPart, MAX_LOCAL_PARTS, local_parts};
pub use loop_values::{MAX_SUB_SITES, at_values, loop_values};
pub use notes::site_notes;
pub use recursion::{CallGraph, recursion_warnings};
pub use remap::{CallRemaps, site_remaps};

#[cfg(test)]
mod tests;
