//! Writing into an existing graph file, for committed updates: the file
//! opened for writing under an exclusive lock (one updater at a time),
//! positioned writes, and data syncs, the only ordering the commit
//! protocol relies on (`store::update`).
//!
//! [`PowerCut`] simulates losing power: writes are held in memory until
//! the next sync, and when the cut comes, each held write independently
//! reaches the file whole, reaches it torn (a prefix of 512-byte sectors),
//! or is lost, as a disk with a volatile cache may do. The crash tests
//! open the file afterwards and require the version before or after the
//! commit.

use super::{AlignedBuf, BackendChoice, FaultPlan, IoBuf, IoFile, IoOptions};
use crate::error::{Error, Result};
use std::fs::{File, OpenOptions};
use std::os::fd::AsRawFd;
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// Where and how a simulated power cut happens.
#[derive(Clone, Copy, Debug)]
pub struct PowerCut {
    /// The cut comes at this operation (each write and each sync counts
    /// one, from 0).
    pub at_op: u64,
    /// What becomes of the held writes: read in base 3, digit `i` says
    /// whether the `i`-th is lost (0), lands whole (1) or torn (2), so
    /// outcomes `0..3^k` cover every case of `k` held writes.
    pub outcome: u64,
}

/// An existing file opened for in-place writes, locked against other
/// writers until dropped.
pub struct InPlace {
    path: PathBuf,
    file: File,
    /// The same file opened by the io layer with O_DIRECT, where the file
    /// system allows it: writes of whole 4 KiB blocks go through it,
    /// [`WRITE_REQUEST`] bytes a request, `write_depth` requests in
    /// flight, without a copy into the page cache.
    direct: Option<Arc<IoFile>>,
    /// Writes in flight for a direct write (n_w).
    write_depth: usize,
    cut: Option<PowerCut>,
    /// Whether the simulated cut has happened.
    was_cut: bool,
    ops: u64,
    held: Vec<(u64, Vec<u8>)>,
}

const SECTOR: usize = 512;
/// Bytes of one request of a direct write.
pub const WRITE_REQUEST: usize = 128 << 10;
/// Default writes in flight ([`InPlace::set_write_depth`]).
pub const DEFAULT_WRITE_DEPTH: usize = 32;
/// The most writes in flight [`InPlace::set_write_depth`] takes (its
/// staging buffer is this many requests: 32 MiB).
pub const MAX_WRITE_DEPTH: usize = 256;

impl InPlace {
    /// Opens `path` for reading and writing and takes an exclusive lock
    /// on it; fails at once when another process holds the lock.
    pub fn open(path: &Path) -> Result<InPlace> {
        // A merge or `compact` renames a new file over the path while it
        // holds the lock: a lock won on the file it replaced would guard
        // nothing, so the path is opened again until it names the file
        // locked.
        for _ in 0..8 {
            let f = Self::open_once(path)?;
            if f.still_at_path() {
                return Ok(f);
            }
        }
        Err(Error::Invalid(format!(
            "{} keeps being replaced by another process; try again when it is done",
            path.display()
        )))
    }

    /// Whether the path still names the locked file.
    fn still_at_path(&self) -> bool {
        use std::os::unix::fs::MetadataExt;
        match (self.file.metadata(), std::fs::metadata(&self.path)) {
            (Ok(a), Ok(b)) => a.dev() == b.dev() && a.ino() == b.ino(),
            _ => false,
        }
    }

    fn open_once(path: &Path) -> Result<InPlace> {
        let file = OpenOptions::new()
            .read(true)
            .write(true)
            .open(path)
            .map_err(|e| Error::io(path, "open for update", e))?;
        // SAFETY: flock on a descriptor this function owns; no memory is
        // passed.
        let r = unsafe { libc::flock(file.as_raw_fd(), libc::LOCK_EX | libc::LOCK_NB) };
        if r != 0 {
            let e = std::io::Error::last_os_error();
            if e.raw_os_error() == Some(libc::EWOULDBLOCK) {
                return Err(Error::Invalid(format!(
                    "{} is being updated by another process; try again when it is done",
                    path.display()
                )));
            }
            return Err(Error::io(path, "lock for update", e));
        }
        let opts = IoOptions {
            backend: BackendChoice::Auto,
            direct: true,
            write: true,
            faults: None,
        };
        let direct = IoFile::open(path, &opts).ok().filter(|f| f.direct());
        Ok(InPlace {
            path: path.to_path_buf(),
            file,
            direct,
            write_depth: DEFAULT_WRITE_DEPTH,
            cut: None,
            was_cut: false,
            ops: 0,
            held: Vec::new(),
        })
    }

    /// Simulates a power cut at `cut` (tests).
    pub fn with_power_cut(mut self, cut: PowerCut) -> InPlace {
        self.cut = Some(cut);
        self
    }

    /// Injects `plan`'s faults into the direct writes (tests: a failed
    /// request must leave the graph as it was). Fails when the file
    /// cannot be opened for direct writes.
    pub fn with_faults(mut self, plan: FaultPlan) -> Result<InPlace> {
        let opts = IoOptions {
            backend: BackendChoice::Auto,
            direct: true,
            write: true,
            faults: Some(plan),
        };
        let f = IoFile::open(&self.path, &opts)?;
        if !f.direct() {
            return Err(Error::Invalid(format!(
                "{}: the file system refuses direct writes",
                self.path.display()
            )));
        }
        self.direct = Some(f);
        Ok(self)
    }

    /// Sets how many requests a direct write keeps in flight (n_w, the
    /// device's write concurrency k_w being the natural choice; default
    /// [`DEFAULT_WRITE_DEPTH`]); refused outside 1 to [`MAX_WRITE_DEPTH`].
    pub fn set_write_depth(&mut self, n_w: usize) -> Result<()> {
        if !(1..=MAX_WRITE_DEPTH).contains(&n_w) {
            return Err(Error::Invalid(format!(
                "{n_w} writes in flight: give 1 to {MAX_WRITE_DEPTH}"
            )));
        }
        self.write_depth = n_w;
        Ok(())
    }

    /// Whether a simulated power cut ended the writes (the file is then
    /// left as the cut left it).
    pub fn was_cut(&self) -> bool {
        self.was_cut
    }

    /// The file, for reads.
    pub fn file(&self) -> &File {
        &self.file
    }

    /// The length of the file.
    pub fn file_len(&self) -> Result<u64> {
        Ok(self
            .file
            .metadata()
            .map_err(|e| Error::io(&self.path, "stat", e))?
            .len())
    }

    /// Counts an operation; fails when it is the simulated cut, after
    /// letting the held writes land as a cut would.
    fn tick(&mut self) -> Result<()> {
        let op = self.ops;
        self.ops += 1;
        let Some(cut) = self.cut else { return Ok(()) };
        if op < cut.at_op {
            return Ok(());
        }
        self.was_cut = true;
        let mut digits = cut.outcome;
        let mut x = cut.outcome;
        for (at, bytes) in std::mem::take(&mut self.held) {
            let keep = match digits % 3 {
                0 => 0,
                1 => bytes.len(),
                _ => {
                    // A prefix of whole sectors, not all of them.
                    let sectors = bytes.len().div_ceil(SECTOR);
                    let r = crate::rng::splitmix64(&mut x);
                    (r as usize % sectors.max(1)) * SECTOR
                }
            };
            digits /= 3;
            self.file
                .write_all_at(&bytes[..keep.min(bytes.len())], at)
                .map_err(|e| Error::io(&self.path, "write", e))?;
        }
        Err(Error::Invalid(format!(
            "simulated power cut at operation {op}"
        )))
    }

    /// Writes `bytes` at byte `at`. The path and offset name a failure.
    pub fn write_at(&mut self, bytes: &[u8], at: u64, what: &str) -> Result<()> {
        self.tick()?;
        if self.cut.is_some() {
            self.held.push((at, bytes.to_vec()));
            return Ok(());
        }
        let err = |e| Error::io(&self.path, format!("write {what} at byte {at}"), e);
        let whole = |x: u64| x.is_multiple_of(4096);
        if let Some(f) = self
            .direct
            .as_ref()
            .filter(|f| whole(at) && whole(bytes.len() as u64) && f.align() <= 4096)
        {
            // A failed request's error names the file and its byte range.
            return write_direct(f, bytes, at, self.write_depth);
        }
        self.file.write_all_at(bytes, at).map_err(err)
    }

    /// Makes every write so far durable.
    pub fn sync(&mut self) -> Result<()> {
        self.tick()?;
        for (at, bytes) in std::mem::take(&mut self.held) {
            self.file
                .write_all_at(&bytes, at)
                .map_err(|e| Error::io(&self.path, "write", e))?;
        }
        self.file
            .sync_data()
            .map_err(|e| Error::io(&self.path, "sync", e))
    }

    /// Cuts the file to `len` bytes (a durable change only after the next
    /// sync).
    pub fn truncate(&mut self, len: u64) -> Result<()> {
        self.tick()?;
        self.file
            .set_len(len)
            .map_err(|e| Error::io(&self.path, "truncate", e))
    }
}

/// Writes `bytes` (whole 4 KiB blocks) at byte `at` of `f` through the io
/// layer: [`WRITE_REQUEST`] bytes a request, `depth` requests in flight,
/// each copied into a slot of an aligned staging buffer that is reused
/// once its request completes. On a failed request the others in flight
/// are waited for, and the first failure (naming its byte range) is the
/// error.
fn write_direct(f: &Arc<IoFile>, bytes: &[u8], at: u64, depth: usize) -> Result<()> {
    let pieces = bytes.len().div_ceil(WRITE_REQUEST);
    if pieces == 0 {
        return Ok(());
    }
    let slots = depth.clamp(1, MAX_WRITE_DEPTH).min(pieces);
    let buf = AlignedBuf::new(slots * WRITE_REQUEST, 4096)?;
    let mut io = f.reader(slots, None)?;
    let mut free: Vec<usize> = (0..slots).rev().collect();
    let mut done = Vec::new();
    let (mut next, mut failed) = (0, None);
    loop {
        while failed.is_none() && next < pieces {
            let Some(s) = free.pop() else { break };
            let piece = &bytes[next * WRITE_REQUEST..((next + 1) * WRITE_REQUEST).min(bytes.len())];
            // SAFETY: slot `s` lies inside `buf` (s < slots, a piece is at
            // most one slot long) and is lent to no request: it is taken
            // from `free`, where it returns only when its request is done.
            let dst = unsafe { buf.as_ptr().add(s * WRITE_REQUEST) };
            // SAFETY: as above; `piece` is the caller's memory, not `buf`.
            unsafe { std::ptr::copy_nonoverlapping(piece.as_ptr(), dst, piece.len()) };
            let one = [IoBuf {
                ptr: dst,
                len: piece.len(),
            }];
            // SAFETY: the slot is not touched until its completion comes
            // back below, and every request is waited for before `buf`
            // is dropped (or `buf` is leaked: see the reap failure).
            let r = unsafe { io.write(at + (next * WRITE_REQUEST) as u64, &one, s as u64) };
            match r {
                Ok(()) => next += 1,
                Err(e) => {
                    free.push(s);
                    failed = Some(e);
                }
            }
        }
        if io.in_flight() == 0 {
            break;
        }
        done.clear();
        if let Err(e) = io.wait(&mut done, 1) {
            // Requests may still hold slots: the buffer must outlive them.
            std::mem::forget(buf);
            return Err(e);
        }
        for d in done.drain(..) {
            if let Err(e) = d.result {
                failed.get_or_insert(e);
            }
            free.push(d.tag as usize);
        }
    }
    match failed {
        Some(e) => Err(e),
        None => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    fn pattern(len: usize, seed: u64) -> Vec<u8> {
        let mut x = seed | 1;
        (0..len)
            .map(|_| (crate::rng::splitmix64(&mut x) >> 56) as u8)
            .collect()
    }

    /// A file of `len` zero bytes in a fresh directory.
    fn zeros(len: usize) -> (tempfile::TempDir, PathBuf) {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("f");
        std::fs::write(&p, vec![0u8; len]).unwrap();
        (dir, p)
    }

    #[test]
    fn direct_writes_land_whole_at_every_depth() {
        let (_dir, p) = zeros(8 << 20);
        let at = 7 * 4096;
        for depth in [1, 3, 64, MAX_WRITE_DEPTH] {
            let mut f = InPlace::open(&p).unwrap();
            f.set_write_depth(depth).unwrap();
            // Five whole requests and a short last one.
            let bytes = pattern(5 * WRITE_REQUEST + 3 * 4096, depth as u64);
            f.write_at(&bytes, at, "a test run").unwrap();
            f.sync().unwrap();
            let back = std::fs::read(&p).unwrap();
            assert!(back[..at as usize].iter().all(|&b| b == 0));
            assert_eq!(&back[at as usize..at as usize + bytes.len()], &bytes[..]);
        }
        let mut f = InPlace::open(&p).unwrap();
        assert!(f.set_write_depth(0).is_err());
        assert!(f.set_write_depth(MAX_WRITE_DEPTH + 1).is_err());
    }

    #[test]
    fn direct_writes_survive_short_and_interrupted_requests() {
        let (_dir, p) = zeros(4 << 20);
        let plan = FaultPlan {
            short_every: 3,
            eintr_every: 5,
            eagain_every: 7,
            slow_every: 4,
            slow: Duration::from_millis(2),
            ..FaultPlan::default()
        };
        let Ok(mut f) = InPlace::open(&p).unwrap().with_faults(plan) else {
            return; // no O_DIRECT here: the buffered path is tested above
        };
        f.set_write_depth(8).unwrap();
        let bytes = pattern(3 << 20, 9);
        f.write_at(&bytes, 4096, "a test run").unwrap();
        f.sync().unwrap();
        let back = std::fs::read(&p).unwrap();
        assert_eq!(&back[4096..4096 + bytes.len()], &bytes[..]);
    }

    #[test]
    fn a_failed_direct_write_is_an_error_naming_its_bytes() {
        let (_dir, p) = zeros(4 << 20);
        for every in [1, 2, 5, 11] {
            let plan = FaultPlan {
                eio_every: every,
                ..FaultPlan::default()
            };
            let Ok(mut f) = InPlace::open(&p).unwrap().with_faults(plan) else {
                return;
            };
            f.set_write_depth(4).unwrap();
            let e = f
                .write_at(&pattern(2 << 20, every), 0, "a test run")
                .unwrap_err()
                .to_string();
            assert!(e.contains("write") && e.contains("at byte"), "{e}");
            assert!(e.contains(&p.display().to_string()), "{e}");
        }
    }
}
