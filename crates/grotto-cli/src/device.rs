//! `grotto profile` and `grotto doctor`: what the device and the machine
//! can do, measured and stored for `run` and `bench`.

use crate::plot::{svg, Chart, Series};
use crate::{parse_size, Ctx, SCHEMA_VERSION};
use anyhow::Context;
use clap::Args;
use grotto::io::profile::{self, Profile, ProfileConfig, DEPTHS, SIZES};
use grotto::io::{system, uring_status, BackendChoice, IoOptions};
use serde_json::json;
use std::io::IsTerminal;
use std::path::{Path, PathBuf};

/// Flags of `grotto profile`.
#[derive(Args)]
pub struct ProfileArgs {
    /// Directory on the device to measure; a scratch file is created there and removed.
    #[arg(long, default_value = ".")]
    path: PathBuf,
    /// Scratch file size (default 4GiB, 1GiB with --quick).
    #[arg(long, value_parser = parse_size)]
    size: Option<u64>,
    /// Only the points the derivation needs, briefly (under 30 s).
    #[arg(long)]
    quick: bool,
    /// Seconds per measured point and repeat (default 0.3, 0.2 with --quick).
    #[arg(long)]
    seconds: Option<f64>,
    /// Times each point is measured, in whole sweeps one after the other; a point's figures are the medians, and the spread is reported (default 3, 2 with --quick).
    #[arg(long)]
    repeats: Option<usize>,
    /// Draw throughput and latency curves to this SVG file.
    #[arg(long)]
    plot: Option<PathBuf>,
    /// I/O backend: auto, uring or pread (memory is refused: it cannot write the scratch file).
    #[arg(long, default_value = "auto")]
    io: BackendChoice,
    /// Do not store the profile.
    #[arg(long)]
    no_save: bool,
}

pub fn profile_cmd(ctx: &Ctx, a: ProfileArgs) -> anyhow::Result<()> {
    if let Some(p) = &a.plot {
        if p.extension().is_none_or(|e| e != "svg") {
            anyhow::bail!(
                "--plot {}: grotto draws SVG; give a file name ending in .svg",
                p.display()
            );
        }
    }
    let mut cfg = ProfileConfig::new(&a.path, a.quick);
    if let Some(s) = a.size {
        if s < 16 << 20 {
            anyhow::bail!(grotto::Error::Invalid(format!(
                "--size {}: the scratch file needs at least 16 MiB",
                grotto::metrics::human(s)
            )));
        }
        cfg.size = s;
    }
    // Arguments first: the free space check depends on the machine.
    if let Some(s) = a.seconds {
        if !(0.02..=60.0).contains(&s) {
            anyhow::bail!(grotto::Error::Invalid(format!(
                "--seconds {s}: between 0.02 and 60 per point"
            )));
        }
        cfg.seconds_per_point = s;
    }
    if let Some(r) = a.repeats {
        if !(1..=20).contains(&r) {
            anyhow::bail!(grotto::Error::Invalid(format!(
                "--repeats {r}: between 1 and 20"
            )));
        }
        cfg.repeats = r;
    }
    if let Some(free) = grotto::io::system::free_disk_bytes(&a.path) {
        if cfg.size > free {
            anyhow::bail!(grotto::Error::Limit {
                what: format!(
                    "--size {}: the scratch file does not fit the {} free under {}",
                    grotto::metrics::human(cfg.size),
                    grotto::metrics::human(free),
                    a.path.display()
                )
            });
        }
    }
    cfg.io = IoOptions {
        backend: a.io,
        ..IoOptions::default()
    };
    let show = !ctx.quiet && !ctx.json && std::io::stderr().is_terminal();
    let p = profile::run(&cfg, |i, n, what| {
        if show {
            eprint!("\r\x1b[2Kprofiling {i}/{n}: {what}");
        }
    })
    .with_context(|| format!("profiling the device under {}", a.path.display()))?;
    if show {
        eprint!("\r\x1b[2K");
    }
    let saved = if a.no_save {
        None
    } else {
        Some(profile::save(&p)?)
    };
    if let Some(path) = &a.plot {
        std::fs::write(path, svg(&charts(&p), 2))
            .with_context(|| format!("writing {}", path.display()))?;
    }
    if ctx.json {
        let mut v = serde_json::to_value(&p)?;
        v["schema_version"] = json!(SCHEMA_VERSION);
        v["command"] = json!("profile");
        v["saved_to"] = json!(saved);
        println!("{v}");
    } else if !ctx.quiet {
        print_profile(&p);
        if let Some(s) = saved {
            println!(
                "saved to {} (used by run and bench on this device)",
                s.display()
            );
        }
        if let Some(path) = &a.plot {
            println!("curves drawn to {}", path.display());
        }
    }
    Ok(())
}

fn mb(x: f64) -> String {
    format!("{:.0}", x / 1e6)
}

pub fn print_profile(p: &Profile) {
    println!(
        "device {} ({}{}), backend {}, {}, scratch file {} MiB{}",
        p.device.disk.as_deref().unwrap_or("?"),
        p.device.dev,
        p.device
            .model
            .as_deref()
            .map(|m| format!(", {m}"))
            .unwrap_or_default(),
        p.backend,
        if p.direct {
            "O_DIRECT"
        } else {
            "buffered (O_DIRECT refused)"
        },
        p.file_bytes >> 20,
        if p.quick { ", quick" } else { "" }
    );
    for op in ["read", "write"] {
        println!("\nrandom 4 KiB {op}s");
        println!(
            "  {:>5} {:>10} {:>8} {:>10} {:>10} {:>7}",
            "depth", "IOPS", "MB/s", "mean us", "p99 us", "spread"
        );
        for d in DEPTHS {
            if let Some(x) = p.point(op, d, 4096) {
                println!(
                    "  {:>5} {:>10.0} {:>8} {:>10.0} {:>10.0} {:>6.0}%",
                    d,
                    x.iops,
                    mb(x.bandwidth),
                    x.mean_us,
                    x.p99_us,
                    x.spread * 100.0
                );
            }
        }
    }
    let sized: Vec<usize> = DEPTHS
        .iter()
        .copied()
        .filter(|&d| {
            SIZES
                .iter()
                .any(|&s| s > 4096 && p.point("read", d, s).is_some())
        })
        .collect();
    if !sized.is_empty() {
        println!("\nrandom read bandwidth, MB/s (rows: request size, columns: depth)");
        print!("  {:>6}", "size");
        for d in &sized {
            print!(" {d:>6}");
        }
        println!();
        for s in SIZES {
            print!("  {:>5}K", s / 1024);
            for &d in &sized {
                match p.point("read", d, s) {
                    Some(x) => print!(" {:>6}", mb(x.bandwidth)),
                    None => print!(" {:>6}", "-"),
                }
            }
            println!();
        }
    }
    let mut spreads: Vec<&grotto::io::profile::Point> = p.points.iter().collect();
    spreads.sort_by(|a, b| a.spread.total_cmp(&b.spread));
    let reps = p.points.iter().map(|x| x.repeats).max().unwrap_or(1);
    if let (true, Some(worst)) = (reps > 1, spreads.last()) {
        println!(
            "\neach point measured {reps} times (medians shown); bandwidth spread (largest - smallest) / median: median {:.0}%, worst {:.0}% ({} depth {}, {} KiB)",
            spreads[spreads.len() / 2].spread * 100.0,
            worst.spread * 100.0,
            worst.op,
            worst.depth,
            worst.size / 1024
        );
    }
    println!(
        "\nk_r = {} (read concurrency: where 4 KiB read IOPS reach 90% of the peak and stay), k_w = {} (write concurrency, likewise), alpha = {:.2} (write cost in reads), merge size = {} KiB",
        p.k_r,
        p.k_w,
        p.alpha,
        p.merge_bytes / 1024
    );
    println!(
        "engines use {} reads in flight and merges up to {} KiB (at least 32 reads, 128 to 256 KiB, whatever the profile says)",
        p.engine_concurrency(),
        p.engine_merge_bytes() / 1024
    );
}

fn charts(p: &Profile) -> Vec<Chart> {
    let by_depth = |op: &str, size: usize, y: &dyn Fn(&profile::Point) -> f64| -> Vec<(f64, f64)> {
        DEPTHS
            .iter()
            .filter_map(|&d| p.point(op, d, size).map(|x| (d as f64, y(x))))
            .collect()
    };
    let mut tput = Vec::new();
    for s in SIZES {
        let pts = by_depth("read", s, &|x| x.bandwidth / 1e6);
        if pts.len() > 1 {
            tput.push(Series {
                name: format!("read {}K", s / 1024),
                points: pts,
            });
        }
    }
    let wr = by_depth("write", 4096, &|x| x.bandwidth / 1e6);
    if !wr.is_empty() {
        tput.push(Series {
            name: "write 4K".into(),
            points: wr,
        });
    }
    let iops = vec![
        Series {
            name: "read 4K".into(),
            points: by_depth("read", 4096, &|x| x.iops),
        },
        Series {
            name: "write 4K".into(),
            points: by_depth("write", 4096, &|x| x.iops),
        },
    ];
    let lat = vec![
        Series {
            name: "read mean".into(),
            points: by_depth("read", 4096, &|x| x.mean_us),
        },
        Series {
            name: "read p99".into(),
            points: by_depth("read", 4096, &|x| x.p99_us),
        },
        Series {
            name: "write mean".into(),
            points: by_depth("write", 4096, &|x| x.mean_us),
        },
        Series {
            name: "write p99".into(),
            points: by_depth("write", 4096, &|x| x.p99_us),
        },
    ];
    let at_kr: Vec<(f64, f64)> = SIZES
        .iter()
        .filter_map(|&s| {
            p.point("read", p.k_r, s)
                .map(|x| (s as f64 / 1024.0, x.bandwidth / 1e6))
        })
        .collect();
    vec![
        Chart {
            title: format!("4 KiB random IOPS (k_r = {}, k_w = {})", p.k_r, p.k_w),
            x_label: "queue depth".into(),
            y_label: "IOPS".into(),
            log_x: true,
            log_y: false,
            series: iops,
        },
        Chart {
            title: "4 KiB latency".into(),
            x_label: "queue depth".into(),
            y_label: "microseconds".into(),
            log_x: true,
            log_y: true,
            series: lat,
        },
        Chart {
            title: "random read throughput".into(),
            x_label: "queue depth".into(),
            y_label: "MB/s".into(),
            log_x: true,
            log_y: false,
            series: tput,
        },
        Chart {
            title: format!(
                "read bandwidth at depth k_r = {} (merge size {} KiB)",
                p.k_r,
                p.merge_bytes / 1024
            ),
            x_label: "request size (KiB)".into(),
            y_label: "MB/s".into(),
            log_x: true,
            log_y: false,
            series: vec![Series {
                name: format!("depth {}", p.k_r),
                points: at_kr,
            }],
        },
    ]
}

/// Flags of `grotto doctor`.
#[derive(Args)]
pub struct DoctorArgs {
    /// Directory whose device to check.
    #[arg(long, default_value = ".")]
    path: PathBuf,
}

pub fn doctor(ctx: &Ctx, a: DoctorArgs) -> anyhow::Result<()> {
    let uring = match uring_status() {
        Ok(()) => (true, "available".to_string()),
        Err((_, why)) => (false, why.clone()),
    };
    let sysctl = system::io_uring_sysctl();
    let memlock = system::memlock_limit();
    let align = system::dio_alignment(&a.path);
    let direct = probe_direct(&a.path);
    let device = system::device_of(&a.path).ok();
    let prof = profile::load_for(&a.path);
    let lim = |v: u64| {
        if v == u64::MAX {
            "unlimited".to_string()
        } else {
            format!("{} KiB", v / 1024)
        }
    };
    if ctx.json {
        let (p, pf) = match &prof {
            Ok(Some((p, f))) => (
                Some(
                    json!({"k_r": p.k_r, "k_w": p.k_w, "alpha": p.alpha, "merge_bytes": p.merge_bytes, "created_unix": p.created_unix}),
                ),
                Some(f.clone()),
            ),
            _ => (None, None),
        };
        println!(
            "{}",
            json!({
                "schema_version": SCHEMA_VERSION, "command": "doctor",
                "kernel": system::kernel_release(),
                "io_uring": {"available": uring.0, "reason": uring.1, "sysctl_io_uring_disabled": sysctl},
                "memlock": memlock.map(|m| json!({"soft": m.0, "hard": m.1})),
                "path": a.path, "direct_io": direct.as_ref().map(|_| true).unwrap_or(false),
                "direct_io_error": direct.as_ref().err().map(|e| e.to_string()),
                "dio_alignment": align, "device": device,
                "profile": p, "profile_file": pf, "profile_dir": profile::store_dir(),
                "cores": std::thread::available_parallelism().map(|n| n.get()).unwrap_or(1),
                "available_memory_bytes": grotto::metrics::available_memory_bytes(),
            })
        );
        return Ok(());
    }
    if ctx.quiet {
        return Ok(());
    }
    println!("kernel            {}", system::kernel_release());
    println!(
        "io_uring          {}{}",
        if uring.0 {
            "available"
        } else {
            "UNAVAILABLE: "
        },
        if uring.0 {
            String::new()
        } else {
            uring.1.clone()
        }
    );
    if let Some(s) = sysctl {
        println!("  kernel.io_uring_disabled = {s}");
    }
    match memlock {
        Some((s, h)) => println!(
            "memlock limit     soft {}, hard {} (registered buffers need it, unless root)",
            lim(s),
            lim(h)
        ),
        None => println!("memlock limit     unknown"),
    }
    println!("path              {}", a.path.display());
    match &direct {
        Ok(()) => println!("O_DIRECT          works"),
        Err(e) => println!("O_DIRECT          FAILS: {e}"),
    }
    match align {
        Some(x) => println!("direct-I/O align  {x} bytes (statx)"),
        None => println!("direct-I/O align  not reported; 4096 assumed"),
    }
    if let Some(d) = &device {
        println!(
            "device            {} ({}){}",
            d.disk.as_deref().unwrap_or("?"),
            d.dev,
            d.model
                .as_deref()
                .map(|m| format!(", {m}"))
                .unwrap_or_default()
        );
    }
    match prof {
        Ok(Some((p, f))) => println!(
            "profile           {}: k_r {}, k_w {}, alpha {:.2}, merge size {} KiB{}",
            f.display(),
            p.k_r,
            p.k_w,
            p.alpha,
            p.merge_bytes / 1024,
            if p.quick { " (quick)" } else { "" }
        ),
        Ok(None) => println!(
            "profile           none stored in {}; run `grotto profile --path {}`",
            profile::store_dir().display(),
            a.path.display()
        ),
        Err(e) => println!("profile           unreadable: {e}"),
    }
    println!(
        "cores             {}",
        std::thread::available_parallelism()
            .map(|n| n.get())
            .unwrap_or(1)
    );
    Ok(())
}

fn probe_direct(dir: &Path) -> anyhow::Result<()> {
    let f = tempfile::Builder::new()
        .prefix(".grotto-doctor")
        .tempfile_in(dir)?;
    grotto::io::IoFile::open(
        f.path(),
        &IoOptions {
            backend: BackendChoice::Pread,
            ..IoOptions::default()
        },
    )
    .map_err(anyhow::Error::from)
    .and_then(|io| {
        if io.direct() {
            Ok(())
        } else {
            anyhow::bail!("{}", io.notes().join("; "))
        }
    })
}
