//! Process measurements reported with every command.

/// Peak resident set size of this process in bytes, or `None` where the
/// kernel does not report it (one system call: every run reports it).
pub fn peak_rss_bytes() -> Option<u64> {
    crate::io::system::peak_rss_bytes()
}

/// Cores this process may use (`available_parallelism`, at least 1),
/// asked once: the answer reads cgroup files, which costs more than a
/// run on a small graph.
pub fn cores() -> usize {
    static CORES: std::sync::OnceLock<usize> = std::sync::OnceLock::new();
    *CORES.get_or_init(|| std::thread::available_parallelism().map_or(1, |n| n.get()))
}

/// Memory the kernel says is available for new allocations, in bytes.
pub fn available_memory_bytes() -> Option<u64> {
    let info = std::fs::read_to_string("/proc/meminfo").ok()?;
    let line = info.lines().find(|l| l.starts_with("MemAvailable:"))?;
    let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kib * 1024)
}

/// Memory a new allocation may take: the kernel's available memory, and
/// what `ulimit -v` leaves, whichever is smaller (`None`: unknown).
pub fn allocatable_bytes() -> Option<u64> {
    match (
        available_memory_bytes(),
        crate::io::system::address_space_left(),
    ) {
        (Some(a), Some(b)) => Some(a.min(b)),
        (a, b) => a.or(b),
    }
}

/// Allocations this small are never checked: a process that got far
/// enough to ask for them has far more than this already mapped.
const ALWAYS_FITS: u64 = 1 << 20;

/// Checks, before allocating, that `bytes` for `what` (which names the
/// input or flag that asked for it) fit in the memory this machine and
/// `ulimit -v` allow; an error with both sizes otherwise (exit status 2).
pub fn check_memory(bytes: u64, what: &str) -> crate::Result<()> {
    if bytes <= ALWAYS_FITS {
        // Not worth a read of /proc/meminfo (a run on a small graph would
        // spend more on it than on its edges).
        return Ok(());
    }
    match allocatable_bytes() {
        Some(free) if bytes > free => Err(crate::Error::Limit {
            what: format!(
                "{what} needs {}, but this machine has {} available (free memory, or what ulimit -v leaves)",
                human(bytes),
                human(free)
            ),
        }),
        _ => Ok(()),
    }
}

/// A byte count for messages: 1.5 GiB, 300 MiB, 12 KiB.
pub fn human(b: u64) -> String {
    const UNITS: [&str; 5] = ["bytes", "KiB", "MiB", "GiB", "TiB"];
    let mut x = b as f64;
    let mut u = 0;
    while x >= 1024.0 && u + 1 < UNITS.len() {
        x /= 1024.0;
        u += 1;
    }
    if u == 0 {
        format!("{b} bytes")
    } else {
        format!("{x:.1} {}", UNITS[u])
    }
}
