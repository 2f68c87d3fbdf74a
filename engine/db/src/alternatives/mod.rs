//! Distribution alternatives: for each DISTRIBUTE (with everything ALIGNed to it and
//! the PROCESSORS it is onto), the sensible other ways to distribute the same arrays,
//! priced by re-evaluating the unit's symbolic results under each one's ownership —
//! never parsed again: an alternative is a salsa variant of the unit keyed by its
//! directives.

mod candidates;
mod evaluate;
mod explore;
mod layout;
mod rewrite;

pub use candidates::{Target, candidates, distribute_directives, target};
pub use evaluate::{
    Evaluated, Hand, Prediction, alternatives, others, predict, predict_layout, price_share,
    target_of,
};
pub use explore::Explorer;
pub use layout::{Fmt, Grid, Layout, near_square};
pub use rewrite::directives;

#[cfg(test)]
mod tests;
