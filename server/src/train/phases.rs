//! The measurement phases: compile the training programs, run them, and turn their
//! output into the parts of a machine model (each phase prints what it found).

use super::collectives::{self, Sample};
use super::exec::{Tool, run_ok};
use super::memory::{self, Level, human_bytes};
use super::mpi::{Mpi, Placement};
use super::network::{self, P2p};
use super::ops::{self, OpsFit};
use super::plan::Plan;
use super::progress::{Progress, err};
use super::sysinfo;
use costline_ide::machine::{CacheLevel, Catalog, Memory, NetworkModel, Tlb};
use costline_ide::{Network, library_time};
use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::Path;
use std::process::Command;

/// What the phases share: the scratch directory, the plan, the progress printer, and
/// the notes and fit errors that end up in `[training]`.
pub struct Ctx<'a> {
    pub dir: &'a Path,
    pub plan: &'a Plan,
    pub progress: Progress,
    pub notes: Vec<String>,
    pub fit_rel_rms: BTreeMap<String, f64>,
}

impl Ctx<'_> {
    /// Records something that could not be measured: on stderr and in training.notes.
    pub fn note(&mut self, text: String) {
        self.progress.say(&format!("note: {text}"));
        self.notes.push(text);
    }
}

/// `TOOL FLAGS ARGS...` in the scratch directory; the error carries the compiler's
/// messages.
fn compile(ctx: &Ctx, tool: &Tool, flags: &[String], args: &[&str]) -> Result<(), String> {
    let mut c = tool.command();
    c.args(flags).args(args);
    run_ok(
        c,
        ctx.dir,
        ctx.plan.compile_limit,
        &format!("`{} {} {}`", tool.spec, flags.join(" "), args.join(" ")),
    )
    .map(|_| ())
}

/// Extra flags that only move code: the drivers are also linked with kernels compiled
/// with these, so that every kernel is timed at three code placements (a tight loop
/// that straddles a 32-byte fetch block can take twice as long).
pub const PLACEMENTS: &[&str] = &["-falign-functions=32", "-falign-functions=64"];

/// Compiles the kernels (on their own, so nothing is inlined into the drivers), the
/// operation driver `ops` and the memory driver `memory` with `$FC FLAGS`, and both
/// drivers again (`ops0`, `memory0`, ...) with the kernels at the other
/// [`PLACEMENTS`] (skipped, with a note, when the compiler does not take the flag).
/// Returns the suffixes of the placements built: `""`, `"0"`, `"1"`.
pub fn compile_serial(
    ctx: &mut Ctx,
    fc: &Tool,
    flags: &[String],
    gnu: bool,
) -> Result<Vec<String>, String> {
    // The operation costs are those of scalar code: costline prices a loop the compiler
    // vectorizes (`time::vectorize`) at 1/lanes of them, so the kernels must not be
    // vectorized themselves (at -O3 gfortran would).
    let mut scalar = flags.to_vec();
    if gnu {
        scalar.push("-fno-tree-vectorize".to_string());
    }
    let flags = &scalar[..];
    compile(ctx, fc, flags, &["-c", "kernels.f90"])?;
    compile(ctx, fc, flags, &["-c", "tiny.f90"])?;
    let link = |ctx: &Ctx, object: &str, suffix: &str| {
        compile(
            ctx,
            fc,
            flags,
            &["ops.f90", object, "tiny.o", "-o", &format!("ops{suffix}")],
        )?;
        compile(
            ctx,
            fc,
            flags,
            &[
                "memory.f90",
                object,
                "tiny.o",
                "-o",
                &format!("memory{suffix}"),
            ],
        )
    };
    link(ctx, "kernels.o", "")?;
    let mut suffixes = vec![String::new()];
    for (i, extra) in PLACEMENTS.iter().enumerate() {
        let mut with = flags.to_vec();
        with.push((*extra).to_string());
        let object = format!("kernels{i}.o");
        let suffix = i.to_string();
        let built = compile(ctx, fc, &with, &["-c", "kernels.f90", "-o", &object])
            .and_then(|()| link(ctx, &object, &suffix));
        match built {
            Ok(()) => suffixes.push(suffix),
            Err(e) => ctx.note(format!(
                "kernels not timed at another code placement ({extra}): {e}"
            )),
        }
    }
    Ok(suffixes)
}

/// Compiles the ping-pong and the collectives with `$MPIFC FLAGS`.
pub fn compile_mpi(ctx: &Ctx, mpi: &Mpi, flags: &[String]) -> Result<(), String> {
    compile(ctx, &mpi.fc, flags, &["pingpong.f90", "-o", "pingpong"])?;
    compile(
        ctx,
        &mpi.fc,
        flags,
        &["collectives.f90", "-o", "collectives"],
    )
}

fn program(ctx: &Ctx, name: &str, args: &[String]) -> Command {
    let mut c = Command::new(ctx.dir.join(name));
    c.args(args);
    c
}

/// Runs the training kernels (every driver, i.e. every code placement) and fits the
/// operation costs to each kernel's mean time over the placements.
pub fn operations(ctx: &mut Ctx, placements: &[String], clock_hz: f64) -> Result<OpsFit, String> {
    let args = vec![
        ctx.plan.ops_seconds.to_string(),
        ctx.plan.ops_rounds.to_string(),
    ];
    let mut runs = Vec::new();
    for suffix in placements {
        let driver = format!("ops{suffix}");
        let out = run_ok(
            program(ctx, &driver, &args),
            ctx.dir,
            ctx.plan.run_limit,
            &format!("the operation training set ({driver})"),
        )?;
        runs.push(ops::parse(&out));
    }
    let measured = ops::mean_over_runs(&runs);
    if runs.len() > 1 {
        ctx.progress.say(&ops::placement_table(&runs));
    }
    let fit = ops::fit(&measured, ctx.plan.overlap)?;
    err(&ops::residual_table(&fit));
    if !fit.missing.is_empty() {
        ctx.note(format!(
            "kernels that reported no time (left out of the fit): {}",
            fit.missing.join(", ")
        ));
    }
    for (name, why) in &fit.excluded {
        ctx.note(format!("kernel `{name}` left out of the fit: {why}"));
    }
    let time_of = |name: &str| measured.iter().find(|(n, _)| n == name).map(|(_, t)| *t);
    if let (Some(sorted), Some(random)) = (time_of("branch_sorted"), time_of("branch_random")) {
        ctx.notes.push(format!(
            "branch: an IF over sorted data takes {sorted:.2e} s per iteration, over random \
             data {random:.2e} s (mispredictions); the fitted cost is their least-squares \
             compromise"
        ));
    }
    let mut costs = String::from("fitted seconds per operation (cycles at the nominal clock):\n");
    for (i, (k, v)) in fit.costs.iter().enumerate() {
        let _ = write!(costs, "{k:>15} {v:.2e} ({:.2})", v * clock_hz);
        costs.push(if i % 3 == 2 { '\n' } else { ' ' });
    }
    ctx.progress.say(costs.trim_end());
    ctx.fit_rel_rms.insert("ops".into(), fit.rel_rms);
    let other = if fit.overlap == "ports" {
        "sum"
    } else {
        "ports"
    };
    ctx.fit_rel_rms
        .insert(format!("ops.{}", fit.overlap), fit.rel_rms);
    ctx.fit_rel_rms
        .insert(format!("ops.{other}"), fit.other_rel_rms);
    Ok(fit)
}

/// The pointer chase: (working set bytes, seconds per dependent load).
pub fn chase(ctx: &mut Ctx) -> Vec<(f64, f64)> {
    let sizes = memory::chase_sizes(ctx.plan.chase_max_bytes, ctx.plan.chase_midpoints);
    let mut args = vec!["chase".to_string(), ctx.plan.chase_hops.to_string()];
    args.extend(sizes.iter().map(u64::to_string));
    match run_ok(
        program(ctx, "memory", &args),
        ctx.dir,
        ctx.plan.run_limit,
        "the pointer chase (memory chase)",
    ) {
        Ok(out) => {
            let points = memory::parse(&out, "chase");
            let mut line = String::from("latency:");
            for (i, (s, t)) in points.iter().enumerate() {
                if i % 6 == 0 {
                    line.push_str("\n  ");
                }
                let _ = write!(line, " {:>8} {:>6.1} ns", human_bytes(*s), t * 1e9);
            }
            ctx.progress.say(&line);
            points
        }
        Err(e) => {
            ctx.note(format!("memory latency not measured: {e}"));
            Vec::new()
        }
    }
}

/// The cache levels: sysfs when it lists them, else the latency curve's jumps; both
/// are shown, and the difference noted.
pub fn levels(ctx: &mut Ctx, chase: &[(f64, f64)]) -> Vec<Level> {
    let sys = sysinfo::sysfs_caches(Path::new("/sys/devices/system/cpu/cpu0/cache"));
    let detected = memory::detect_levels(chase);
    let shown = |caps: Vec<u64>| {
        caps.iter()
            .map(|c| human_bytes(*c as f64))
            .collect::<Vec<_>>()
            .join(", ")
    };
    let jumps = shown(detected.iter().map(|l| l.0).collect());
    if sys.is_empty() {
        ctx.note(format!(
            "cache capacities from the pointer chase's latency jumps ({jumps}): sysfs lists no caches"
        ));
        return detected
            .iter()
            .enumerate()
            .map(|(i, (cap, _))| Level {
                name: format!("L{}", i + 1),
                total_bytes: *cap,
                per_core_bytes: *cap,
                associativity: None,
            })
            .collect();
    }
    let listed = sys
        .iter()
        .map(|l| {
            if l.per_core_bytes == l.total_bytes {
                format!("{} {}", l.name, human_bytes(l.total_bytes as f64))
            } else {
                format!(
                    "{} {} ({} per core)",
                    l.name,
                    human_bytes(l.total_bytes as f64),
                    human_bytes(l.per_core_bytes as f64)
                )
            }
        })
        .collect::<Vec<_>>()
        .join(", ");
    ctx.progress.say(&format!(
        "cache levels: sysfs {listed}; latency jumps after {jumps} (the last working set \
         before each jump)"
    ));
    let agree = detected.len() == sys.len()
        && detected.iter().zip(&sys).all(|((cap, _), l)| {
            let r = *cap as f64 / l.total_bytes as f64;
            (0.2..=2.0).contains(&r)
        });
    let mut note = format!("cache capacities from sysfs ({listed}); bytes = the share of one core");
    if !agree && !chase.is_empty() {
        let _ = write!(
            note,
            "; the latency curve jumps after {jumps}, which disagrees (a cache shared with \
             other tenants or TLB reach make the effective capacity smaller)"
        );
    }
    ctx.notes.push(note);
    sys
}

/// Line size (sysfs, else the stride sweep) and triad bandwidth per level and of
/// memory (each code placement's best sample, mean over the placements, as the
/// operation costs are fitted); then the `[memory]` table (what could not be measured
/// comes from `fallback`, with a note).
pub fn memory_model(
    ctx: &mut Ctx,
    placements: &[String],
    chase: &[(f64, f64)],
    levels: &[Level],
    fallback: &Memory,
) -> Memory {
    // Cache line.
    let mut args = vec!["stride".to_string(), ctx.plan.stride_bytes.to_string()];
    args.extend(ctx.plan.strides.iter().map(u64::to_string));
    let swept = run_ok(
        program(ctx, "memory", &args),
        ctx.dir,
        ctx.plan.run_limit,
        "the stride sweep",
    )
    .map(|out| memory::parse(&out, "stride"))
    .unwrap_or_default();
    let strided_line_s = swept
        .iter()
        .find(|(s, _)| *s as u64 == super::plan::STRIDED_BYTES)
        .map(|(_, t)| *t)
        .filter(|t| *t > 0.0);
    let swept: Vec<(f64, f64)> = swept
        .into_iter()
        .filter(|(s, _)| (*s as u64) < super::plan::STRIDED_BYTES)
        .collect();
    let knee = memory::line_from_strides(&swept);
    let sysfs = sysinfo::sysfs_line(Path::new("/sys/devices/system/cpu/cpu0/cache"));
    let line = match (sysfs, knee) {
        (Some(l), k) => {
            ctx.progress.say(&format!(
                "cache line: {l} B (sysfs); the stride sweep's knee is at {}",
                k.map_or("no stride".into(), |k| format!("{k} B"))
            ));
            l
        }
        (None, Some(k)) => {
            ctx.note(format!(
                "cache line {k} B from the stride sweep (sysfs has none)"
            ));
            k
        }
        (None, None) => {
            ctx.note(format!(
                "cache line not measured; {} B from the default model",
                fallback.cache_line_bytes
            ));
            fallback.cache_line_bytes
        }
    };

    // Bandwidth: half of each level's share of a core, and 4 × the last level.
    let last_total = levels.last().map_or(32 << 20, |l| l.total_bytes);
    let mut sizes: Vec<u64> = levels.iter().map(memory::bandwidth_size).collect();
    let memory_size = 4 * last_total;
    sizes.push(memory_size);
    let mut args = vec![
        "triad".to_string(),
        ctx.plan.triad_min_bytes.to_string(),
        ctx.plan.triad_samples.to_string(),
    ];
    args.extend(sizes.iter().map(u64::to_string));
    // Each placement's best sample, mean over the placements: the statistic the
    // operation costs are fitted to and the validation measures (the best placement
    // alone made the bandwidth what one lucky layout sustains).
    let mut triad: Vec<(f64, f64)> = Vec::new();
    for suffix in placements {
        match run_ok(
            program(ctx, &format!("memory{suffix}"), &args),
            ctx.dir,
            ctx.plan.run_limit,
            "the triad",
        ) {
            Ok(out) => triad.extend(memory::parse(&out, "triad")),
            Err(e) => ctx.note(format!("bandwidth not measured: {e}")),
        }
    }
    let bw_at = |bytes: u64| {
        let at: Vec<f64> = triad
            .iter()
            .filter(|(s, _)| *s as u64 == bytes)
            .map(|p| p.1)
            .collect();
        (!at.is_empty()).then(|| at.iter().sum::<f64>() / at.len() as f64)
    };

    // Lines too far apart to be prefetched, from each level after the first: one
    // access every STRIDED_BYTES over the level's bandwidth working set (fewer pages
    // than the TLB holds, so no walk is in it).
    let strided_in = |ctx: &Ctx, l: &Level| -> Option<f64> {
        let count = (memory::bandwidth_size(l) / super::plan::STRIDED_BYTES).max(16);
        let args = [
            "pages".to_string(),
            super::plan::STRIDED_BYTES.to_string(),
            count.to_string(),
        ];
        run_ok(
            program(ctx, "memory", &args),
            ctx.dir,
            ctx.plan.run_limit,
            "the strided sweep of a cache level",
        )
        .ok()
        .and_then(|out| memory::parse(&out, "pages").first().map(|p| p.1))
        .filter(|t| *t > 0.0)
    };

    let mut out_levels = Vec::new();
    let mut inner_total = 0;
    let mut table = String::from(
        "level  bytes/core   latency     triad bandwidth (working set)   strided line\n",
    );
    for (i, l) in levels.iter().enumerate() {
        let latency = memory::level_latency(chase, inner_total, l.per_core_bytes).or_else(|| {
            fallback
                .levels
                .iter()
                .find(|f| f.name == l.name)
                .map(|f| f.latency_s)
        });
        inner_total = l.total_bytes;
        let Some(latency) = latency else { continue };
        let bw = bw_at(memory::bandwidth_size(l));
        let strided = if i == 0 { None } else { strided_in(ctx, l) };
        let _ = writeln!(
            table,
            "{:<6} {:>10}   {:>6.1} ns   {:>9} ({})   {}",
            l.name,
            human_bytes(l.per_core_bytes as f64),
            latency * 1e9,
            bw.map_or("-".into(), |b| format!("{:.1} GB/s", b / 1e9)),
            human_bytes(memory::bandwidth_size(l) as f64),
            strided.map_or("-".into(), |t| format!("{:.1} ns", t * 1e9))
        );
        out_levels.push(CacheLevel {
            name: l.name.clone(),
            bytes: l.per_core_bytes,
            latency_s: latency,
            bandwidth_bytes_per_s: bw,
            associativity: l.associativity,
            strided_line_s: strided,
        });
    }
    let latency = memory::memory_latency(chase, last_total).unwrap_or_else(|| {
        ctx.notes
            .push("memory latency from the default model (not measured)".into());
        fallback.latency_s
    });
    let bandwidth = bw_at(memory_size).unwrap_or_else(|| {
        ctx.notes
            .push("memory bandwidth from the default model (not measured)".into());
        fallback.bandwidth_bytes_per_s
    });
    let _ = write!(
        table,
        "memory              {:>6.1} ns   {:.1} GB/s ({})",
        latency * 1e9,
        bandwidth / 1e9,
        human_bytes(memory_size as f64)
    );
    if let Some(t) = strided_line_s {
        let _ = write!(
            table,
            "\nstrided    {:>6.1} ns per line from memory ({} B apart: no prefetch)",
            t * 1e9,
            super::plan::STRIDED_BYTES
        );
    }
    ctx.progress.say(&table);
    if out_levels.is_empty() {
        ctx.notes
            .push("cache levels from the default model (not measured)".into());
        out_levels = fallback.levels.clone();
    }
    let tlb = tlb(ctx, line);
    Memory {
        cache_line_bytes: line,
        latency_s: latency,
        bandwidth_bytes_per_s: bandwidth,
        strided_line_s,
        tlb,
        levels: out_levels,
    }
}

/// The TLB: one element per page (and line) against one per line, over more and more
/// pages (`memory::tlb_from`).
fn tlb(ctx: &mut Ctx, line: u64) -> Option<Tlb> {
    let page = memory::PAGE_BYTES;
    let gather = |stride: u64| {
        let mut args = vec!["pages".to_string(), stride.to_string()];
        args.extend(ctx.plan.page_counts.iter().map(u64::to_string));
        run_ok(
            program(ctx, "memory", &args),
            ctx.dir,
            ctx.plan.run_limit,
            "the page gather",
        )
        .map(|out| memory::parse(&out, "pages"))
    };
    let measured = gather(page + line).and_then(|p| Ok((p, gather(line)?)));
    let found = match measured {
        Ok((pages, lines)) => memory::tlb_from(&pages, &lines),
        Err(e) => {
            ctx.note(format!("TLB not measured: {e}"));
            return None;
        }
    };
    match found {
        Some((entries, walk_s)) => {
            ctx.progress.say(&format!(
                "TLB: {entries} pages of {} KiB, then {:.1} ns per access for the page walk",
                page / 1024,
                walk_s * 1e9
            ));
            Some(Tlb {
                page_bytes: page,
                entries,
                walk_s,
            })
        }
        None => {
            ctx.note(
                "TLB: gathering one element per page costs no more than per line (not modelled)"
                    .to_string(),
            );
            None
        }
    }
}

/// The ping-pong between two ranks and its piecewise and single fits.
pub fn pingpong(ctx: &mut Ctx, mpi: &Mpi) -> Result<P2p, String> {
    let mut args = vec![
        ctx.plan.mpi_seconds.to_string(),
        ctx.plan.mpi_rounds.to_string(),
    ];
    args.extend(network::sizes(ctx.plan.quick).iter().map(u64::to_string));
    let out = run_ok(
        mpi.command(2, "pingpong", &args),
        ctx.dir,
        ctx.plan.run_limit,
        "the ping-pong (mpirun -n 2 pingpong)",
    )?;
    let points = network::parse(&out);
    if points.len() < 4 {
        return Err(format!("the ping-pong reported {} sizes", points.len()));
    }
    let p2p = network::fit(&points);
    err(&network::table(&p2p));
    ctx.fit_rel_rms
        .insert("p2p.piecewise".into(), p2p.piecewise.rel_rms);
    ctx.fit_rel_rms
        .insert("p2p.single".into(), p2p.single.rel_rms);
    Ok(p2p)
}

/// The collectives at every process count of `procs`, fitted and compared with the
/// library's selection priced on `network` (the point-to-point model just measured).
pub fn collectives(
    ctx: &mut Ctx,
    mpi: &Mpi,
    p2p: &P2p,
    network: &NetworkModel,
    procs: &[u32],
) -> collectives::Summary {
    let mut samples: Vec<Sample> = Vec::new();
    let mut args = vec![
        ctx.plan.mpi_seconds.to_string(),
        ctx.plan.mpi_rounds.to_string(),
    ];
    args.extend(ctx.plan.collective_sizes.iter().map(u64::to_string));
    let mut oversubscribed = Vec::new();
    for &p in procs {
        match run_ok(
            mpi.command(p, "collectives", &args),
            ctx.dir,
            ctx.plan.run_limit,
            &format!("the collectives with {p} ranks"),
        ) {
            Ok(out) => {
                let got = collectives::parse(&out);
                ctx.progress
                    .say(&format!("{p} ranks: {} measurements", got.len()));
                if !got.is_empty() && mpi.oversubscribed(p) {
                    oversubscribed.push(p.to_string());
                }
                samples.extend(got);
            }
            Err(e) => ctx.note(format!("collectives with {p} ranks not measured: {e}")),
        }
    }
    if !oversubscribed.is_empty() {
        ctx.notes.push(format!(
            "collectives with {} ranks ran oversubscribed on {} cores: those timings are not \
             representative of one rank per core",
            oversubscribed.join(", "),
            mpi.cores
        ));
    }
    let mut ps: Vec<u32> = samples.iter().map(|s| s.p).collect();
    ps.sort_unstable();
    ps.dedup();
    if ps.len() == 1 {
        ctx.notes.push(format!(
            "collectives measured with {} ranks only: tau2 cannot be told from tau1 and is fixed at 0",
            ps[0]
        ));
    }
    let piecewise = p2p.piecewise.clone();
    let mut machine = Catalog::default_machine();
    machine.network = network.clone();
    if mpi.placement == Placement::RankPerNode {
        // Measured with a rank per node: priced as such.
        machine.network.cores_per_node = 1;
    }
    machine.collectives.clear();
    let net = Network::of(&machine);
    let summary = collectives::summarize(&samples, &|b| piecewise.at(b), &|op, p, b| {
        library_time(op, p, b, &net)
    });
    err(&summary.table);
    for (k, v) in &summary.rel_rms {
        ctx.fit_rel_rms.insert(k.clone(), *v);
    }
    ctx.notes.extend(summary.replaced.iter().cloned());
    summary
}
