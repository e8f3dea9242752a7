//! Device profiling after the PIO model: throughput and latency against
//! queue depth and request size, for reads and writes, and the parameters
//! derived from them (k_r, k_w, alpha, merge size).
//!
//! Measurements use the same [`Reader`](super::Reader) the engines use,
//! with O_DIRECT, on a scratch file that is removed afterwards.

use super::{AlignedBuf, Done, IoBuf, IoFile, IoOptions};
use crate::error::{Error, Result};
use crate::rng::Rng;
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// Queue depths measured.
pub const DEPTHS: [usize; 9] = [1, 2, 4, 8, 16, 32, 64, 128, 256];
/// Request sizes measured (4 KiB to 1 MiB).
pub const SIZES: [usize; 9] = [
    4096, 8192, 16384, 32768, 65536, 131072, 262144, 524288, 1048576,
];
/// Fraction of the peak that defines k_r, k_w and the merge size.
pub const KNEE: f64 = 0.9;
/// The fewest reads in flight an engine keeps whatever the profile says
/// (see [`Profile::engine_concurrency`]).
pub const ENGINE_MIN_DEPTH: usize = 32;
/// The range an engine's merge size is kept in whatever the profile says
/// (see [`Profile::engine_merge_bytes`]).
pub const ENGINE_MERGE_BYTES: std::ops::RangeInclusive<usize> = (128 << 10)..=(256 << 10);

/// How to profile.
#[derive(Clone, Debug)]
pub struct ProfileConfig {
    /// Directory on the device to measure (a scratch file is made there).
    pub dir: PathBuf,
    /// Scratch file size (default 4 GiB; quick: 1 GiB). Larger than any
    /// device cache makes the random reads honest.
    pub size: u64,
    /// Measure only the points the derivation needs, briefly (< 30 s).
    pub quick: bool,
    /// Measuring time per point and repeat (default 0.3 s; quick 0.2 s).
    pub seconds_per_point: f64,
    /// Times each point is measured (default 3; quick 2), in whole sweeps
    /// one after the other so a slow spell of a shared disk touches one
    /// measurement of many points rather than every measurement of one;
    /// a point's figures are the medians.
    pub repeats: usize,
    /// Backend to measure with.
    pub io: IoOptions,
}

impl ProfileConfig {
    /// Defaults for `dir`: full profile, 4 GiB file.
    pub fn new(dir: &Path, quick: bool) -> ProfileConfig {
        ProfileConfig {
            dir: dir.to_path_buf(),
            size: if quick { 1 << 30 } else { 4 << 30 },
            quick,
            seconds_per_point: if quick { 0.2 } else { 0.3 },
            repeats: if quick { 2 } else { 3 },
            io: IoOptions::default(),
        }
    }
}

/// One measured point.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct Point {
    /// "read" or "write".
    pub op: String,
    /// Queue depth.
    pub depth: usize,
    /// Request size in bytes.
    pub size: usize,
    /// Requests per second.
    pub iops: f64,
    /// Bytes per second.
    pub bandwidth: f64,
    /// Mean latency in microseconds.
    pub mean_us: f64,
    /// 99th-percentile latency in microseconds.
    pub p99_us: f64,
    /// Times the point was measured (1 in profiles from before repeats).
    #[serde(default = "one")]
    pub repeats: u32,
    /// Spread of the bandwidth over the repeats: (largest - smallest) /
    /// median (0 for a single measurement).
    #[serde(default)]
    pub spread: f64,
}

fn one() -> u32 {
    1
}

/// One point from its repeated measurements (same op, depth and size):
/// the median of each figure, and the bandwidth's spread.
pub fn combine(ms: &[Point]) -> Option<Point> {
    let med = |f: &dyn Fn(&Point) -> f64| {
        let mut v: Vec<f64> = ms.iter().map(f).collect();
        v.sort_by(f64::total_cmp);
        match v.len() {
            0 => 0.0,
            n if n % 2 == 1 => v[n / 2],
            n => (v[n / 2 - 1] + v[n / 2]) / 2.0,
        }
    };
    let first = ms.first()?;
    let bw = med(&|p| p.bandwidth);
    let (lo, hi) = ms.iter().fold((f64::INFINITY, 0.0f64), |(lo, hi), p| {
        (lo.min(p.bandwidth), hi.max(p.bandwidth))
    });
    Some(Point {
        op: first.op.clone(),
        depth: first.depth,
        size: first.size,
        iops: med(&|p| p.iops),
        bandwidth: bw,
        mean_us: med(&|p| p.mean_us),
        p99_us: med(&|p| p.p99_us),
        repeats: ms.len() as u32,
        spread: if bw > 0.0 { (hi - lo) / bw } else { 0.0 },
    })
}

/// A stored device profile.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Profile {
    /// Format of this record.
    pub schema_version: u32,
    /// Device measured.
    pub device: super::system::DeviceId,
    /// Directory the scratch file was in.
    pub path: PathBuf,
    /// When (seconds since the Unix epoch).
    pub created_unix: u64,
    /// Backend used ("io_uring" or "pread").
    pub backend: String,
    /// Whether O_DIRECT was in effect.
    pub direct: bool,
    /// Scratch file size.
    pub file_bytes: u64,
    /// Quick profile?
    pub quick: bool,
    /// Read concurrency: smallest depth from which 4 KiB read IOPS stay
    /// at 90% of the peak or more (where the plateau starts).
    pub k_r: usize,
    /// Write concurrency, likewise for writes.
    pub k_w: usize,
    /// Asymmetry: peak 4 KiB read IOPS over peak 4 KiB write IOPS (the
    /// amortised cost of a write in units of reads).
    pub alpha: f64,
    /// Smallest request size from which read bandwidth at depth k_r stays
    /// at 90% of the best bandwidth at that depth or more.
    pub merge_bytes: usize,
    /// Every measured point.
    pub points: Vec<Point>,
}

impl Profile {
    /// Reads in flight for the engines: k_r, but never fewer than
    /// [`ENGINE_MIN_DEPTH`]. A profile's k_r is where random 4 KiB reads
    /// stop gaining, and it moves from run to run on a shared disk (16,
    /// 32 and 64 on one machine in one day); an engine at a depth below
    /// the device's loses up to 1.7x (PPR on rmat22 at 8 against 128),
    /// while one above it only queues reads the device would take anyway.
    pub fn engine_concurrency(&self) -> usize {
        self.k_r.max(ENGINE_MIN_DEPTH)
    }

    /// Largest merged request for the engines: the profile's merge size
    /// kept within [`ENGINE_MERGE_BYTES`]. The profile finds it at depth
    /// k_r, which the engines rarely sustain, and merging joins only
    /// blocks a run needs, so a larger request costs no bytes: 16 KiB
    /// measured up to 1.6x slower than 128 KiB on rmat22 BFS; 512 KiB
    /// holds pool slots longer for a few percent less.
    pub fn engine_merge_bytes(&self) -> usize {
        self.merge_bytes
            .clamp(*ENGINE_MERGE_BYTES.start(), *ENGINE_MERGE_BYTES.end())
    }

    /// The measured point, if any.
    pub fn point(&self, op: &str, depth: usize, size: usize) -> Option<&Point> {
        self.points
            .iter()
            .find(|p| p.op == op && p.depth == depth && p.size == size)
    }

    /// Throughput the device profile expects at `depth` for requests of
    /// `bytes` (interpolated between the profiled sizes on a log scale).
    pub fn expected_bandwidth(&self, depth: usize, bytes: f64) -> Option<f64> {
        let mut sizes: Vec<usize> = self
            .points
            .iter()
            .filter(|x| x.op == "read")
            .map(|x| x.size)
            .collect();
        sizes.sort_unstable();
        sizes.dedup();
        let lo = sizes
            .iter()
            .rev()
            .find(|&&s| s as f64 <= bytes)
            .or(sizes.first())?;
        let hi = sizes
            .iter()
            .find(|&&s| s as f64 >= bytes)
            .or(sizes.last())?;
        let (a, b) = (
            self.expected_read_bandwidth(depth, *lo)?,
            self.expected_read_bandwidth(depth, *hi)?,
        );
        if hi == lo {
            return Some(a);
        }
        let t = ((bytes / *lo as f64).ln() / (*hi as f64 / *lo as f64).ln()).clamp(0.0, 1.0);
        Some(a + (b - a) * t)
    }

    /// Throughput the device profile expects at `depth` for a mix of requests
    /// given as `[class, requests, bytes]` size classes: the bytes over the
    /// time each class takes at its own mean size, rather than the throughput
    /// of reads all of the mean size.
    pub fn expected_mix_bandwidth(&self, depth: usize, classes: &[[u64; 3]]) -> Option<f64> {
        let mut bytes = 0.0;
        let mut secs = 0.0;
        for &[_, n, b] in classes {
            if n == 0 || b == 0 {
                continue;
            }
            let bw = self.expected_bandwidth(depth, b as f64 / n as f64)?;
            bytes += b as f64;
            secs += b as f64 / bw;
        }
        (secs > 0.0).then(|| bytes / secs)
    }

    /// Read throughput (bytes/s) the profile expects at `depth` for
    /// `size`-byte requests, interpolating between measured depths.
    pub fn expected_read_bandwidth(&self, depth: usize, size: usize) -> Option<f64> {
        let mut pts: Vec<&Point> = self
            .points
            .iter()
            .filter(|p| p.op == "read" && p.size == size)
            .collect();
        pts.sort_by_key(|p| p.depth);
        let first = pts.first()?;
        if depth <= first.depth {
            return Some(first.bandwidth);
        }
        for w in pts.windows(2) {
            if depth >= w[0].depth && depth <= w[1].depth {
                let t = (depth as f64).log2() - (w[0].depth as f64).log2();
                let span = (w[1].depth as f64).log2() - (w[0].depth as f64).log2();
                return Some(w[0].bandwidth + (w[1].bandwidth - w[0].bandwidth) * t / span);
            }
        }
        pts.last().map(|p| p.bandwidth)
    }
}

/// Measures one point: `depth` requests of `size` bytes in flight at random
/// 4 KiB-aligned offsets of the whole file for `seconds`.
pub fn measure(
    file: &Arc<IoFile>,
    write: bool,
    depth: usize,
    size: usize,
    seconds: f64,
    seed: u64,
) -> Result<Point> {
    measure_range(
        file,
        0..file.len(),
        false,
        write,
        depth,
        size,
        seconds,
        seed,
    )
}

/// As [`measure`], with every request inside `range` (4 KiB-aligned
/// start); `sequential` reads consecutive requests from the start of the
/// range, wrapping around at its end (as fio's time-based sequential jobs
/// do), instead of random ones.
#[allow(clippy::too_many_arguments)]
pub fn measure_range(
    file: &Arc<IoFile>,
    range: std::ops::Range<u64>,
    sequential: bool,
    write: bool,
    depth: usize,
    size: usize,
    seconds: f64,
    seed: u64,
) -> Result<Point> {
    let base = range.start;
    let room = range.end.saturating_sub(range.start);
    if room < size as u64 || !base.is_multiple_of(4096) {
        return Err(Error::Invalid(format!(
            "{}: bytes {}..{} cannot hold aligned {size}-byte requests",
            file.path().display(),
            range.start,
            range.end
        )));
    }
    let span = (room - size as u64) / 4096 + 1;
    let bufs: Vec<AlignedBuf> = (0..depth)
        .map(|_| AlignedBuf::new(size, 4096))
        .collect::<Result<_>>()?;
    let mut reader = file.reader(depth, None)?;
    let mut rng = Rng::new(seed, depth as u64 * 1000 + size as u64 / 4096);
    let mut started = vec![Instant::now(); depth];
    let mut lat: Vec<u32> = Vec::new();
    let mut done: Vec<Done> = Vec::with_capacity(depth);
    let warmup = Duration::from_secs_f64((seconds * 0.1).min(0.05));
    let t0 = Instant::now();
    let (mut measuring, mut count, mut t_start) = (false, 0u64, t0);
    let end = t0 + warmup + Duration::from_secs_f64(seconds);
    let submit = |r: &mut super::Reader,
                  i: usize,
                  rng: &mut Rng,
                  st: &mut Vec<Instant>,
                  cursor: &mut u64|
     -> Result<()> {
        let off = if sequential {
            let o = *cursor;
            *cursor = if o + 2 * size as u64 > room {
                0
            } else {
                o + size as u64
            };
            base + o
        } else {
            base + rng.below(span) * 4096
        };
        let b = [IoBuf {
            ptr: bufs[i].as_ptr(),
            len: size,
        }];
        st[i] = Instant::now();
        // SAFETY: buffer i is lent until its Done (tag i) comes back; the
        // buffers outlive the reader, which drains in-flight work on drop.
        unsafe {
            if write {
                r.write(off, &b, i as u64)
            } else {
                r.read(off, &b, i as u64)
            }
        }
    };
    let mut cursor = 0u64;
    for i in 0..depth {
        submit(&mut reader, i, &mut rng, &mut started, &mut cursor)?;
    }
    reader.flush()?;
    loop {
        done.clear();
        reader.wait(&mut done, 1)?;
        let now = Instant::now();
        if !measuring && now >= t0 + warmup {
            measuring = true;
            t_start = now;
        }
        for d in done.drain(..) {
            d.result?;
            let i = d.tag as usize;
            if measuring {
                count += 1;
                lat.push((now - started[i]).as_micros().min(u32::MAX as u128) as u32);
            }
            if now < end {
                submit(&mut reader, i, &mut rng, &mut started, &mut cursor)?;
            }
        }
        if reader.in_flight() == 0 {
            break;
        }
    }
    let secs = (Instant::now() - t_start).as_secs_f64().max(1e-9);
    lat.sort_unstable();
    let mean = lat.iter().map(|&x| x as f64).sum::<f64>() / lat.len().max(1) as f64;
    let p99 = lat
        .get(((lat.len() as f64 * 0.99) as usize).min(lat.len().saturating_sub(1)))
        .copied()
        .unwrap_or(0);
    drop(reader);
    Ok(Point {
        op: if write { "write" } else { "read" }.into(),
        depth,
        size,
        iops: count as f64 / secs,
        bandwidth: count as f64 * size as f64 / secs,
        mean_us: mean,
        p99_us: p99 as f64,
        repeats: 1,
        spread: 0.0,
    })
}

/// Where the plateau starts: the smallest x from which every value
/// reaches `KNEE` of the peak, where the peak is the median of the three
/// largest values (one lucky measurement on a noisy machine must not set
/// it). A first crossing followed by a dip (noise, or a device that
/// stalls at some depth) does not count: the figure must stay up.
fn knee(points: &[(usize, f64)]) -> usize {
    let mut ys: Vec<f64> = points.iter().map(|p| p.1).collect();
    ys.sort_by(|a, b| b.total_cmp(a));
    let peak = match ys.len() {
        0 => return 1,
        1 | 2 => ys[0],
        _ => ys[1],
    };
    // The start of the last run of points over the line (a device that
    // stalls when over-driven ends below it: its plateau is the run
    // before).
    let up = |p: &(usize, f64)| p.1 >= KNEE * peak;
    let Some(last) = points.iter().rposition(up) else {
        return 1;
    };
    let start = points[..last]
        .iter()
        .rposition(|p| !up(p))
        .map_or(0, |i| i + 1);
    points[start].0
}

/// Creates the scratch file: `size` bytes of random data written with
/// O_DIRECT in 1 MiB requests, then fdatasync'd.
fn create_scratch(path: &Path, size: u64, io: &IoOptions) -> Result<Arc<IoFile>> {
    std::fs::File::create(path).map_err(|e| Error::io(path, "create scratch file", e))?;
    let mut opts = io.clone();
    opts.write = true;
    opts.faults = None;
    let file = IoFile::open(path, &opts)?;
    const REQ: usize = 1 << 20;
    const DEPTH: usize = 8;
    let mut bufs: Vec<AlignedBuf> = (0..DEPTH)
        .map(|_| AlignedBuf::new(REQ, 4096))
        .collect::<Result<_>>()?;
    let mut rng = Rng::new(0x9e37, 1);
    for b in &mut bufs {
        for c in b.as_mut_slice().chunks_exact_mut(8) {
            c.copy_from_slice(&rng.next_u64().to_le_bytes());
        }
    }
    let mut w = file.reader(DEPTH, None)?;
    let mut free: Vec<usize> = (0..DEPTH).collect();
    let mut off = 0u64;
    let mut done = Vec::new();
    let size = size / REQ as u64 * REQ as u64;
    while off < size || w.in_flight() > 0 {
        while off < size {
            let Some(i) = free.pop() else { break };
            // SAFETY: buffer i is lent until its Done; bufs outlive `w`.
            unsafe {
                w.write(
                    off,
                    &[IoBuf {
                        ptr: bufs[i].as_ptr(),
                        len: REQ,
                    }],
                    i as u64,
                )?
            };
            off += REQ as u64;
        }
        w.flush()?;
        done.clear();
        w.wait(&mut done, 1)?;
        for d in done.drain(..) {
            d.result?;
            free.push(d.tag as usize);
        }
    }
    drop(w);
    file.sync()?;
    IoFile::open(path, &opts)
}

/// Removes the scratch file when dropped.
struct Scratch(PathBuf);
impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.0);
    }
}

/// Runs a profile; `progress(done, total, what)` is called per point.
pub fn run(cfg: &ProfileConfig, mut progress: impl FnMut(usize, usize, &str)) -> Result<Profile> {
    let device = super::system::device_of(&cfg.dir).map_err(|e| Error::io(&cfg.dir, "stat", e))?;
    let path = cfg
        .dir
        .join(format!(".grotto-profile-{}.tmp", std::process::id()));
    let _guard = Scratch(path.clone());
    progress(0, 1, "writing scratch file");
    let file = create_scratch(&path, cfg.size, &cfg.io)?;
    let secs = cfg.seconds_per_point;
    let reps = cfg.repeats.max(1);
    let total = reps * if cfg.quick { 9 + 8 + 9 } else { 9 * 9 * 2 };
    let mut n = 0;
    // Measures every (write, depth, size) of `plan` `reps` times, sweep
    // after sweep, and adds each point's median to `points`.
    let mut sweep = |points: &mut Vec<Point>, plan: &[(bool, usize, usize)]| -> Result<()> {
        let mut got: Vec<Vec<Point>> = vec![Vec::new(); plan.len()];
        for r in 0..reps {
            for (i, &(write, d, s)) in plan.iter().enumerate() {
                n += 1;
                progress(
                    n,
                    total,
                    &format!(
                        "{} depth {d} size {}K (repeat {} of {reps})",
                        if write { "write" } else { "read" },
                        s / 1024,
                        r + 1
                    ),
                );
                got[i].push(measure(&file, write, d, s, secs, n as u64)?);
            }
        }
        points.extend(got.iter().filter_map(|m| combine(m)));
        Ok(())
    };
    let mut points: Vec<Point> = Vec::new();
    if cfg.quick {
        let depths: Vec<_> = DEPTHS.iter().map(|&d| (false, d, 4096)).collect();
        sweep(&mut points, &depths)?;
        let k_r = knee(&series(
            &points,
            "read",
            |p| p.size == 4096,
            |p| p.depth,
            |p| p.iops,
        ));
        let sizes: Vec<_> = SIZES
            .iter()
            .filter(|&&s| s != 4096)
            .map(|&s| (false, k_r, s))
            .collect();
        sweep(&mut points, &sizes)?;
        let writes: Vec<_> = DEPTHS.iter().map(|&d| (true, d, 4096)).collect();
        sweep(&mut points, &writes)?;
    } else {
        let mut plan = Vec::new();
        for write in [false, true] {
            for s in SIZES {
                for d in DEPTHS {
                    plan.push((write, d, s));
                }
            }
        }
        sweep(&mut points, &plan)?;
    }
    derive(device, cfg, &file, points)
}

fn series(
    points: &[Point],
    op: &str,
    keep: impl Fn(&Point) -> bool,
    x: impl Fn(&Point) -> usize,
    y: impl Fn(&Point) -> f64,
) -> Vec<(usize, f64)> {
    let mut v: Vec<(usize, f64)> = points
        .iter()
        .filter(|p| p.op == op && keep(p))
        .map(|p| (x(p), y(p)))
        .collect();
    v.sort_by_key(|p| p.0);
    v
}

fn derive(
    device: super::system::DeviceId,
    cfg: &ProfileConfig,
    file: &Arc<IoFile>,
    points: Vec<Point>,
) -> Result<Profile> {
    let reads = series(&points, "read", |p| p.size == 4096, |p| p.depth, |p| p.iops);
    let writes = series(
        &points,
        "write",
        |p| p.size == 4096,
        |p| p.depth,
        |p| p.iops,
    );
    let k_r = knee(&reads);
    let k_w = knee(&writes);
    let peak = |s: &[(usize, f64)]| s.iter().map(|p| p.1).fold(0.0, f64::max);
    let alpha = if peak(&writes) > 0.0 {
        peak(&reads) / peak(&writes)
    } else {
        0.0
    };
    let merge = knee(&series(
        &points,
        "read",
        |p| p.depth == k_r,
        |p| p.size,
        |p| p.bandwidth,
    ));
    Ok(Profile {
        schema_version: 1,
        device,
        path: cfg.dir.clone(),
        created_unix: std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_secs()),
        backend: file.backend().name().into(),
        direct: file.direct(),
        file_bytes: file.len(),
        quick: cfg.quick,
        k_r,
        k_w,
        alpha,
        merge_bytes: merge.max(4096),
        points,
    })
}

/// Where profiles are stored: `$GROTTO_PROFILE_DIR`, else
/// `$XDG_CONFIG_HOME/grotto/profiles`, else `~/.config/grotto/profiles`.
pub fn store_dir() -> PathBuf {
    if let Some(d) = std::env::var_os("GROTTO_PROFILE_DIR") {
        return PathBuf::from(d);
    }
    let base = std::env::var_os("XDG_CONFIG_HOME")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".config")))
        .unwrap_or_else(|| PathBuf::from("."));
    base.join("grotto").join("profiles")
}

/// Stores `p` under its device key (atomically); returns the file written.
pub fn save(p: &Profile) -> Result<PathBuf> {
    let dir = store_dir();
    std::fs::create_dir_all(&dir).map_err(|e| Error::io(&dir, "create directory", e))?;
    let path = dir.join(format!("{}.json", p.device.key()));
    let text = serde_json::to_string_pretty(p)
        .map_err(|e| Error::Invalid(format!("encode profile: {e}")))?;
    let mut tmp = tempfile::NamedTempFile::new_in(&dir)
        .map_err(|e| Error::io(&dir, "create temporary file", e))?;
    use std::io::Write;
    tmp.write_all(text.as_bytes())
        .and_then(|_| tmp.as_file().sync_all())
        .map_err(|e| Error::io(&path, "write", e))?;
    tmp.persist(&path)
        .map_err(|e| Error::io(&path, "rename", e.error))?;
    Ok(path)
}

/// The stored profile of the device holding `path`, with the file it came
/// from; `Ok(None)` when there is none.
pub fn load_for(path: &Path) -> Result<Option<(Profile, PathBuf)>> {
    let dev = super::system::device_of(path).map_err(|e| Error::io(path, "stat", e))?;
    let file = store_dir().join(format!("{}.json", dev.key()));
    let text = match std::fs::read_to_string(&file) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(Error::io(&file, "read", e)),
    };
    let p: Profile = serde_json::from_str(&text).map_err(|e| Error::BadInput {
        path: file.clone(),
        what: format!("not a grotto device profile ({e}); run `grotto profile` again"),
    })?;
    Ok(Some((p, file)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn knee_finds_first_point_near_peak() {
        let s = [
            (1, 10.0),
            (2, 30.0),
            (4, 80.0),
            (8, 91.0),
            (16, 100.0),
            (32, 99.0),
        ];
        assert_eq!(knee(&s), 8);
        // One outlier does not set the peak.
        let s = [
            (1, 10.0),
            (2, 50.0),
            (4, 91.0),
            (8, 100.0),
            (16, 99.0),
            (32, 180.0),
        ];
        assert_eq!(knee(&s), 4);
        assert_eq!(knee(&[(1, 5.0)]), 1);
        // A dip after the first crossing: the plateau starts after it.
        let s = [
            (1, 10.0),
            (2, 50.0),
            (4, 92.0),
            (8, 70.0),
            (16, 100.0),
            (32, 98.0),
            (64, 99.0),
        ];
        assert_eq!(knee(&s), 16);
        // Falling at the end (a device that stalls when over-driven):
        // the plateau before the fall.
        let s = [(1, 10.0), (2, 95.0), (4, 100.0), (8, 99.0), (16, 40.0)];
        assert_eq!(knee(&s), 2);
    }

    #[test]
    fn repeats_combine_into_medians_and_a_spread() {
        let m = |bw: f64, us: f64| Point {
            op: "read".into(),
            depth: 8,
            size: 4096,
            iops: bw / 4096.0,
            bandwidth: bw,
            mean_us: us,
            p99_us: 2.0 * us,
            repeats: 1,
            spread: 0.0,
        };
        let p = combine(&[m(100e6, 50.0), m(400e6, 10.0), m(120e6, 40.0)]).expect("a point");
        assert_eq!((p.bandwidth, p.mean_us, p.repeats), (120e6, 40.0, 3));
        assert!((p.spread - 2.5).abs() < 1e-12, "{}", p.spread);
        assert_eq!(combine(&[m(100e6, 50.0)]).expect("a point").spread, 0.0);
        assert!(combine(&[]).is_none());
    }

    fn two_point_profile() -> Profile {
        let point = |size: usize, bw: f64| {
            serde_json::json!({"op": "read", "depth": 32, "size": size, "iops": bw / size as f64,
                "bandwidth": bw, "mean_us": 100.0, "p99_us": 200.0})
        };
        serde_json::from_value(serde_json::json!({
            "schema_version": 1,
            "device": {"dev": "1:1", "disk": "test", "model": null},
            "path": "/tmp", "created_unix": 0, "backend": "io_uring", "direct": true,
            "file_bytes": 1, "quick": true, "k_r": 32, "k_w": 32, "alpha": 1.0,
            "merge_bytes": 131072,
            "points": [point(4096, 400e6), point(131072, 1600e6)],
        }))
        .expect("a valid profile record")
    }

    #[test]
    fn a_mix_expects_the_time_of_each_class_at_its_own_size() {
        let p = two_point_profile();
        // Equal bytes in 4 KiB and 128 KiB reads: 1.024 s at 400 MB/s for
        // the first half plus 0.256 s for the second, 640 MB/s overall.
        let mix = [[4096, 100_000, 409_600_000], [131072, 3125, 409_600_000]];
        let e = p.expected_mix_bandwidth(32, &mix).expect("an expectation");
        let want = 2.0 * 409.6e6 / (409.6e6 / 400e6 + 409.6e6 / 1600e6);
        assert!((e - want).abs() / want < 1e-9, "{e} vs {want}");
        // One class alone is that class's profiled throughput.
        let one = p
            .expected_mix_bandwidth(32, &mix[..1])
            .expect("an expectation");
        assert!((one - 400e6).abs() < 1.0);
        assert!((e - 640e6).abs() < 1.0);
        assert!(p.expected_mix_bandwidth(32, &[]).is_none());
    }
}
