//! Opening text inputs: compression detected from the first bytes (gzip,
//! zstd, or plain), and a chunker that cuts the byte stream into pieces
//! ending at line ends so that workers can parse them independently.

use crate::error::{Error, Result};
use std::fs::File;
use std::io::Read;
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};

/// A text input to convert.
#[derive(Clone, Debug)]
pub struct Input {
    /// Path of the file.
    pub path: PathBuf,
}

impl Input {
    /// The input at `path`.
    pub fn path(path: impl AsRef<Path>) -> Input {
        Input {
            path: path.as_ref().to_path_buf(),
        }
    }
}

/// Compression of an input, detected from its magic bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Compression {
    /// Plain text.
    None,
    /// gzip (one or more members).
    Gzip,
    /// Zstandard.
    Zstd,
}

/// Detects the compression of `path` from its first bytes.
pub fn detect_compression(path: &Path) -> Result<Compression> {
    let f = File::open(path).map_err(|e| Error::io(path, "open input", e))?;
    let mut magic = [0u8; 4];
    let n = f
        .read_at(&mut magic, 0)
        .map_err(|e| Error::io(path, "read input", e))?;
    Ok(match &magic[..n] {
        [0x1f, 0x8b, ..] => Compression::Gzip,
        [0x28, 0xb5, 0x2f, 0xfd] => Compression::Zstd,
        _ => Compression::None,
    })
}

/// Size of the input file in bytes (compressed size for compressed inputs).
pub fn input_bytes(path: &Path) -> Result<u64> {
    Ok(std::fs::metadata(path)
        .map_err(|e| Error::io(path, "stat input", e))?
        .len())
}

/// A decompressing reader that turns decoder failures into `Error::Decompress`.
pub struct TextReader {
    inner: Box<dyn Read + Send>,
    path: PathBuf,
    compression: Compression,
}

impl TextReader {
    /// Opens `path`, decompressing on the fly as detected.
    pub fn open(path: &Path) -> Result<TextReader> {
        let compression = detect_compression(path)?;
        let f = File::open(path).map_err(|e| Error::io(path, "open input", e))?;
        let inner: Box<dyn Read + Send> = match compression {
            Compression::None => Box::new(f),
            Compression::Gzip => Box::new(flate2::read::MultiGzDecoder::new(
                std::io::BufReader::with_capacity(1 << 20, f),
            )),
            Compression::Zstd => Box::new(
                zstd::stream::read::Decoder::new(f)
                    .map_err(|e| Error::io(path, "start zstd decoder", e))?,
            ),
        };
        Ok(TextReader {
            inner,
            path: path.to_path_buf(),
            compression,
        })
    }

    /// The detected compression.
    pub fn compression(&self) -> Compression {
        self.compression
    }

    /// Reads up to `buf.len()` bytes; 0 means end of input.
    pub fn read(&mut self, buf: &mut [u8]) -> Result<usize> {
        loop {
            match self.inner.read(buf) {
                Ok(n) => return Ok(n),
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                Err(e) => {
                    return Err(match self.compression {
                        Compression::None => Error::io(&self.path, "read input", e),
                        Compression::Gzip => Error::Decompress {
                            path: self.path.clone(),
                            format: "gzip",
                            detail: e.to_string(),
                        },
                        Compression::Zstd => Error::Decompress {
                            path: self.path.clone(),
                            format: "zstd",
                            detail: e.to_string(),
                        },
                    })
                }
            }
        }
    }
}

/// Cuts a text stream into chunks that end with `\n` (a final line without
/// one gets it appended), carrying partial lines over to the next chunk. A
/// UTF-8 byte-order mark at the start is dropped.
///
/// Time is linear in the input whatever its lines: a line longer than a
/// chunk (a hub's adjacency list) grows the buffer geometrically and only
/// the newly read bytes are searched for its end. Such a line that holds a
/// NUL byte (binary input, `/dev/zero`) is cut right after it and the input
/// ends there, so the parser reports the NUL at its position instead of
/// reading forever.
pub struct Chunker {
    reader: TextReader,
    carry: Vec<u8>,
    chunk_bytes: usize,
    done: bool,
    started: bool,
}

impl Chunker {
    /// A chunker producing chunks of about `chunk_bytes` bytes.
    pub fn new(reader: TextReader, chunk_bytes: usize) -> Chunker {
        Chunker {
            reader,
            carry: Vec::new(),
            chunk_bytes,
            done: false,
            started: false,
        }
    }

    /// Fills `buf` (cleared first) with the next chunk; false at the end.
    pub fn next_into(&mut self, buf: &mut Vec<u8>) -> Result<bool> {
        buf.clear();
        if self.done && self.carry.is_empty() {
            return Ok(false);
        }
        buf.append(&mut self.carry);
        // The carried bytes hold no line end (they follow the last one).
        let mut scanned = buf.len();
        loop {
            if !self.done {
                let start = buf.len();
                let want = (self.chunk_bytes.saturating_sub(start))
                    .max(64 << 10)
                    .max(start / 2);
                buf.resize(start + want, 0);
                let n = self.reader.read(&mut buf[start..])?;
                buf.truncate(start + n);
                if n == 0 {
                    self.done = true;
                }
                if !self.started && buf.len() >= 3 {
                    self.started = true;
                    if buf.starts_with(super::sniff::BOM) {
                        buf.drain(..3);
                        scanned = 0;
                    }
                }
            }
            if self.done {
                if buf.is_empty() {
                    return Ok(false);
                }
                if buf.last() != Some(&b'\n') {
                    buf.push(b'\n');
                }
                return Ok(true);
            }
            if buf.len() >= self.chunk_bytes {
                if let Some(nl) = buf[scanned..].iter().rposition(|&c| c == b'\n') {
                    let nl = scanned + nl;
                    self.carry.extend_from_slice(&buf[nl + 1..]);
                    buf.truncate(nl + 1);
                    return Ok(true);
                }
                // One line longer than a chunk: keep reading, unless it
                // holds a NUL byte (not text).
                if let Some(z) = buf[scanned..].iter().position(|&c| c == 0) {
                    buf.truncate(scanned + z + 1);
                    buf.push(b'\n');
                    self.done = true;
                    return Ok(true);
                }
                scanned = buf.len();
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn chunks(text: &[u8], chunk: usize) -> Vec<Vec<u8>> {
        let d = tempfile::tempdir().expect("tempdir");
        let p = d.path().join("t");
        std::fs::write(&p, text).expect("write");
        let mut c = Chunker::new(TextReader::open(&p).expect("open"), chunk);
        let mut out = Vec::new();
        let mut buf = Vec::new();
        while c.next_into(&mut buf).expect("chunk") {
            out.push(buf.clone());
        }
        out
    }

    #[test]
    fn chunks_end_at_line_ends_and_lose_nothing() {
        let text: Vec<u8> = (0..50_000)
            .flat_map(|i| format!("{i} {}\n", i * 7).into_bytes())
            .collect();
        let cs = chunks(&text, 64 << 10);
        assert!(cs.len() > 3);
        assert!(cs.iter().all(|c| c.ends_with(b"\n")));
        assert_eq!(cs.concat(), text);
        let mut bom = b"\xEF\xBB\xBF".to_vec();
        bom.extend_from_slice(b"1 2");
        assert_eq!(chunks(&bom, 1 << 20), vec![b"1 2\n".to_vec()]);
    }

    #[test]
    fn a_long_line_is_read_in_linear_time_and_a_nul_stops_it() {
        // 24 MB on one line, in 64 KiB chunks: quadratic scanning would
        // take minutes here.
        let mut line = vec![b'7'; 24 << 20];
        line.push(b'\n');
        line.extend_from_slice(b"1 2\n");
        let t = std::time::Instant::now();
        let cs = chunks(&line, 64 << 10);
        assert!(t.elapsed().as_secs_f64() < 5.0, "{:?}", t.elapsed());
        assert_eq!(cs.concat(), line);
        let mut zeros = vec![b'1'; 300 << 10];
        zeros.extend(std::iter::repeat_n(0u8, 200 << 10));
        let cs = chunks(&zeros, 64 << 10);
        let all = cs.concat();
        assert_eq!(all.len(), (300 << 10) + 2, "cut after the first NUL");
        assert_eq!(&all[all.len() - 2..], b"\x00\n");
    }
}
