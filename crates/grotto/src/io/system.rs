//! What the machine allows: kernel, direct-I/O alignment, locked-memory
//! limit, and which block device holds a path.

use std::ffi::CString;
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::MetadataExt;
use std::path::Path;

const STATX_DIOALIGN: u32 = 0x2000;

/// Direct-I/O alignment for `path` (the larger of the memory and offset
/// alignments), from statx(STATX_DIOALIGN); `None` when the kernel or file
/// system does not report it (then 4096 is the safe choice).
pub fn dio_alignment(path: &Path) -> Option<usize> {
    let c = CString::new(path.as_os_str().as_bytes()).ok()?;
    // SAFETY: statx is plain data; an all-zero value is valid.
    let mut st: libc::statx = unsafe { std::mem::zeroed() };
    // SAFETY: `c` is a valid NUL-terminated path and `st` a valid out
    // pointer for the duration of the call.
    let r = unsafe { libc::statx(libc::AT_FDCWD, c.as_ptr(), 0, STATX_DIOALIGN, &mut st) };
    if r != 0 || st.stx_mask & STATX_DIOALIGN == 0 || st.stx_dio_offset_align == 0 {
        return None;
    }
    Some(st.stx_dio_mem_align.max(st.stx_dio_offset_align) as usize)
}

/// Soft and hard RLIMIT_MEMLOCK in bytes (`u64::MAX` = unlimited).
pub fn memlock_limit() -> Option<(u64, u64)> {
    // SAFETY: plain out parameter.
    let mut r: libc::rlimit = unsafe { std::mem::zeroed() };
    // SAFETY: valid pointer to an rlimit.
    if unsafe { libc::getrlimit(libc::RLIMIT_MEMLOCK, &mut r) } != 0 {
        return None;
    }
    let f = |v: libc::rlim_t| {
        if v == libc::RLIM_INFINITY {
            u64::MAX
        } else {
            v
        }
    };
    Some((f(r.rlim_cur), f(r.rlim_max)))
}

/// Kernel release string (`uname -r`).
pub fn kernel_release() -> String {
    std::fs::read_to_string("/proc/sys/kernel/osrelease")
        .map(|s| s.trim().to_string())
        .unwrap_or_else(|_| "unknown".into())
}

/// Value of the kernel.io_uring_disabled sysctl, when the kernel has it.
pub fn io_uring_sysctl() -> Option<String> {
    std::fs::read_to_string("/proc/sys/kernel/io_uring_disabled")
        .ok()
        .map(|s| s.trim().to_string())
}

/// The block device behind a path.
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize, PartialEq)]
pub struct DeviceId {
    /// "major:minor" of the file system's device.
    pub dev: String,
    /// Kernel name of the whole disk (e.g. "nvme0n1", "vda"), if known.
    pub disk: Option<String>,
    /// Model string from sysfs, if known.
    pub model: Option<String>,
}

impl DeviceId {
    /// A file-name-safe key for stored profiles.
    pub fn key(&self) -> String {
        let name = self.disk.clone().unwrap_or_else(|| "dev".into());
        let model: String = self
            .model
            .as_deref()
            .unwrap_or("")
            .chars()
            .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
            .collect();
        let k = format!(
            "{name}-{}-{}",
            self.dev.replace(':', "_"),
            model.trim_matches('_')
        );
        k.trim_end_matches('-').to_string()
    }
}

/// Identifies the device holding `path` (which must exist).
pub fn device_of(path: &Path) -> std::io::Result<DeviceId> {
    let md = std::fs::metadata(path)?;
    let dev = md.dev();
    let (major, minor) = (libc::major(dev), libc::minor(dev));
    let sys = format!("/sys/dev/block/{major}:{minor}");
    // A partition's sysfs directory has a "partition" file; its parent is
    // the disk, which has the queue and device attributes.
    let disk_dir = std::fs::canonicalize(&sys).ok().map(|p| {
        if p.join("partition").exists() {
            p.parent().map(|q| q.to_path_buf()).unwrap_or(p)
        } else {
            p
        }
    });
    let disk = disk_dir
        .as_ref()
        .and_then(|p| p.file_name())
        .map(|n| n.to_string_lossy().into_owned());
    let model = disk_dir.as_ref().and_then(|p| {
        std::fs::read_to_string(p.join("device/model"))
            .ok()
            .map(|s| s.trim().to_string())
            .filter(|s| !s.is_empty())
    });
    Ok(DeviceId {
        dev: format!("{major}:{minor}"),
        disk,
        model,
    })
}

/// Restores the default action of SIGPIPE (the Rust runtime ignores it),
/// so that a command writing into a closed pipe (`grotto export g | head`)
/// ends quietly, as Unix tools do, instead of failing with EPIPE. For
/// binaries only: a library must not change a process's signal actions.
pub fn restore_default_sigpipe() {
    // SAFETY: setting a signal's disposition to SIG_DFL installs no Rust
    // code as a handler, so nothing can run in signal context.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
}

/// Makes the C allocator hand every allocation of 4 MiB or more
/// straight to the kernel (`mmap`) and back when freed, instead of
/// raising that threshold as large blocks are freed (glibc's default),
/// which kept freed record arrays in the heap: a 128 MiB bounded build
/// peaked at 136 MiB with the default, 87 MiB with this. For programs
/// that own their process (the CLI); a library must not change it.
pub fn return_large_frees_to_the_kernel() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: mallopt only sets an allocator parameter; it is called at
    // start-up, before any other thread exists.
    unsafe {
        libc::mallopt(libc::M_MMAP_THRESHOLD, 4 << 20);
    }
}

/// Hands the C allocator's free memory back to the kernel, in every
/// arena (`malloc_trim`): called between the passes of a bounded build,
/// whose parse buffers, freed in worker threads' arenas, would otherwise
/// stay resident through the build.
pub fn release_free_memory() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: malloc_trim only returns free pages to the kernel; it is
    // thread-safe and touches no memory the program holds.
    unsafe {
        libc::malloc_trim(0);
    }
}

/// Peak resident set size of this process in bytes: `VmHWM` of
/// `/proc/self/status`, the peak of this program's own address space
/// (`getrusage`'s `ru_maxrss`, kept across `exec`, would report the peak
/// of a large parent that forked it), else `ru_maxrss`; `None` where both
/// fail.
pub fn peak_rss_bytes() -> Option<u64> {
    if let Some(kib) = std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            let line = s.lines().find(|l| l.starts_with("VmHWM:"))?;
            line.split_whitespace().nth(1)?.parse::<u64>().ok()
        })
    {
        return Some(kib * 1024);
    }
    // SAFETY: plain out parameter.
    let mut u: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: valid pointer to a rusage.
    if unsafe { libc::getrusage(libc::RUSAGE_SELF, &mut u) } != 0 {
        return None;
    }
    Some(u.ru_maxrss.max(0) as u64 * 1024)
}

/// Bytes this process may still map under `ulimit -v` (RLIMIT_AS less the
/// current virtual size), or `None` when no limit is set.
pub fn address_space_left() -> Option<u64> {
    // SAFETY: plain out parameter.
    let mut r: libc::rlimit = unsafe { std::mem::zeroed() };
    // SAFETY: valid pointer to an rlimit.
    if unsafe { libc::getrlimit(libc::RLIMIT_AS, &mut r) } != 0 || r.rlim_cur == libc::RLIM_INFINITY
    {
        return None;
    }
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmSize:"))?;
    let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(r.rlim_cur.saturating_sub(kib * 1024))
}

/// Bytes free for an unprivileged user on the file system holding `path`
/// (statvfs), or `None` when it cannot be asked. Tests of what a nearly
/// full disk makes a command do set `GROTTO_SIMULATE_FREE_BYTES=N`: every
/// file system then has `N` bytes free (what is written still needs
/// the real space).
pub fn free_disk_bytes(path: &Path) -> Option<u64> {
    if let Some(n) = std::env::var("GROTTO_SIMULATE_FREE_BYTES")
        .ok()
        .and_then(|v| v.parse().ok())
    {
        return Some(n);
    }
    let c = CString::new(path.as_os_str().as_bytes()).ok()?;
    // SAFETY: statvfs is plain data; an all-zero value is valid.
    let mut st: libc::statvfs = unsafe { std::mem::zeroed() };
    // SAFETY: `c` is a valid NUL-terminated path and `st` a valid out
    // pointer for the duration of the call.
    if unsafe { libc::statvfs(c.as_ptr(), &mut st) } != 0 {
        return None;
    }
    Some((st.f_bavail as u64).saturating_mul(st.f_frsize as u64))
}
