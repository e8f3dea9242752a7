//! The io layer: the only code that issues system calls on graph files
//! while algorithms run.
//!
//! An [`IoFile`] is a file opened for direct I/O with a resolved backend
//! (io_uring when the kernel allows it, a pool of pread threads when not).
//! Each thread that reads makes its own [`Reader`] from it and drives it
//! with submit / reap / wait. [`profile`] measures the device; [`system`]
//! reports what the machine allows.

pub mod aligned;
pub mod fault;
pub mod huge;
pub mod inplace;
pub mod memory;
pub mod output;
pub mod pread;
pub mod profile;
pub mod raw;
pub mod reader;
pub mod scan;
pub mod scratch;
pub mod section;
pub mod system;
pub mod uring;

pub use aligned::AlignedBuf;
pub use fault::FaultPlan;
pub use reader::{Done, IoBuf, IoStats, Reader, WINDOW_MS};

use crate::error::{Error, Result};
use std::fs::{File, OpenOptions};
use std::os::fd::AsRawFd;
use std::os::unix::fs::OpenOptionsExt;
use std::path::{Path, PathBuf};
use std::sync::{Arc, OnceLock};

/// Which backend to use (`--io`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum BackendChoice {
    /// io_uring when the probe succeeds, pread otherwise (default).
    #[default]
    Auto,
    /// io_uring or an error.
    Uring,
    /// The pread thread pool.
    Pread,
    /// No I/O while running: the file is read into memory when opened and
    /// requests are copies from it (measures what the device costs).
    Memory,
}

impl std::str::FromStr for BackendChoice {
    type Err = String;
    fn from_str(s: &str) -> std::result::Result<Self, String> {
        match s {
            "auto" => Ok(BackendChoice::Auto),
            "uring" | "io_uring" => Ok(BackendChoice::Uring),
            "pread" => Ok(BackendChoice::Pread),
            "memory" => Ok(BackendChoice::Memory),
            _ => Err(format!(
                "unknown I/O backend {s:?}: use auto, uring, pread or memory"
            )),
        }
    }
}

/// How to open a file for the io layer.
#[derive(Clone, Debug)]
pub struct IoOptions {
    /// Backend (default: auto).
    pub backend: BackendChoice,
    /// Bypass the page cache with O_DIRECT (default: true). When the file
    /// system refuses O_DIRECT the file is opened buffered and
    /// [`IoFile::notes`] says so.
    pub direct: bool,
    /// Open for writing too (default: false).
    pub write: bool,
    /// Faults to inject (tests only; default none).
    pub faults: Option<FaultPlan>,
}

impl Default for IoOptions {
    fn default() -> Self {
        IoOptions {
            backend: BackendChoice::Auto,
            direct: true,
            write: false,
            faults: None,
        }
    }
}

/// The backend readers of a file use.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BackendKind {
    /// io_uring.
    Uring,
    /// Dedicated pread threads.
    Pread,
    /// Copies from an image of the file in memory (no device I/O).
    Memory,
}

impl BackendKind {
    /// The name reports use ("io_uring", "pread", "memory").
    pub fn name(self) -> &'static str {
        match self {
            BackendKind::Uring => "io_uring",
            BackendKind::Pread => "pread",
            BackendKind::Memory => "memory",
        }
    }
}

/// A file opened for the io layer, shared by the readers of all threads.
pub struct IoFile {
    path: PathBuf,
    file: File,
    len: u64,
    direct: bool,
    align: usize,
    kind: BackendKind,
    notes: Vec<String>,
    faults: Option<FaultPlan>,
    pread: OnceLock<Arc<pread::PreadPool>>,
    image: Option<Arc<Vec<u8>>>,
}

/// Result of probing io_uring once per process.
pub fn uring_status() -> &'static Result<(), (i32, String)> {
    static S: OnceLock<Result<(), (i32, String)>> = OnceLock::new();
    S.get_or_init(uring::probe)
}

impl IoFile {
    /// Opens `path` with `opts`, resolving the backend.
    pub fn open(path: &Path, opts: &IoOptions) -> Result<Arc<IoFile>> {
        Self::open_via(path, path, None, opts)
    }

    /// Opens the file that `file` (opened earlier as `path`) is, not
    /// whatever `path` names now: a merge or `compact` renames a new file
    /// over the path, and a reader that mixed the old file's index with
    /// the new file's blocks would see checksum errors that no damage
    /// caused. The file is reopened through `/proc/self/fd` (a separate
    /// open, so `O_DIRECT` applies to it alone); without `/proc` the path
    /// is opened, and refused if it no longer names the same file.
    pub fn open_same(file: &File, path: &Path, opts: &IoOptions) -> Result<Arc<IoFile>> {
        let was = file.metadata().map_err(|e| Error::io(path, "stat", e))?;
        let via = PathBuf::from(format!("/proc/self/fd/{}", file.as_raw_fd()));
        let via = if via.exists() {
            via
        } else {
            path.to_path_buf()
        };
        Self::open_via(&via, path, Some(&was), opts)
    }

    /// [`IoFile::open`] of `via`, named `path` in messages; `same`, when
    /// given, is the file that `via` must still be.
    fn open_via(
        via: &Path,
        path: &Path,
        same: Option<&std::fs::Metadata>,
        opts: &IoOptions,
    ) -> Result<Arc<IoFile>> {
        use std::os::unix::fs::MetadataExt;
        let mut notes = Vec::new();
        let open = |direct: bool| {
            let mut o = OpenOptions::new();
            o.read(true).write(opts.write);
            if direct {
                o.custom_flags(libc::O_DIRECT);
            }
            o.open(via)
        };
        let (file, direct) = match open(opts.direct) {
            Ok(f) => (f, opts.direct),
            Err(e) if opts.direct && e.raw_os_error() == Some(libc::EINVAL) => {
                notes.push(format!(
                    "{}: the file system does not support O_DIRECT; reads go through the page cache",
                    path.display()
                ));
                (open(false).map_err(|e| Error::io(path, "open", e))?, false)
            }
            Err(e) => return Err(Error::io(path, "open", e)),
        };
        if direct {
            // Clean cached pages of this file would make every direct read
            // of their range take the slow path (io_uring punts it to a
            // worker to invalidate them); drop them once up front. Advice
            // only: failure changes speed, not results.
            // SAFETY: plain syscall on an fd we own.
            unsafe { libc::posix_fadvise(file.as_raw_fd(), 0, 0, libc::POSIX_FADV_DONTNEED) };
        }
        let meta = file.metadata().map_err(|e| Error::io(path, "stat", e))?;
        if let Some(was) = same {
            if (meta.dev(), meta.ino()) != (was.dev(), was.ino()) {
                return Err(Error::Invalid(format!(
                    "{}: the file was replaced while it was being opened (an update merged it or `compact` rewrote it); run the command again",
                    path.display()
                )));
            }
        }
        let len = meta.len();
        let align = system::dio_alignment(path).unwrap_or(4096).max(512);
        let kind = match (opts.backend, uring_status()) {
            (BackendChoice::Pread, _) => BackendKind::Pread,
            (BackendChoice::Memory, _) => BackendKind::Memory,
            (_, Ok(())) => BackendKind::Uring,
            (BackendChoice::Uring, Err((_, why))) => {
                return Err(Error::Invalid(format!(
                    "--io uring: io_uring is unavailable: {why}"
                )))
            }
            (BackendChoice::Auto, Err((_, why))) => {
                notes.push(format!("io_uring unavailable, using pread threads: {why}"));
                BackendKind::Pread
            }
        };
        let image = if kind == BackendKind::Memory {
            if opts.write {
                return Err(Error::Invalid(format!(
                    "{}: the memory backend is read-only",
                    path.display()
                )));
            }
            // Through `via`: the same file, without O_DIRECT.
            let bytes = std::fs::read(via).map_err(|e| Error::io(path, "read into memory", e))?;
            if bytes.len() as u64 != len {
                return Err(Error::Truncated {
                    path: path.to_path_buf(),
                    what: format!("read {} of {len} bytes into memory", bytes.len()),
                });
            }
            Some(Arc::new(bytes))
        } else {
            None
        };
        Ok(Arc::new(IoFile {
            path: path.to_path_buf(),
            file,
            len,
            direct,
            align,
            kind,
            notes,
            faults: opts.faults.clone(),
            pread: OnceLock::new(),
            image,
        }))
    }

    /// The file's path.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Size in bytes when opened.
    pub fn len(&self) -> u64 {
        self.len
    }

    /// True for an empty file.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Whether O_DIRECT is in effect.
    pub fn direct(&self) -> bool {
        self.direct
    }

    /// Direct-I/O alignment of offsets, lengths and buffers, in bytes.
    pub fn align(&self) -> usize {
        self.align
    }

    /// The backend readers use.
    pub fn backend(&self) -> BackendKind {
        self.kind
    }

    /// Things the user should be told once (fallbacks and their reasons).
    pub fn notes(&self) -> &[String] {
        &self.notes
    }

    /// A reader allowing `depth` operations in flight. `arena`, when given,
    /// is registered with io_uring (if the locked-memory limit allows) so
    /// single-buffer reads into it skip per-request page pinning.
    pub fn reader(
        self: &Arc<Self>,
        depth: usize,
        arena: Option<Arc<AlignedBuf>>,
    ) -> Result<Reader> {
        let depth = depth.clamp(1, 4096);
        let fd = self.file.as_raw_fd();
        let mut registered = false;
        let backend: Box<dyn raw::RawBackend> = match self.kind {
            BackendKind::Uring => {
                let b = uring::UringBackend::new(
                    fd,
                    depth,
                    arena.as_ref().map(|a| (a.as_ptr(), a.len())),
                )
                .map_err(|e| Error::io(&self.path, "create an io_uring instance", e))?;
                registered = b.registered;
                self.wrap(b)
            }
            BackendKind::Pread => {
                let pool = Arc::clone(self.pread.get_or_init(|| Arc::new(pread::PreadPool::new())));
                let b = pread::PreadBackend::new(fd, pool, depth)
                    .map_err(|e| Error::io(&self.path, "start pread threads", e))?;
                self.wrap(b)
            }
            BackendKind::Memory => {
                let image = self.image.as_ref().ok_or_else(|| {
                    Error::Invalid(format!("{}: no image in memory", self.path.display()))
                })?;
                self.wrap(memory::MemoryBackend::new(Arc::clone(image)))
            }
        };
        Ok(Reader::new(
            Arc::clone(self),
            backend,
            depth,
            arena,
            registered,
        ))
    }

    fn wrap<B: raw::RawBackend + 'static>(&self, b: B) -> Box<dyn raw::RawBackend> {
        match &self.faults {
            Some(plan) => Box::new(fault::FaultyBackend::new(b, plan.clone())),
            None => Box::new(b),
        }
    }

    /// Flushes written data to the device (fdatasync).
    pub fn sync(&self) -> Result<()> {
        self.file
            .sync_data()
            .map_err(|e| Error::io(&self.path, "fdatasync", e))
    }
}
