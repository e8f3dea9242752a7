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

use super::AlignedBuf;
use crate::error::{Error, Result};
use std::fs::{File, OpenOptions};
use std::os::fd::AsRawFd;
use std::os::unix::fs::{FileExt, OpenOptionsExt};
use std::path::{Path, PathBuf};

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
    /// The same file opened with O_DIRECT, where the file system allows
    /// it: whole 4 KiB blocks are written through it, from `buf`, without
    /// a copy into the page cache.
    direct: Option<(File, AlignedBuf)>,
    cut: Option<PowerCut>,
    /// Whether the simulated cut has happened.
    was_cut: bool,
    ops: u64,
    held: Vec<(u64, Vec<u8>)>,
}

const SECTOR: usize = 512;
/// Bytes copied into the aligned buffer per direct write.
const DIRECT_CHUNK: usize = 8 << 20;

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
        let direct = OpenOptions::new()
            .write(true)
            .custom_flags(libc::O_DIRECT)
            .open(path)
            .ok()
            .and_then(|f| Some((f, AlignedBuf::new(DIRECT_CHUNK, 4096).ok()?)));
        Ok(InPlace {
            path: path.to_path_buf(),
            file,
            direct,
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
        if let Some((f, buf)) = self
            .direct
            .as_mut()
            .filter(|_| whole(at) && whole(bytes.len() as u64))
        {
            for (i, chunk) in bytes.chunks(DIRECT_CHUNK).enumerate() {
                buf.as_mut_slice()[..chunk.len()].copy_from_slice(chunk);
                f.write_all_at(
                    &buf.as_slice()[..chunk.len()],
                    at + (i * DIRECT_CHUNK) as u64,
                )
                .map_err(err)?;
            }
            return Ok(());
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
