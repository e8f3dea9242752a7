//! A scratch copy of a file, for benchmarks that write: an unnamed
//! temporary in the same directory (so on the same device), filled with
//! the source's bytes, opened for direct reads and writes, and gone when
//! dropped or when the process dies (nothing is left behind).

use super::output::{Output, Streams};
use super::{IoFile, IoOptions};
use crate::error::{Error, Result};
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// A scratch copy; the temporary lives as long as this value.
pub struct ScratchCopy {
    _out: Output,
    file: Arc<IoFile>,
    source: PathBuf,
}

impl ScratchCopy {
    /// Copies `source` into a temporary in `dir` (default: the source's
    /// directory), makes the copy durable, and opens it with `opts`
    /// (`write` is forced on).
    pub fn new(source: &Path, dir: Option<&Path>, opts: &IoOptions) -> Result<ScratchCopy> {
        let len = std::fs::metadata(source)
            .map_err(|e| Error::io(source, "stat", e))?
            .len();
        let dir = match dir {
            Some(d) => d.to_path_buf(),
            None => source
                .parent()
                .filter(|d| !d.as_os_str().is_empty())
                .unwrap_or(Path::new("."))
                .to_path_buf(),
        };
        if let Some(free) = super::system::free_disk_bytes(&dir) {
            if len > free {
                return Err(Error::Limit {
                    what: format!(
                        "a scratch copy of {} needs {} and {} has {} free",
                        source.display(),
                        crate::metrics::human(len),
                        dir.display(),
                        crate::metrics::human(free)
                    ),
                });
            }
        }
        let name = format!(
            ".{}.scratch",
            source
                .file_name()
                .map_or("graph".into(), |n| n.to_string_lossy())
        );
        let out = Output::create(&dir.join(name), &[source], Streams::Refused)?;
        // Bytes copied by hand: `std::io::copy` may use copy_file_range,
        // which on reflink file systems shares the source's extents, and
        // the first write to each page would then pay a copy-on-write.
        let mut from = std::fs::File::open(source).map_err(|e| Error::io(source, "open", e))?;
        let mut to = out.file();
        let mut buf = vec![0u8; 8 << 20];
        let mut copied = 0u64;
        loop {
            use std::io::{Read, Write};
            let n = match from.read(&mut buf) {
                Ok(0) => break,
                Ok(n) => n,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(Error::io(source, "read", e)),
            };
            to.write_all(&buf[..n])
                .map_err(|e| Error::io(out.path(), "write the scratch copy", e))?;
            copied += n as u64;
        }
        if copied != len {
            return Err(Error::Truncated {
                path: source.to_path_buf(),
                what: format!("copied {copied} of {len} bytes"),
            });
        }
        // Written back now, so that the copy's own write-back does not
        // run under what is measured on it.
        out.file()
            .sync_all()
            .map_err(|e| Error::io(out.path(), "fsync", e))?;
        let fd = std::os::fd::AsRawFd::as_raw_fd(out.file());
        let opts = IoOptions {
            write: true,
            ..opts.clone()
        };
        let file = IoFile::open(Path::new(&format!("/proc/self/fd/{fd}")), &opts)?;
        Ok(ScratchCopy {
            _out: out,
            file,
            source: source.to_path_buf(),
        })
    }

    /// The copy, open for direct reads and writes.
    pub fn file(&self) -> &Arc<IoFile> {
        &self.file
    }

    /// The file it copies.
    pub fn source(&self) -> &Path {
        &self.source
    }
}
