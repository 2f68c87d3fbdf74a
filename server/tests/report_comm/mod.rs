//! Reading the JSON report's communication records of a statement, for the tests that
//! compare them with an independent count.

use serde_json::Value;

/// The statement's `comm` records as (sender, receiver, messages, bytes); none when it
/// has no `comm`.
pub fn records(stmt: &Value) -> Vec<(u64, u64, f64, f64)> {
    stmt["comm"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|r| {
            (
                r["from"].as_u64().expect("sender"),
                r["to"].as_u64().expect("receiver"),
                r["messages"].as_f64().expect("messages"),
                r["bytes"].as_f64().expect("bytes"),
            )
        })
        .collect()
}
