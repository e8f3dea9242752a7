//! Errors the library reports. Each variant carries what a user needs to
//! act on it: the path, the line and column, the block, the limit hit.

use std::path::PathBuf;

/// Result alias used across the library.
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// Everything that can go wrong in grotto's library.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// A malformed line in a text input.
    #[error("{}:{line}:{column}: expected {expected}, found \"{found}\"{note}", path.display())]
    Parse {
        /// The input file.
        path: PathBuf,
        /// 1-based line number.
        line: u64,
        /// 1-based byte column.
        column: u64,
        /// What the parser expected there.
        expected: String,
        /// The offending text (shortened, control bytes escaped with
        /// [`quote_bytes`]).
        found: String,
        /// Context after the message (how the format was detected), empty
        /// or starting with a separator.
        note: String,
    },
    /// The input as a whole is inconsistent (for example a Matrix Market
    /// header whose counts do not match the entries).
    #[error("{}: {what}", path.display())]
    BadInput {
        /// The input file.
        path: PathBuf,
        /// What is wrong.
        what: String,
    },
    /// An operating-system error on a file, with the operation that failed.
    #[error("{}: {op}: {source}", path.display())]
    Io {
        /// The file involved.
        path: PathBuf,
        /// What grotto was doing ("open", "read block 17", "fsync", ...).
        op: String,
        /// The underlying error.
        #[source]
        source: std::io::Error,
    },
    /// A compressed input ended early or is damaged.
    #[error("{}: {format} stream is damaged or truncated: {detail}", path.display())]
    Decompress {
        /// The input file.
        path: PathBuf,
        /// "gzip" or "zstd".
        format: &'static str,
        /// The decoder's message.
        detail: String,
    },
    /// The file does not start with grotto's magic bytes.
    #[error("{}: not a grotto graph file (bad magic bytes); an edge list or a table becomes one with `grotto convert INPUT GRAPH.grotto`", path.display())]
    NotAGraph {
        /// The file.
        path: PathBuf,
    },
    /// The file was written by a newer grotto.
    #[error("{}: written with format version {found}, this grotto reads up to version {supported}; upgrade grotto", path.display())]
    NewerVersion {
        /// The file.
        path: PathBuf,
        /// Version found in the header.
        found: u32,
        /// Newest version this build reads.
        supported: u32,
    },
    /// The file is shorter than its header says.
    #[error("{}: truncated graph file: {what}", path.display())]
    Truncated {
        /// The file.
        path: PathBuf,
        /// Which part is missing.
        what: String,
    },
    /// A checksum or consistency check failed.
    #[error("{}: corrupt graph file: {what}", path.display())]
    Corrupt {
        /// The file.
        path: PathBuf,
        /// Which section or block, and how.
        what: String,
    },
    /// A limit of the format or of the configuration was exceeded.
    #[error("{what}")]
    Limit {
        /// The limit, and the option that changes it if there is one.
        what: String,
    },
    /// An output path grotto will not write: an input, a directory, a
    /// device where a regular file is needed.
    #[error("{}: {what}", path.display())]
    Refused {
        /// The output path as the user gave it.
        path: PathBuf,
        /// Why it is refused and what to do instead.
        what: String,
    },
    /// A vertex id given by the user does not exist in the graph.
    #[error("vertex {id} is not in the graph")]
    NoSuchVertex {
        /// The user's id (a name is quoted).
        id: String,
    },
    /// A request that does not make sense for this graph or these options.
    #[error("{0}")]
    Invalid(String),
    /// The work stopped at a stop request ([`crate::interrupt`]).
    #[error("interrupted")]
    Interrupted,
}

/// Input bytes as text that is safe to print in a terminal: printable
/// characters as they are, control bytes and bytes that are not UTF-8
/// escaped (`\t`, `\r`, `\n`, `\x00`, `\x1b`, ...), so that a message
/// quoting a line of input never recolours or rewrites the screen.
pub fn quote_bytes(b: &[u8]) -> String {
    let mut out = String::with_capacity(b.len());
    for chunk in b.utf8_chunks() {
        for c in chunk.valid().chars() {
            match c {
                '\t' => out.push_str("\\t"),
                '\r' => out.push_str("\\r"),
                '\n' => out.push_str("\\n"),
                '"' => out.push_str("\\\""),
                '\\' => out.push_str("\\\\"),
                c if c.is_control() => {
                    let mut buf = [0u8; 4];
                    for byte in c.encode_utf8(&mut buf).bytes() {
                        out.push_str(&format!("\\x{byte:02x}"));
                    }
                }
                c => out.push(c),
            }
        }
        for byte in chunk.invalid() {
            out.push_str(&format!("\\x{byte:02x}"));
        }
    }
    out
}

impl Error {
    /// Wraps an `io::Error` with the path and operation.
    pub fn io(path: impl Into<PathBuf>, op: impl Into<String>, source: std::io::Error) -> Error {
        Error::Io {
            path: path.into(),
            op: op.into(),
            source,
        }
    }

    /// True for errors caused by the user's input or arguments (exit status 2),
    /// false for runtime failures (exit status 1).
    /// A file that is missing, a directory, or not readable is the
    /// user's to fix, so those operating-system errors count as input
    /// errors too.
    pub fn is_input_error(&self) -> bool {
        match self {
            Error::Io { source, .. } => matches!(
                source.kind(),
                std::io::ErrorKind::NotFound
                    | std::io::ErrorKind::PermissionDenied
                    | std::io::ErrorKind::IsADirectory
                    | std::io::ErrorKind::NotADirectory
                    | std::io::ErrorKind::InvalidFilename
            ),
            _ => true,
        }
    }
}
