//! Point-to-point messages from the ping-pong times: the piecewise α/β of
//! `[[network.segments]]` (segmented least squares, at most four pieces of at least
//! four sizes each) and, for comparison, the single Hockney fit t = α + β·b; one set of
//! pieces per locality (ranks on one node, ranks on two nodes).

use super::memory::human_bytes;
use super::segmented::{self, Bounds, Piecewise};
use costline_ide::machine::{Locality, NetworkModel, Segment};
use std::fmt::Write as _;

/// α ≥ 0.1 ns, β ≥ 10⁻¹⁵ s/B: a machine model needs positive numbers.
pub const BOUNDS: Bounds = Bounds {
    alpha_min_s: 1e-10,
    beta_min_s_per_byte: 1e-15,
};

/// The fitted point-to-point models.
#[derive(Clone, Debug, PartialEq)]
pub struct P2p {
    /// (bytes, one-way seconds), sorted by bytes.
    pub points: Vec<(f64, f64)>,
    pub piecewise: Piecewise,
    pub single: Piecewise,
}

/// Message sizes of the ping-pong: 0, then powers of two from 8 B to 4 MiB, with the
/// midpoints 1.5·2ᵏ unless `quick`.
pub fn sizes(quick: bool) -> Vec<u64> {
    let mut out = vec![0];
    let mut b: u64 = 8;
    while b <= 4 << 20 {
        out.push(b);
        if !quick && b + b / 2 < 4 << 20 {
            out.push(b + b / 2);
        }
        b *= 2;
    }
    out
}

/// Parses pingpong.f90's `pingpong BYTES SECONDS` lines.
pub fn parse(output: &str) -> Vec<(f64, f64)> {
    super::memory::parse(output, "pingpong")
}

/// Fits both models to (bytes, one-way seconds).
pub fn fit(points: &[(f64, f64)]) -> P2p {
    let mut pts = points.to_vec();
    pts.sort_by(|a, b| a.0.total_cmp(&b.0));
    P2p {
        piecewise: segmented::segmented(&pts, 4, 4, BOUNDS),
        single: segmented::single(&pts, BOUNDS),
        points: pts,
    }
}

/// The measured pieces as segments of `locality`, the last one extended to every
/// larger size.
fn segments(p2p: &P2p, locality: Locality) -> Vec<Segment> {
    let mut out: Vec<Segment> = p2p
        .piecewise
        .pieces
        .iter()
        .map(|p| Segment {
            up_to_bytes: p.up_to_bytes.max(1.0),
            alpha_s: p.alpha_s,
            beta_s_per_byte: p.beta_s_per_byte,
            locality: Some(locality),
        })
        .collect();
    if let Some(last) = out.last_mut() {
        last.up_to_bytes = 1e15;
    }
    out
}

/// The network from the ping-pongs that ran: `intra` between two ranks of this node
/// (`intra_node` segments), `inter` between ranks on two nodes (`inter_node` segments,
/// and its single α/β fit as the top-level pair). What was not measured keeps the
/// shipped default model's figures (published InfiniBand HDR α, β and hop cost). With
/// the node's own MPI measured, all `cores` of a node share it; with only the
/// multi-node launch, every rank is taken to sit on a node of its own
/// (`cores_per_node = 1`), as it did when measured. `library` is the MPI library the
/// launches ran (`mpi_library`).
pub fn network_model(
    intra: Option<&P2p>,
    inter: Option<&P2p>,
    cores: u32,
    library: &str,
) -> NetworkModel {
    let shipped = costline_ide::machine::Catalog::default_machine().network;
    let mut model = NetworkModel {
        cores_per_node: if intra.is_some() { cores.max(1) } else { 1 },
        segments: Vec::new(),
        mpi_library: library.to_string(),
        ..shipped
    };
    if let Some(p) = intra {
        model.segments = segments(p, Locality::IntraNode);
    }
    if let Some(p) = inter {
        model.segments.extend(segments(p, Locality::InterNode));
        let single = &p.single.pieces[0];
        model.alpha_s = single.alpha_s;
        model.beta_s_per_byte = single.beta_s_per_byte;
    }
    model
}

/// The table printed on stderr: every size, measured, single-fit and piecewise times
/// and their errors.
pub fn table(p2p: &P2p) -> String {
    let mut s = String::from("    bytes        measured      single α/β        piecewise\n");
    for (b, t) in &p2p.points {
        let one = p2p.single.time(*b);
        let pw = p2p.piecewise.time(*b);
        let _ = writeln!(
            s,
            "    {:<10} {t:>10.3e}   {one:>10.3e} {:>+6.1}%   {pw:>10.3e} {:>+6.1}%",
            human_bytes(*b),
            (one - t) / t * 100.0,
            (pw - t) / t * 100.0
        );
    }
    for p in &p2p.piecewise.pieces {
        let _ = writeln!(
            s,
            "    segment {} .. {}: α = {:.3e} s, β = {:.3e} s/B ({:.2} GB/s)",
            human_bytes(p.from_bytes),
            human_bytes(p.up_to_bytes),
            p.alpha_s,
            p.beta_s_per_byte,
            1e-9 / p.beta_s_per_byte
        );
    }
    let single = &p2p.single.pieces[0];
    let _ = write!(
        s,
        "    relative RMS: single α/β {:.1}% (α = {:.3e} s, β = {:.3e} s/B), piecewise {:.1}% ({} segments)",
        p2p.single.rel_rms * 100.0,
        single.alpha_s,
        single.beta_s_per_byte,
        p2p.piecewise.rel_rms * 100.0,
        p2p.piecewise.pieces.len()
    );
    if let Some((b, t)) = p2p.points.iter().find(|(b, _)| *b == 4096.0) {
        let _ = write!(
            s,
            "\n    at 4 KiB: single α/β {:+.0}%, piecewise {:+.0}%",
            (p2p.single.time(*b) - t) / t * 100.0,
            (p2p.piecewise.time(*b) - t) / t * 100.0
        );
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quick_sizes_are_powers_of_two() {
        let q = sizes(true);
        assert_eq!(q.first(), Some(&0));
        assert_eq!(q.last(), Some(&(4 << 20)));
        assert_eq!(q.len(), 21);
        assert!(sizes(false).contains(&12));
    }

    #[test]
    fn a_model_from_a_protocol_switch() {
        // Eager to 2 KiB, rendezvous beyond (like Open MPI's shared memory at 4 KiB).
        let pts: Vec<(f64, f64)> = sizes(false)
            .iter()
            .map(|&b| {
                let b = b as f64;
                (
                    b,
                    if b <= 2048.0 {
                        1.3e-7 + 6e-11 * b
                    } else {
                        2.2e-6 + 1e-10 * b
                    },
                )
            })
            .collect();
        let p = fit(&pts);
        let m = network_model(Some(&p), None, 2, "mpich");
        assert_eq!(m.segments.len(), 2, "{}", table(&p));
        assert_eq!(m.segments[0].up_to_bytes, 2048.0);
        assert_eq!(m.segments[1].up_to_bytes, 1e15);
        assert_eq!(m.cores_per_node, 2);
        let shipped = costline_ide::machine::Catalog::default_machine().network;
        assert_eq!(m.alpha_s, shipped.alpha_s);
        assert!(p.single.rel_rms > 5.0 * p.piecewise.rel_rms.max(0.01));
        assert!(table(&p).contains("at 4 KiB"));
    }

    /// (bytes, seconds) of t = α + β·b over the ping-pong sizes.
    fn line(alpha: f64, beta: f64) -> Vec<(f64, f64)> {
        sizes(true)
            .iter()
            .map(|&b| (b as f64, alpha + beta * b as f64))
            .collect()
    }

    #[test]
    fn a_multi_node_launch_gives_the_inter_node_segments() {
        let node = fit(&line(3e-7, 1e-10));
        let nodes = fit(&line(2.4e-6, 5e-11));
        let both = network_model(Some(&node), Some(&nodes), 8, "openmpi");
        assert_eq!(both.cores_per_node, 8);
        assert_eq!(both.mpi_library, "openmpi");
        let of = |l: Locality| {
            both.segments
                .iter()
                .filter(|s| s.locality == Some(l))
                .count()
        };
        assert!(of(Locality::IntraNode) >= 1 && of(Locality::InterNode) >= 1);
        assert!((both.alpha_s - 2.4e-6).abs() < 1e-9, "{}", both.alpha_s);
        // Only the multi-node launch: every rank on its own node, as measured.
        let only = network_model(None, Some(&nodes), 8, "smpi");
        assert_eq!(only.cores_per_node, 1);
        assert!(
            only.segments
                .iter()
                .all(|s| s.locality == Some(Locality::InterNode))
        );
    }
}
