//! Crash-safe writing of a graph file: sections are appended to the
//! temporary file of an [`Output`] (unnamed where the file system allows,
//! see [`crate::io::output`]), the header goes in last, and the output is
//! committed: fsynced, then renamed over the target. A killed writer
//! leaves the old target and no temporary file; a named temporary (file
//! systems without `O_TMPFILE`) has a zero header, which never opens.
//!
//! Bytes are gathered in 8 MiB page-aligned buffers that a background
//! thread writes with O_DIRECT (every section is 4 KiB-aligned, so every
//! buffer is), while the caller builds the next ones: the build overlaps
//! the device, the kernel copies nothing into the page cache, and the
//! final fsync has little left to flush. Where the file system refuses
//! O_DIRECT the same thread writes through the page cache.
//!
//! The writer thread also syncs the data every [`SYNC_EVERY_BYTES`]: an
//! O_DIRECT write can still sit in a volatile device cache (or, on a
//! virtual machine, in the host's page cache), and a single fsync at the
//! end waits for all of it (0.3 s for 270 MiB on the machine we measure
//! on). Synced as it goes, the flush overlaps the build, and the final
//! fsync has only the last piece left.

use super::format::{padded, Header, Section, SectionKind, BLOCK_BYTES};
use crate::error::{Error, Result};
use crate::io::output::{Output, Target};
use std::fs::File;
use std::io::{Seek, SeekFrom};
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};
use std::sync::mpsc;

/// Appends sections to a temporary file and publishes it atomically.
pub struct GraphWriter {
    target: PathBuf,
    tmp: Output,
    out: Appender,
    pos: u64,
    sections: Vec<Section>,
    open: Option<OpenSection>,
}

/// Bytes of the largest write buffer.
const WRITE_BUFFER_BYTES: usize = 8 << 20;
/// Bytes of the first write buffer; each one made after it is four times
/// larger, up to [`WRITE_BUFFER_BYTES`]: a small file touches 64 KiB of
/// buffer, not 24 MiB (a conversion from Python, where the allocator
/// hands back recycled memory that must be zeroed, spent 10 ms on it).
const FIRST_BUFFER_BYTES: usize = 64 << 10;
/// Buffers in rotation: one being filled, the others queued or in flight.
const WRITE_BUFFERS: usize = 3;
/// Bytes the writer thread writes between two data syncs of the file.
const SYNC_EVERY_BYTES: u64 = 32 << 20;

/// A heap buffer whose usable part starts on a 4 KiB boundary (found with
/// `align_offset`, so no unsafe allocation is needed).
struct PageBuf {
    raw: Vec<u8>,
    start: usize,
    /// Usable bytes (a multiple of [`BLOCK_BYTES`]).
    len: usize,
}

impl PageBuf {
    fn new(len: usize) -> PageBuf {
        let raw = vec![0u8; len + BLOCK_BYTES];
        let start = raw.as_ptr().align_offset(BLOCK_BYTES).min(BLOCK_BYTES);
        PageBuf { raw, start, len }
    }
    fn bytes(&self, len: usize) -> &[u8] {
        &self.raw[self.start..self.start + len]
    }
    fn bytes_mut(&mut self) -> &mut [u8] {
        let s = self.start;
        &mut self.raw[s..s + self.len]
    }
}

/// One buffer to write at a file offset.
struct Job {
    offset: u64,
    buf: PageBuf,
    len: usize,
}

/// Sequential output through a background writer thread, started when
/// the first buffer fills: a file that fits in one buffer is written by
/// the caller when it closes (a thread costs more than such a write).
struct Appender {
    path: PathBuf,
    buf: Option<PageBuf>,
    fill: usize,
    /// File offset of `buf`'s first byte.
    base: u64,
    jobs: Option<mpsc::SyncSender<Job>>,
    free: mpsc::Receiver<PageBuf>,
    /// Buffers made so far (at most [`WRITE_BUFFERS`]), and the size of
    /// the next one.
    made: usize,
    next_len: usize,
    /// Bytes of the largest buffer ([`WRITE_BUFFER_BYTES`] unless a
    /// memory budget asked for less).
    max_len: usize,
    /// What the writer needs, until it is started.
    idle: Option<IdleWriter>,
    worker: Option<std::thread::JoinHandle<std::io::Result<()>>>,
}

/// The writer's inbox and files before its thread starts.
struct IdleWriter {
    inbox: mpsc::Receiver<Job>,
    give_back: mpsc::Sender<PageBuf>,
    direct: Option<File>,
    buffered: File,
}

impl IdleWriter {
    fn write(self) -> std::io::Result<()> {
        write_jobs(self.inbox, self.give_back, self.direct, self.buffered)
    }
}

impl Appender {
    fn new(path: &Path, buffered: File, direct: Option<File>) -> Result<Appender> {
        let (jobs, inbox) = mpsc::sync_channel::<Job>(WRITE_BUFFERS);
        let (give_back, free) = mpsc::channel::<PageBuf>();
        Ok(Appender {
            path: path.to_path_buf(),
            buf: Some(PageBuf::new(FIRST_BUFFER_BYTES)),
            fill: 0,
            base: 0,
            jobs: Some(jobs),
            free,
            made: 1,
            next_len: (FIRST_BUFFER_BYTES * 4).min(WRITE_BUFFER_BYTES),
            max_len: WRITE_BUFFER_BYTES,
            idle: Some(IdleWriter {
                inbox,
                give_back,
                direct,
                buffered,
            }),
            worker: None,
        })
    }

    /// Starts the writer thread unless it runs already.
    fn start(&mut self) -> Result<()> {
        if let Some(idle) = self.idle.take() {
            let worker = std::thread::Builder::new()
                .name("grotto-writer".into())
                .spawn(move || idle.write())
                .map_err(|e| Error::io(&self.path, "start writer thread", e))?;
            self.worker = Some(worker);
        }
        Ok(())
    }

    /// The buffer to fill next: a new one while fewer than
    /// [`WRITE_BUFFERS`] exist, else one the writer thread gave back, which
    /// is replaced by a larger one until they are all full size (so no
    /// more than [`WRITE_BUFFERS`] exist at once).
    fn next_buffer(&mut self) -> Result<PageBuf> {
        if self.made < WRITE_BUFFERS {
            self.made += 1;
            return Ok(self.grown());
        }
        match self.free.recv() {
            Ok(b) if b.len < self.max_len => {
                drop(b);
                Ok(self.grown())
            }
            Ok(b) => Ok(b),
            Err(_) => Err(self.worker_error()),
        }
    }

    /// A new buffer of the next size.
    fn grown(&mut self) -> PageBuf {
        let b = PageBuf::new(self.next_len.min(self.max_len));
        self.next_len = (self.next_len * 4).min(self.max_len);
        b
    }

    fn append(&mut self, mut bytes: &[u8]) -> Result<()> {
        while !bytes.is_empty() {
            let Some(buf) = self.buf.as_mut() else {
                return Err(self.worker_error());
            };
            let cap = buf.len;
            let n = bytes.len().min(cap - self.fill);
            buf.bytes_mut()[self.fill..self.fill + n].copy_from_slice(&bytes[..n]);
            self.fill += n;
            bytes = &bytes[n..];
            if self.fill == cap {
                self.start()?;
                self.submit()?;
                self.buf = Some(self.next_buffer()?);
            }
        }
        Ok(())
    }

    /// Hands the current buffer to the writer thread.
    fn submit(&mut self) -> Result<()> {
        let (Some(buf), Some(jobs)) = (self.buf.take(), self.jobs.as_ref()) else {
            return Err(self.worker_error());
        };
        let job = Job {
            offset: self.base,
            buf,
            len: self.fill,
        };
        self.base += self.fill as u64;
        self.fill = 0;
        if jobs.send(job).is_err() {
            return Err(self.worker_error());
        }
        Ok(())
    }

    /// Writes what is buffered and waits for the writer thread.
    fn close(&mut self) -> Result<()> {
        if self.fill > 0 {
            self.submit()?;
        }
        self.jobs = None;
        if let Some(idle) = self.idle.take() {
            // Everything fit in the first buffer: written here.
            return idle.write().map_err(|e| Error::io(&self.path, "write", e));
        }
        match self.worker.take().map(|w| w.join()) {
            Some(Ok(Ok(()))) => Ok(()),
            Some(Ok(Err(e))) => Err(Error::io(&self.path, "write", e)),
            Some(Err(p)) => std::panic::resume_unwind(p),
            None => Err(Error::Invalid("graph writer closed twice".into())),
        }
    }

    /// The error that stopped the writer thread.
    fn worker_error(&mut self) -> Error {
        self.jobs = None;
        match self.worker.take().map(|w| w.join()) {
            Some(Ok(Err(e))) => Error::io(&self.path, "write", e),
            Some(Err(p)) => std::panic::resume_unwind(p),
            _ => Error::Invalid("graph writer thread stopped".into()),
        }
    }
}

/// The writer thread: writes each job at its offset, O_DIRECT while the
/// file system takes it (whole pages only), buffered otherwise.
fn write_jobs(
    inbox: mpsc::Receiver<Job>,
    give_back: mpsc::Sender<PageBuf>,
    mut direct: Option<File>,
    buffered: File,
) -> std::io::Result<()> {
    let mut unsynced = 0u64;
    for job in inbox {
        let bytes = job.buf.bytes(job.len);
        let mut done = false;
        if let Some(d) = direct.as_ref() {
            if job.len % BLOCK_BYTES == 0 {
                match d.write_all_at(bytes, job.offset) {
                    Ok(()) => done = true,
                    // Refused at write time (some file systems accept the
                    // flag at open and not the request): go buffered.
                    Err(e) if e.raw_os_error() == Some(libc::EINVAL) => direct = None,
                    Err(e) => return Err(e),
                }
            }
        }
        if !done {
            buffered.write_all_at(bytes, job.offset)?;
        }
        let _ = give_back.send(job.buf);
        // The builder fills the next buffers meanwhile (it waits only
        // when all of them are queued).
        unsynced += job.len as u64;
        if unsynced >= SYNC_EVERY_BYTES {
            buffered.sync_data()?;
            unsynced = 0;
        }
    }
    Ok(())
}

struct OpenSection {
    kind: SectionKind,
    start: u64,
    crc: u32,
}

impl GraphWriter {
    /// Starts a new graph file that becomes `target` on
    /// [`GraphWriter::finish`]; `target` is checked and its temporary
    /// created at once (see [`Output::create`]: no stream, no input).
    pub fn create(target: &Path) -> Result<GraphWriter> {
        let out = Output::create(target, &[], crate::io::output::Streams::Refused)?;
        GraphWriter::new(out)
    }

    /// Starts writing into `out`, an output opened before the work began
    /// (a regular-file target: graph files are written out of order).
    pub fn new(out: Output) -> Result<GraphWriter> {
        let target = match out.target() {
            Target::File(p) => p.clone(),
            _ => {
                return Err(Error::Invalid(
                    "a graph file is written to a regular file only".into(),
                ))
            }
        };
        let file = out
            .file()
            .try_clone()
            .map_err(|e| Error::io(&target, "open output", e))?;
        // A second descriptor with O_DIRECT; None where it is refused.
        let direct = out.reopen(libc::O_DIRECT).ok();
        let appender = Appender::new(&target, file, direct)?;
        let mut w = GraphWriter {
            target,
            tmp: out,
            out: appender,
            pos: 0,
            sections: Vec::new(),
            open: None,
        };
        // Placeholder header: zeros never pass the magic check.
        w.raw(&[0u8; BLOCK_BYTES])?;
        Ok(w)
    }

    /// Caps each of the writer's [`WRITE_BUFFERS`] buffers at `bytes`
    /// (rounded to whole blocks, at least 64 KiB; default 8 MiB): a build
    /// under a small memory budget writes in smaller pieces.
    pub fn limit_buffers(&mut self, bytes: usize) {
        let b = (bytes / BLOCK_BYTES * BLOCK_BYTES).clamp(FIRST_BUFFER_BYTES, WRITE_BUFFER_BYTES);
        self.out.max_len = b;
        self.out.next_len = self.out.next_len.min(b);
    }

    /// The most bytes the writer's buffers take at once.
    pub fn buffer_bytes(&self) -> usize {
        self.out.max_len * WRITE_BUFFERS
    }

    fn raw(&mut self, bytes: &[u8]) -> Result<()> {
        self.out.append(bytes)?;
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
        if !open.kind.has_no_section_crc() {
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
        let crc = if open.kind.has_no_section_crc() {
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
        self.begin(kind);
        self.write_from_file(src)?;
        self.end(count)
    }

    /// Appends a spill file's whole content (read from its start) to the
    /// open section.
    pub fn write_from_file(&mut self, src: &mut File) -> Result<()> {
        src.seek(SeekFrom::Start(0))
            .map_err(|e| Error::io(&self.target, "rewind spill file", e))?;
        let mut buf = vec![0u8; 4 << 20];
        loop {
            let n = std::io::Read::read(src, &mut buf)
                .map_err(|e| Error::io(&self.target, "read spill file", e))?;
            if n == 0 {
                return Ok(());
            }
            self.write(&buf[..n])?;
        }
    }

    /// Bytes of the file so far (the header's block included).
    pub fn bytes_written(&self) -> u64 {
        self.pos
    }

    /// Appends the manifest section with its two slots empty: room for
    /// updates (docs/updates.md), which every graph file has.
    pub fn empty_manifest(&mut self) -> Result<()> {
        self.section(
            SectionKind::Manifest,
            &vec![0u8; super::manifest::MANIFEST_BYTES as usize],
            2,
        )
    }

    /// Writes the header, then commits the output: fsync, rename onto the
    /// target, fsync of the directory.
    pub fn finish(self, header: Header) -> Result<()> {
        let tmp = self.finish_uncommitted(header)?;
        // An interrupted conversion never replaces the target; the commit
        // itself passes the commit point (`Output::commit`).
        crate::interrupt::check()?;
        tmp.commit()
    }

    /// Writes the header and returns the finished temporary without
    /// committing it: a scratch graph this process reads and drops
    /// ([`Output::reopen_path`]), which never replaces the target.
    pub fn finish_uncommitted(mut self, mut header: Header) -> Result<Output> {
        assert!(self.open.is_none(), "a section is still open");
        header.sections = std::mem::take(&mut self.sections);
        self.out.close()?;
        self.tmp
            .file()
            .write_all_at(&header.encode(), 0)
            .map_err(|e| Error::io(&self.target, "write header", e))?;
        Ok(self.tmp)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::format::FORMAT_VERSION;

    /// Writes sections larger than a write buffer and of odd lengths, then
    /// reads the file back through the header's section table.
    fn round_trip(dir: &Path) {
        let target = dir.join("w.grotto");
        let big: Vec<u8> = (0..WRITE_BUFFER_BYTES * 2 + 12_345)
            .map(|i| (i * 7 % 251) as u8)
            .collect();
        let small = b"seven b".to_vec();
        let mut w = GraphWriter::create(&target).expect("create");
        w.section(SectionKind::OutIndex, &big, big.len() as u64)
            .expect("big section");
        w.section(SectionKind::IdMap, &small, 1)
            .expect("small section");
        let header = Header {
            version: FORMAT_VERSION,
            flags: 0,
            vertex_count: 0,
            edge_count: 0,
            out_entries: 0,
            id_base: 0,
            self_loops_dropped: 0,
            duplicates_dropped: 0,
            lines_skipped: 0,
            sections: Vec::new(),
        };
        w.finish(header).expect("finish");
        let bytes = std::fs::read(&target).expect("read back");
        assert_eq!(bytes.len() % BLOCK_BYTES, 0);
        // The sections are arbitrary bytes: read the layout only, not
        // whether the fields describe a graph.
        let h = Header::decode_layout(&bytes[..BLOCK_BYTES], &target, bytes.len() as u64)
            .expect("header decodes");
        let sec = |k: SectionKind| {
            let s = h.sections.iter().find(|s| s.kind == k).expect("section");
            &bytes[s.offset as usize..(s.offset + s.length) as usize]
        };
        assert!(sec(SectionKind::OutIndex) == &big[..]);
        assert_eq!(sec(SectionKind::IdMap), &small[..]);
    }

    #[test]
    fn sections_survive_the_background_writer() {
        round_trip(tempfile::tempdir().expect("tempdir").path());
    }

    #[test]
    fn file_systems_without_o_direct_get_buffered_writes() {
        // tmpfs refuses O_DIRECT at open on most kernels.
        let shm = Path::new("/dev/shm");
        if shm.is_dir() {
            if let Ok(d) = tempfile::tempdir_in(shm) {
                round_trip(d.path());
            }
        }
    }

    #[test]
    fn a_failed_write_is_an_error_not_a_file() {
        // /dev/full fails every write with ENOSPC; the writer thread's
        // error must reach the caller.
        let full = Path::new("/dev/full");
        let Ok(f) = File::options().write(true).open(full) else {
            return;
        };
        let mut a = Appender::new(full, f, None).expect("appender");
        let data = vec![1u8; WRITE_BUFFER_BYTES * 4];
        let r = a.append(&data).and_then(|_| a.close());
        assert!(r.is_err());
    }
}
