//! What the operating system says about this machine: cache levels
//! (/sys/devices/system/cpu/cpu0/cache), clock and model (/proc/cpuinfo), cores, host.

use super::memory::Level;
use std::path::Path;

/// The data and unified cache levels of cpu0 from sysfs, innermost first (empty when
/// sysfs has none). A level shared by k CPUs has per_core_bytes = size / k.
pub fn sysfs_caches(root: &Path) -> Vec<Level> {
    let Ok(dir) = std::fs::read_dir(root) else {
        return Vec::new();
    };
    let mut found: Vec<(u32, Level)> = Vec::new();
    for entry in dir.flatten() {
        let p = entry.path();
        if !p
            .file_name()
            .is_some_and(|n| n.to_string_lossy().starts_with("index"))
        {
            continue;
        }
        let read = |f: &str| std::fs::read_to_string(p.join(f)).map(|s| s.trim().to_string());
        let (Ok(level), Ok(kind), Ok(size)) = (read("level"), read("type"), read("size")) else {
            continue;
        };
        if kind == "Instruction" {
            continue;
        }
        let (Ok(level), Some(bytes)) = (level.parse::<u32>(), parse_size(&size)) else {
            continue;
        };
        let sharing = read("shared_cpu_list")
            .ok()
            .map_or(1, |l| count_cpus(&l))
            .max(1);
        found.push((
            level,
            Level {
                name: format!("L{level}"),
                total_bytes: bytes,
                per_core_bytes: bytes / sharing,
                associativity: read("ways_of_associativity")
                    .ok()
                    .and_then(|w| w.parse().ok()),
            },
        ));
    }
    found.sort_by_key(|(l, _)| *l);
    found.dedup_by_key(|(l, _)| *l);
    found.into_iter().map(|(_, l)| l).collect()
}

/// cpu0's cache line size from sysfs (coherency_line_size of its first data cache).
pub fn sysfs_line(root: &Path) -> Option<u64> {
    (0..8).find_map(|i| {
        let d = root.join(format!("index{i}"));
        let kind = std::fs::read_to_string(d.join("type")).ok()?;
        if kind.trim() == "Instruction" {
            return None;
        }
        std::fs::read_to_string(d.join("coherency_line_size"))
            .ok()?
            .trim()
            .parse()
            .ok()
    })
}

/// `32K`, `1024K`, `32M`, `65536` → bytes.
pub fn parse_size(s: &str) -> Option<u64> {
    let s = s.trim();
    let (num, mult) = match s.chars().last()? {
        'K' | 'k' => (&s[..s.len() - 1], 1u64 << 10),
        'M' | 'm' => (&s[..s.len() - 1], 1 << 20),
        'G' | 'g' => (&s[..s.len() - 1], 1 << 30),
        _ => (s, 1),
    };
    num.trim().parse::<u64>().ok().map(|n| n * mult)
}

/// The number of CPUs in a list like `0-1,4,6-7`.
pub fn count_cpus(list: &str) -> u64 {
    list.trim()
        .split(',')
        .filter(|p| !p.is_empty())
        .map(|part| match part.split_once('-') {
            Some((a, b)) => match (a.trim().parse::<u64>(), b.trim().parse::<u64>()) {
                (Ok(a), Ok(b)) if b >= a => b - a + 1,
                _ => 1,
            },
            None => 1,
        })
        .sum()
}

/// The first value of `key` in /proc/cpuinfo.
fn cpuinfo(key: &str) -> Option<String> {
    let text = std::fs::read_to_string("/proc/cpuinfo").ok()?;
    text.lines().find_map(|l| {
        let (k, v) = l.split_once(':')?;
        (k.trim() == key).then(|| v.trim().to_string())
    })
}

/// The processor's clock: /proc/cpuinfo's `cpu MHz` (the nominal clock under a
/// hypervisor), else the cpufreq maximum, else half the BogoMIPS; with where it came
/// from.
pub fn clock_hz() -> Option<(f64, &'static str)> {
    if let Some(mhz) = cpuinfo("cpu MHz").and_then(|v| v.parse::<f64>().ok()) {
        return Some((mhz * 1e6, "/proc/cpuinfo cpu MHz"));
    }
    if let Some(khz) =
        std::fs::read_to_string("/sys/devices/system/cpu/cpu0/cpufreq/cpuinfo_max_freq")
            .ok()
            .and_then(|v| v.trim().parse::<f64>().ok())
    {
        return Some((khz * 1e3, "cpufreq cpuinfo_max_freq"));
    }
    cpuinfo("bogomips")
        .and_then(|v| v.parse::<f64>().ok())
        .map(|b| (b * 1e6 / 2.0, "BogoMIPS / 2"))
}

/// The processor's name (`AMD EPYC`).
pub fn cpu_model() -> Option<String> {
    cpuinfo("model name")
}

/// The cores this process may run on.
pub fn cores() -> u32 {
    std::thread::available_parallelism().map_or(1, |n| n.get() as u32)
}

/// The host name.
pub fn hostname() -> String {
    std::fs::read_to_string("/proc/sys/kernel/hostname")
        .or_else(|_| std::fs::read_to_string("/etc/hostname"))
        .map(|s| s.trim().to_string())
        .ok()
        .filter(|s| !s.is_empty())
        .or_else(|| std::env::var("HOSTNAME").ok())
        .unwrap_or_else(|| "unknown host".into())
}

/// CPU time counters: all CPUs' busy and total ticks (/proc/stat's `cpu` line; busy =
/// total − idle − iowait) and this process's own and its waited-for children's
/// (/proc/self/stat utime + stime + cutime + cstime), in the same clock ticks.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CpuSample {
    pub busy: u64,
    pub total: u64,
    pub own: u64,
}

/// The counters now.
pub fn cpu_sample() -> Option<CpuSample> {
    let text = std::fs::read_to_string("/proc/stat").ok()?;
    let line = text.lines().find(|l| l.starts_with("cpu "))?;
    let v: Vec<u64> = line
        .split_whitespace()
        .skip(1)
        .filter_map(|x| x.parse().ok())
        .collect();
    let total: u64 = v.iter().take(8).sum();
    let idle = v.get(3).copied().unwrap_or(0) + v.get(4).copied().unwrap_or(0);
    let own_text = std::fs::read_to_string("/proc/self/stat").ok()?;
    // Fields after the command name (which is in parentheses and may hold spaces):
    // state is field 3, utime..cstime are fields 14..17.
    let after = own_text.rsplit_once(')')?.1;
    let f: Vec<u64> = after
        .split_whitespace()
        .skip(11)
        .take(4)
        .filter_map(|x| x.parse().ok())
        .collect();
    Some(CpuSample {
        busy: total.saturating_sub(idle),
        total,
        own: f.iter().sum(),
    })
}

/// The share of all CPUs' time between two samples that other work used: (Δbusy −
/// Δown) / Δtotal.
pub fn others_share(start: CpuSample, end: CpuSample) -> Option<f64> {
    let total = end.total.checked_sub(start.total).filter(|t| *t > 0)?;
    let busy = end.busy.saturating_sub(start.busy);
    let own = end.own.saturating_sub(start.own);
    Some(busy.saturating_sub(own) as f64 / total as f64)
}

/// Whether this process runs as root (Open MPI then refuses to start without
/// OMPI_ALLOW_RUN_AS_ROOT).
pub fn is_root() -> bool {
    std::fs::read_to_string("/proc/self/status").is_ok_and(|s| {
        s.lines()
            .find(|l| l.starts_with("Uid:"))
            .and_then(|l| l.split_whitespace().nth(1))
            == Some("0")
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn others_share_subtracts_our_own_time() {
        let a = CpuSample {
            busy: 100,
            total: 1000,
            own: 10,
        };
        let b = CpuSample {
            busy: 400,
            total: 1400,
            own: 210,
        };
        assert_eq!(others_share(a, b), Some(0.25));
        assert!(cpu_sample().is_some_and(|s| s.total >= s.busy));
    }

    #[test]
    fn sizes_and_cpu_lists() {
        assert_eq!(parse_size("32K"), Some(32768));
        assert_eq!(parse_size("32768K"), Some(32 << 20));
        assert_eq!(parse_size("2M"), Some(2 << 20));
        assert_eq!(parse_size("x"), None);
        assert_eq!(count_cpus("0-1"), 2);
        assert_eq!(count_cpus("0,2-3,8"), 4);
    }

    #[test]
    fn reads_a_sysfs_tree() {
        let root = std::env::temp_dir().join(format!("costline-sysfs-test-{}", std::process::id()));
        let write = |idx: &str, level: &str, kind: &str, size: &str, shared: &str| {
            let d = root.join(idx);
            std::fs::create_dir_all(&d).unwrap();
            for (f, v) in [
                ("level", level),
                ("type", kind),
                ("size", size),
                ("shared_cpu_list", shared),
                ("coherency_line_size", "64"),
                ("ways_of_associativity", "8"),
            ] {
                std::fs::write(d.join(f), format!("{v}\n")).unwrap();
            }
        };
        write("index0", "1", "Data", "32K", "0");
        write("index1", "1", "Instruction", "32K", "0");
        write("index2", "2", "Unified", "1024K", "0");
        write("index3", "3", "Unified", "32768K", "0-1");
        let levels = sysfs_caches(&root);
        let line = sysfs_line(&root);
        std::fs::remove_dir_all(&root).unwrap();
        let got: Vec<(&str, u64, u64)> = levels
            .iter()
            .map(|l| (l.name.as_str(), l.total_bytes, l.per_core_bytes))
            .collect();
        assert_eq!(
            got,
            vec![
                ("L1", 32768, 32768),
                ("L2", 1 << 20, 1 << 20),
                ("L3", 32 << 20, 16 << 20)
            ]
        );
        assert_eq!(line, Some(64));
    }
}
