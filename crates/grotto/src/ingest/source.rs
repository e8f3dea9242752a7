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
/// one gets it appended), carrying partial lines over to the next chunk.
pub struct Chunker {
    reader: TextReader,
    carry: Vec<u8>,
    chunk_bytes: usize,
    done: bool,
}

impl Chunker {
    /// A chunker producing chunks of about `chunk_bytes` bytes.
    pub fn new(reader: TextReader, chunk_bytes: usize) -> Chunker {
        Chunker {
            reader,
            carry: Vec::new(),
            chunk_bytes,
            done: false,
        }
    }

    /// Fills `buf` (cleared first) with the next chunk; false at the end.
    pub fn next_into(&mut self, buf: &mut Vec<u8>) -> Result<bool> {
        buf.clear();
        if self.done && self.carry.is_empty() {
            return Ok(false);
        }
        buf.append(&mut self.carry);
        let target = self.chunk_bytes.max(buf.len() + 1);
        loop {
            if !self.done {
                let start = buf.len();
                buf.resize(target.max(start + 64 * 1024), 0);
                let n = self.reader.read(&mut buf[start..])?;
                buf.truncate(start + n);
                if n == 0 {
                    self.done = true;
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
                if let Some(nl) = buf.iter().rposition(|&c| c == b'\n') {
                    self.carry.extend_from_slice(&buf[nl + 1..]);
                    buf.truncate(nl + 1);
                    return Ok(true);
                }
                // One line longer than a chunk: keep reading.
            }
        }
    }
}
