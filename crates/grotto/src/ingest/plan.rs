//! What a conversion reads and how: the [`Plan`] (parse spec, where the
//! vertex count comes from, names once learnt) and its passes over a
//! text file or a generator, plus the estimates made before the first one.

use super::names;
use super::options::*;
use super::parse::{self, EdgeSink, ParseCounts, ParseSpec};
use super::records::RecordRules;
use super::source::{self, Compression};
use super::Format;
use crate::error::{Error, Result};
use crate::store::names::Names;
use std::path::Path;
use std::sync::atomic::{AtomicU32, AtomicUsize, Ordering};
use std::sync::Arc;

pub(super) struct Plan<'a> {
    pub(super) source: &'a Source<'a>,
    pub(super) spec: ParseSpec,
    pub(super) skip_lines: u64,
    pub(super) threads: usize,
    pub(super) rules: RecordRules,
    pub(super) id_base: u64,
    /// Vertex count fixed by the input (Matrix Market size line, generator,
    /// `--vertices`, a `# vertices N` comment).
    pub(super) fixed_n: Option<u64>,
    /// What fixed it, for messages.
    pub(super) fixed_from: String,
    pub(super) format: Option<Format>,
    /// Why that format (file inputs).
    pub(super) evidence: Option<String>,
    pub(super) compression: Option<Compression>,
    /// Vertex names, once learnt: tokens are then resolved to their ranks.
    pub(super) names: Option<Arc<Names>>,
    /// Passes made over the input so far (names, ids, counts, records).
    pub(super) passes: AtomicU32,
}

impl Plan<'_> {
    /// How the parser reads vertex tokens.
    pub(super) fn ids(&self) -> parse::Ids<'_> {
        match &self.names {
            Some(n) => parse::Ids::Resolve(n),
            None => parse::Ids::Integer,
        }
    }

    /// The first pass of a text conversion with `--ids string`: every
    /// distinct vertex name of the input's edges and of `listed` (a
    /// vertex file's), sorted.
    pub(super) fn collect_names(
        &self,
        progress: &dyn Progress,
        listed: Option<&[String]>,
    ) -> Result<Names> {
        let Source::File(input) = self.source else {
            return Err(Error::Invalid("names are collected from text input".into()));
        };
        let set = Arc::new(names::NameSet::default());
        let total = if self.compression == Some(Compression::None) {
            source::input_bytes(&input.path).ok()
        } else {
            None
        };
        progress.stage("names", total);
        self.passes.fetch_add(1, Ordering::Relaxed);
        parse::parse_file(
            &input.path,
            &self.spec,
            parse::Ids::Collect,
            self.skip_lines,
            self.threads,
            &|| names::NameCollector::new(set.clone()),
            &|b| progress.set(b),
        )?;
        for name in listed.unwrap_or_default() {
            set.insert(name.as_bytes());
        }
        let set = Arc::try_unwrap(set)
            .map_err(|_| Error::Invalid("a name collector outlived its pass".into()))?;
        set.into_names()
    }

    pub(super) fn pass<S: EdgeSink>(
        &self,
        make: &(dyn Fn() -> S + Sync),
        progress: &dyn Progress,
        stage: &str,
    ) -> Result<(Vec<S>, ParseCounts)> {
        self.passes.fetch_add(1, Ordering::Relaxed);
        match self.source {
            Source::File(input) => {
                let total = if self.compression == Some(Compression::None) {
                    source::input_bytes(&input.path).ok()
                } else {
                    None
                };
                progress.stage(stage, total);
                parse::parse_file(
                    &input.path,
                    &self.spec,
                    self.ids(),
                    self.skip_lines,
                    self.threads,
                    make,
                    &|b| progress.set(b),
                )
            }
            Source::Generated(g) => {
                progress.stage(stage, Some(g.chunks() as u64));
                let next = AtomicUsize::new(0);
                let stopped = std::sync::atomic::AtomicBool::new(false);
                let failed: std::sync::Mutex<Option<Error>> = std::sync::Mutex::new(None);
                // One worker per chunk at most; a single one runs here.
                let workers = self.threads.min(g.chunks()).max(1);
                let work = || {
                    let mut sink = make();
                    loop {
                        let c = next.fetch_add(1, Ordering::Relaxed);
                        if c >= g.chunks()
                            || stopped.load(Ordering::Relaxed)
                            || crate::interrupt::requested()
                        {
                            break;
                        }
                        match g.emit(c, &mut sink) {
                            Ok(true) => {}
                            Ok(false) => stopped.store(true, Ordering::Relaxed),
                            Err(e) => {
                                stopped.store(true, Ordering::Relaxed);
                                if let Ok(mut f) = failed.lock() {
                                    f.get_or_insert(e);
                                }
                            }
                        }
                        progress.set(c as u64 + 1);
                    }
                    sink
                };
                let sinks = if workers == 1 {
                    vec![Ok(work())]
                } else {
                    std::thread::scope(|s| {
                        let hs: Vec<_> = (0..workers).map(|_| s.spawn(work)).collect();
                        hs.into_iter().map(|h| h.join()).collect::<Vec<_>>()
                    })
                };
                let mut out = Vec::new();
                for s in sinks {
                    match s {
                        Ok(s) => out.push(s),
                        Err(p) => std::panic::resume_unwind(p),
                    }
                }
                if let Some(e) = failed.into_inner().ok().flatten() {
                    return Err(e);
                }
                crate::interrupt::check()?;
                let edges = g.edges();
                Ok((
                    out,
                    ParseCounts {
                        lines: edges,
                        data_lines: edges,
                        ..ParseCounts::default()
                    },
                ))
            }
        }
    }
}

pub(super) fn default_threads(t: usize) -> usize {
    if t > 0 {
        t
    } else {
        crate::metrics::cores()
    }
}

/// Estimates data lines of a plain text file from a sample of its start.
pub(super) fn estimate_lines(path: &Path, compression: Compression) -> Result<u64> {
    use std::os::unix::fs::FileExt;
    let size = source::input_bytes(path)?;
    let f = std::fs::File::open(path).map_err(|e| Error::io(path, "open input", e))?;
    let mut buf = vec![0u8; (1 << 20).min(size as usize)];
    let n = f
        .read_at(&mut buf, 0)
        .map_err(|e| Error::io(path, "read input", e))?;
    let lines = buf[..n].iter().filter(|&&c| c == b'\n').count().max(1) as u64;
    let per_line = (n as u64 / lines).max(4);
    // Compressed text: assume it expands 8x (the memory path checks the
    // budget as it goes and falls back if the guess was low).
    let text = if compression == Compression::None {
        size
    } else {
        size.saturating_mul(8)
    };
    Ok(text / per_line + 1)
}
