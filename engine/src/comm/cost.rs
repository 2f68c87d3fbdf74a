//! What communication costs: P^3T+ Definitions 4.4–4.6 over the communication records,
//! with the Hockney model t = α + β·bytes per message, and the time on the critical
//! path (the most loaded processor).

use super::pattern::Pattern;
use super::records::Record;
use std::collections::HashMap;

/// The network parameters communication is priced with. Until machine models are
/// loaded from files, [`Network::default`] is a built-in InfiniBand HDR node pair
/// (~1.2 µs latency, ~24 GB/s: published HDR figures, see NOTES.md); every analysis
/// takes the network as a setting, so a machine model replaces it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Network {
    /// α: message startup time, seconds.
    pub alpha_s: f64,
    /// β: transfer time per byte, seconds.
    pub beta_s_per_byte: f64,
}

impl Default for Network {
    fn default() -> Network {
        Network {
            alpha_s: 1.2e-6,
            beta_s_per_byte: 1.0 / 24.0e9,
        }
    }
}

impl Network {
    /// α·messages + β·bytes.
    pub fn time(&self, messages: f64, bytes: f64) -> f64 {
        self.alpha_s * messages + self.beta_s_per_byte * bytes
    }
}

/// NT, TD, TT (Definition 4.4: over all records) and CT, the communication time on the
/// critical path, per run of the unit.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct CommMetrics {
    /// Number of transfers (messages).
    pub nt: f64,
    /// Data transferred, bytes.
    pub td_bytes: f64,
    /// Transfer time, seconds: Σ over messages of α + β·bytes.
    pub tt_s: f64,
    /// The time of the busiest processor, seconds.
    pub ct_s: f64,
}

impl CommMetrics {
    /// The metrics of one reference's records. The critical path: each processor sends
    /// and receives at once (one port each way), so its time is the larger of what it
    /// sends and what it receives; a broadcast goes down a binomial tree, ⌈log2(R+1)⌉
    /// rounds for R receivers, as MPI implementations do it.
    pub fn of(records: &[Record], pattern: Pattern, net: &Network) -> CommMetrics {
        // Folded from +0 (an empty f64 sum is -0).
        let nt = records.iter().fold(0.0, |a, r| a + r.messages);
        let td_bytes = records.iter().fold(0.0, |a, r| a + r.bytes);
        let tt_s = records
            .iter()
            .fold(0.0, |a, r| a + net.time(r.messages, r.bytes));
        let ct_s = match pattern {
            Pattern::Broadcast if !records.is_empty() => {
                let rounds = ((records.len() + 1) as f64).log2().ceil();
                let worst = records
                    .iter()
                    .map(|r| net.time(r.messages, r.bytes))
                    .fold(0.0, f64::max);
                rounds * worst
            }
            Pattern::Reduction => {
                let p = records.iter().map(|r| r.from.max(r.to)).max().unwrap_or(1);
                let worst = records
                    .iter()
                    .map(|r| net.time(r.messages, r.bytes))
                    .fold(0.0, f64::max);
                super::reduction::rounds(p) * worst
            }
            _ => {
                let mut send: HashMap<usize, f64> = HashMap::new();
                let mut recv: HashMap<usize, f64> = HashMap::new();
                for r in records {
                    let t = net.time(r.messages, r.bytes);
                    *send.entry(r.from).or_default() += t;
                    *recv.entry(r.to).or_default() += t;
                }
                send.values()
                    .chain(recv.values())
                    .copied()
                    .fold(0.0, f64::max)
            }
        };
        CommMetrics {
            nt,
            td_bytes,
            tt_s,
            ct_s,
        }
    }

    /// Definition 4.5/4.6: the sum (phases one after the other).
    pub fn sum(all: &[CommMetrics]) -> CommMetrics {
        all.iter()
            .fold(CommMetrics::default(), |a, m| a.plus(m, 1.0))
    }

    /// `self + k·m`.
    pub fn plus(&self, m: &CommMetrics, k: f64) -> CommMetrics {
        CommMetrics {
            nt: self.nt + k * m.nt,
            td_bytes: self.td_bytes + k * m.td_bytes,
            tt_s: self.tt_s + k * m.tt_s,
            ct_s: self.ct_s + k * m.ct_s,
        }
    }
}
