//! Crash-safe writing of a graph file: sections are appended to a
//! temporary file beside the target, the header goes in last, the file is
//! fsynced and only then renamed over the target. A killed writer leaves
//! at most a `.NAME.*.tmp` file whose header is zeros, which never opens.

use super::format::{padded, Header, Section, SectionKind, BLOCK_BYTES};
use crate::error::{Error, Result};
use std::fs::File;
use std::io::{BufWriter, Seek, SeekFrom, Write};
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};

/// Appends sections to a temporary file and publishes it atomically.
pub struct GraphWriter {
    target: PathBuf,
    tmp: tempfile::NamedTempFile,
    out: BufWriter<File>,
    pos: u64,
    sections: Vec<Section>,
    open: Option<OpenSection>,
}

struct OpenSection {
    kind: SectionKind,
    start: u64,
    crc: u32,
}

const WRITE_BUFFER_BYTES: usize = 8 << 20;

impl GraphWriter {
    /// Starts a new file that will become `target` on [`GraphWriter::finish`].
    pub fn create(target: &Path) -> Result<GraphWriter> {
        let dir = match target.parent() {
            Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
            _ => PathBuf::from("."),
        };
        let name = target
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_else(|| "graph".into());
        let tmp = tempfile::Builder::new()
            .prefix(&format!(".{name}."))
            .suffix(".tmp")
            .tempfile_in(&dir)
            .map_err(|e| Error::io(target, "create output (is the directory writable?)", e))?;
        let file = tmp
            .as_file()
            .try_clone()
            .map_err(|e| Error::io(target, "open output", e))?;
        let mut w = GraphWriter {
            target: target.to_path_buf(),
            tmp,
            out: BufWriter::with_capacity(WRITE_BUFFER_BYTES, file),
            pos: 0,
            sections: Vec::new(),
            open: None,
        };
        // Placeholder header: zeros never pass the magic check.
        w.raw(&[0u8; BLOCK_BYTES])?;
        Ok(w)
    }

    fn raw(&mut self, bytes: &[u8]) -> Result<()> {
        self.out
            .write_all(bytes)
            .map_err(|e| Error::io(&self.target, "write", e))?;
        self.pos += bytes.len() as u64;
        Ok(())
    }

    /// Opens a section of `kind` at the current (4 KiB aligned) position.
    pub fn begin(&mut self, kind: SectionKind) {
        assert!(self.open.is_none(), "section {} still open", kind.name());
        debug_assert_eq!(self.pos % BLOCK_BYTES as u64, 0);
        self.open = Some(OpenSection {
            kind,
            start: self.pos,
            crc: 0,
        });
    }

    /// Appends bytes to the open section.
    pub fn write(&mut self, bytes: &[u8]) -> Result<()> {
        let Some(open) = self.open.as_mut() else {
            return Err(Error::Invalid(
                "GraphWriter::write called outside a section".into(),
            ));
        };
        if !open.kind.is_block_data() {
            open.crc = crc32c::crc32c_append(open.crc, bytes);
        }
        self.raw(bytes)
    }

    /// Closes the open section holding `count` elements and pads it to 4 KiB.
    pub fn end(&mut self, count: u64) -> Result<()> {
        let Some(open) = self.open.take() else {
            return Err(Error::Invalid(
                "GraphWriter::end called without begin".into(),
            ));
        };
        let length = self.pos - open.start;
        let pad = (padded(length) - length) as usize;
        let zeros = vec![0u8; pad];
        let crc = if open.kind.is_block_data() {
            0
        } else {
            crc32c::crc32c_append(open.crc, &zeros)
        };
        self.raw(&zeros)?;
        self.sections.push(Section {
            kind: open.kind,
            offset: open.start,
            length,
            count,
            crc,
        });
        Ok(())
    }

    /// Writes a whole section from a byte slice.
    pub fn section(&mut self, kind: SectionKind, bytes: &[u8], count: u64) -> Result<()> {
        self.begin(kind);
        self.write(bytes)?;
        self.end(count)
    }

    /// Copies a whole section from a spill file (read from its start).
    pub fn section_from_file(
        &mut self,
        kind: SectionKind,
        src: &mut File,
        count: u64,
    ) -> Result<()> {
        src.seek(SeekFrom::Start(0))
            .map_err(|e| Error::io(&self.target, "rewind spill file", e))?;
        self.begin(kind);
        let mut buf = vec![0u8; 4 << 20];
        loop {
            let n = std::io::Read::read(src, &mut buf)
                .map_err(|e| Error::io(&self.target, "read spill file", e))?;
            if n == 0 {
                break;
            }
            self.write(&buf[..n])?;
        }
        self.end(count)
    }

    /// Writes the header, fsyncs, and renames the file onto the target.
    pub fn finish(mut self, mut header: Header) -> Result<()> {
        assert!(self.open.is_none(), "a section is still open");
        header.sections = std::mem::take(&mut self.sections);
        self.out
            .flush()
            .map_err(|e| Error::io(&self.target, "write", e))?;
        let file = self.tmp.as_file();
        file.write_all_at(&header.encode(), 0)
            .map_err(|e| Error::io(&self.target, "write header", e))?;
        file.sync_all()
            .map_err(|e| Error::io(&self.target, "fsync", e))?;
        // Readable like any file the user creates (tempfile makes 0600).
        let _ = std::fs::set_permissions(
            self.tmp.path(),
            std::os::unix::fs::PermissionsExt::from_mode(0o644),
        );
        let target = self.target.clone();
        self.tmp
            .persist(&target)
            .map_err(|e| Error::io(&target, "rename temporary file onto target", e.error))?;
        if let Some(dir) = target.parent() {
            let dir = if dir.as_os_str().is_empty() {
                Path::new(".")
            } else {
                dir
            };
            if let Ok(d) = File::open(dir) {
                // Makes the rename durable; a failure here leaves a valid file.
                let _ = d.sync_all();
            }
        }
        Ok(())
    }
}
