//! Benchmarks of the symbolic sum (written in the next commit).
fn main() {}
