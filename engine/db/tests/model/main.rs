//! The model's analyses (costline-model) on small programs lowered and analysed through
//! the database: counts, mappings and work, remapping, dependence, cache layer
//! conditions, the operations of a statement.

mod cache_share;
mod dependence;
mod distribution;
mod dynamic;
mod freq;
mod ops;
mod remap;
mod work;
