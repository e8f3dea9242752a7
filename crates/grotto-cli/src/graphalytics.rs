//! `grotto graphalytics`: an LDBC Graphalytics dataset run as the
//! benchmark runs it. The dataset's properties file names its vertex and
//! edge files, whether it is directed, its weights, the algorithms to run
//! and their parameters; grotto converts the dataset, runs each kernel
//! with Graphalytics' semantics, writes each output in Graphalytics' form
//! (`NAME-ALGO`, `id value` lines) and, with `--validate`, compares them
//! with reference outputs by Graphalytics' rules (BFS and CDLP exact,
//! PageRank, LCC and SSSP within 1e-4 relative, WCC equal up to a
//! relabelling).

use crate::Ctx;
use grotto::algo::output::Format;
use grotto::algo::registry::{self, Params};
use grotto::engine::{Engine, EngineConfig};
use grotto::ingest::{convert, ConvertOptions, Input};
use grotto::io::output::{Output, Streams};
use grotto::store::Graph;
use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Instant;

/// Arguments of `grotto graphalytics`.
#[derive(clap::Args, Debug)]
pub(crate) struct GraphalyticsArgs {
    /// The dataset's properties file (NAME.properties; its vertex and edge files are found beside it).
    properties: PathBuf,
    /// Directory for the converted graph (NAME.grotto) and the outputs (NAME-BFS, NAME-PR, ...).
    #[arg(long)]
    out: PathBuf,
    /// Compare each output with REFDIR/NAME-ALGO by Graphalytics' rules; exit 1 if any differs or is missing.
    #[arg(long, value_name = "REFDIR")]
    validate: Option<PathBuf>,
    /// Run only these algorithms (comma-separated Graphalytics names: bfs, cdlp, lcc, pr, sssp, wcc) [default: the properties file's list].
    #[arg(long, value_delimiter = ',')]
    algorithms: Option<Vec<String>>,
}

/// A properties file: `key = value` lines, `#` comments.
fn read_properties(path: &Path) -> grotto::Result<HashMap<String, String>> {
    let text = std::fs::read_to_string(path).map_err(|e| grotto::Error::io(path, "read", e))?;
    let mut map = HashMap::new();
    for (i, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') || line.starts_with('!') {
            continue;
        }
        let Some((k, v)) = line.split_once(['=', ':']) else {
            return Err(grotto::Error::BadInput {
                path: path.to_path_buf(),
                what: format!("line {}: expected `key = value`, found {line:?}", i + 1),
            });
        };
        map.insert(k.trim().to_string(), v.trim().to_string());
    }
    Ok(map)
}

/// The dataset: its name and what its properties say.
struct Dataset {
    name: String,
    dir: PathBuf,
    props: HashMap<String, String>,
    path: PathBuf,
}

impl Dataset {
    fn open(path: &Path) -> grotto::Result<Dataset> {
        let props = read_properties(path)?;
        let name = path
            .file_stem()
            .and_then(|s| s.to_str())
            .map(str::to_string)
            .filter(|n| props.keys().any(|k| k.starts_with(&format!("graph.{n}."))))
            .or_else(|| {
                // The name as the keys give it, when the file is named otherwise.
                props
                    .keys()
                    .find_map(|k| k.strip_suffix(".edge-file"))
                    .and_then(|k| k.strip_prefix("graph."))
                    .map(str::to_string)
            })
            .ok_or_else(|| grotto::Error::BadInput {
                path: path.to_path_buf(),
                what: "names no dataset (no graph.NAME.edge-file key)".into(),
            })?;
        let dir = match path.parent() {
            Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
            _ => PathBuf::from("."),
        };
        Ok(Dataset {
            name,
            dir,
            props,
            path: path.to_path_buf(),
        })
    }

    fn get(&self, key: &str) -> Option<&str> {
        self.props
            .get(&format!("graph.{}.{key}", self.name))
            .map(String::as_str)
    }

    fn need(&self, key: &str) -> grotto::Result<&str> {
        self.get(key).ok_or_else(|| grotto::Error::BadInput {
            path: self.path.clone(),
            what: format!("no graph.{}.{key}", self.name),
        })
    }

    fn file(&self, key: &str) -> grotto::Result<PathBuf> {
        Ok(self.dir.join(self.need(key)?))
    }
}

/// How one Graphalytics kernel maps onto a grotto algorithm.
struct Kernel {
    /// Graphalytics' name (`bfs`), upper-cased in output names.
    name: &'static str,
    /// grotto's algorithm.
    algorithm: &'static str,
    /// Graphalytics' parameter and grotto's for it.
    params: &'static [(&'static str, &'static str)],
    /// How outputs compare.
    rule: Rule,
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Rule {
    Exact,
    Relative,
    Relabelled,
}

const KERNELS: &[Kernel] = &[
    Kernel {
        name: "bfs",
        algorithm: "bfs",
        params: &[("source-vertex", "source")],
        rule: Rule::Exact,
    },
    Kernel {
        name: "pr",
        algorithm: "pagerank",
        params: &[
            ("damping-factor", "damping"),
            ("num-iterations", "max-iterations"),
        ],
        rule: Rule::Relative,
    },
    Kernel {
        name: "wcc",
        algorithm: "wcc",
        params: &[],
        rule: Rule::Relabelled,
    },
    Kernel {
        name: "sssp",
        algorithm: "sssp",
        params: &[("source-vertex", "source")],
        rule: Rule::Relative,
    },
    Kernel {
        name: "cdlp",
        algorithm: "cdlp",
        params: &[("max-iterations", "iterations")],
        rule: Rule::Exact,
    },
    Kernel {
        name: "lcc",
        algorithm: "lcc",
        params: &[],
        rule: Rule::Relative,
    },
];

/// One output read back: id to value text.
fn read_output(path: &Path) -> grotto::Result<BTreeMap<String, String>> {
    let text = std::fs::read_to_string(path).map_err(|e| grotto::Error::io(path, "read", e))?;
    let mut m = BTreeMap::new();
    for (i, line) in text.lines().enumerate() {
        let mut it = line.split_whitespace();
        match (it.next(), it.next()) {
            (Some(id), Some(v)) => {
                m.insert(id.to_string(), v.to_string());
            }
            (None, _) => {}
            _ => {
                return Err(grotto::Error::BadInput {
                    path: path.to_path_buf(),
                    what: format!("line {}: expected `id value`", i + 1),
                })
            }
        }
    }
    Ok(m)
}

fn number(s: &str) -> Option<f64> {
    match s {
        "Infinity" | "inf" => Some(f64::INFINITY),
        "-Infinity" => Some(f64::NEG_INFINITY),
        _ => s.parse().ok(),
    }
}

/// Compares by `rule`; `Err` says the first difference.
fn compare(
    rule: Rule,
    got: &BTreeMap<String, String>,
    want: &BTreeMap<String, String>,
) -> Result<(), String> {
    if got.len() != want.len() {
        return Err(format!(
            "{} vertices, the reference has {}",
            got.len(),
            want.len()
        ));
    }
    let mut forward: HashMap<&str, &str> = HashMap::new();
    let mut backward: HashMap<&str, &str> = HashMap::new();
    for (id, w) in want {
        let Some(g) = got.get(id) else {
            return Err(format!("vertex {id} is missing"));
        };
        let ok = match rule {
            Rule::Exact => g == w || matches!((number(g), number(w)), (Some(a), Some(b)) if a == b),
            Rule::Relative => match (number(g), number(w)) {
                (Some(a), Some(b)) if a.is_infinite() || b.is_infinite() => a == b,
                (Some(a), Some(b)) => (a - b).abs() <= 1e-4 * b.abs().max(f64::MIN_POSITIVE),
                _ => false,
            },
            Rule::Relabelled => {
                *forward.entry(g.as_str()).or_insert(w.as_str()) == w.as_str()
                    && *backward.entry(w.as_str()).or_insert(g.as_str()) == g.as_str()
            }
        };
        if !ok {
            return Err(format!("vertex {id}: {g}, the reference says {w}"));
        }
    }
    Ok(())
}

pub(crate) fn graphalytics_cmd(ctx: &Ctx, a: GraphalyticsArgs) -> anyhow::Result<()> {
    let d = Dataset::open(&a.properties)?;
    std::fs::create_dir_all(&a.out)
        .map_err(|e| grotto::Error::io(&a.out, "create the output directory", e))?;
    let directed = match d.need("directed")? {
        "true" => true,
        "false" => false,
        x => {
            return Err(grotto::Error::BadInput {
                path: d.path.clone(),
                what: format!("graph.{}.directed is {x:?}, not true or false", d.name),
            }
            .into())
        }
    };
    let weighted = d
        .get("edge-properties.names")
        .is_some_and(|n| n.split(',').any(|x| x.trim() == "weight"));
    let asked: Vec<String> = match &a.algorithms {
        Some(v) => v.iter().map(|s| s.trim().to_lowercase()).collect(),
        None => d
            .need("algorithms")?
            .split(',')
            .map(|s| s.trim().to_lowercase())
            .filter(|s| !s.is_empty())
            .collect(),
    };
    for name in &asked {
        if !KERNELS.iter().any(|k| k.name == name) {
            return Err(grotto::Error::Invalid(format!(
                "{name:?} is no Graphalytics algorithm: use bfs, cdlp, lcc, pr, sssp or wcc"
            ))
            .into());
        }
    }

    // The dataset as a graph: the listed vertices and the edges, directed
    // with reverse edges (CDLP, LCC and WCC read both directions) or
    // undirected, weighted where the dataset has weights.
    let graph_path = a.out.join(format!("{}.grotto", d.name));
    let t = Instant::now();
    let opts = ConvertOptions {
        format: Some(grotto::ingest::Format::EdgeList),
        undirected: !directed,
        reverse: directed,
        weighted: Some(weighted),
        ignore_weights: !weighted,
        vertex_ids: Some(Arc::new(grotto::ingest::vertices::read_vertex_file(
            &d.file("vertex-file")?,
        )?)),
        threads: ctx.threads,
        ..ConvertOptions::default()
    };
    convert(&Input::path(&d.file("edge-file")?), &graph_path, &opts)?;
    let convert_s = t.elapsed().as_secs_f64();
    let g = Arc::new(Graph::open(&graph_path)?);
    if !ctx.quiet && !ctx.json {
        println!(
            "{}: {} vertices, {} edges ({}{}), converted in {convert_s:.2} s",
            d.name,
            g.vertex_count(),
            g.edge_count(),
            if directed { "directed" } else { "undirected" },
            if weighted { ", weighted" } else { "" }
        );
    }
    let mut rows = Vec::new();
    let mut failed = 0;
    for name in &asked {
        let k = KERNELS
            .iter()
            .find(|k| k.name == name)
            .ok_or_else(|| grotto::Error::Invalid(format!("unknown algorithm {name}")))?;
        let out_path = a.out.join(format!("{}-{}", d.name, k.name.to_uppercase()));
        let t = Instant::now();
        let ran = run_kernel(&d, k, &g, &out_path, ctx.threads);
        let secs = t.elapsed().as_secs_f64();
        let verdict = match (&ran, &a.validate) {
            (Err(e), _) => Err(e.to_string()),
            (Ok(()), None) => Ok("written".to_string()),
            (Ok(()), Some(refdir)) => {
                let want = refdir.join(format!("{}-{}", d.name, k.name.to_uppercase()));
                match (read_output(&out_path), read_output(&want)) {
                    (Ok(got), Ok(want)) => {
                        compare(k.rule, &got, &want).map(|()| "pass".to_string())
                    }
                    (Err(e), _) | (_, Err(e)) => Err(e.to_string()),
                }
            }
        };
        if verdict.is_err() {
            failed += 1;
        }
        rows.push((k.name, secs, verdict));
    }
    if ctx.json {
        let v: Vec<_> = rows
            .iter()
            .map(|(n, s, r)| serde_json::json!({"algorithm": n, "seconds": s, "ok": r.is_ok(), "result": match r { Ok(x) | Err(x) => x }}))
            .collect();
        println!(
            "{}",
            serde_json::json!({"schema_version": crate::SCHEMA_VERSION, "command": "graphalytics", "dataset": d.name, "graph": graph_path, "convert_seconds": convert_s, "algorithms": v})
        );
    } else if !ctx.quiet {
        println!("  {:<6} {:>9}  result", "algo", "seconds");
        for (n, s, r) in &rows {
            match r {
                Ok(x) => println!("  {n:<6} {s:>9.3}  {x}"),
                Err(x) => println!("  {n:<6} {s:>9.3}  FAIL: {x}"),
            }
        }
    }
    if failed > 0 {
        eprintln!("error: {failed} of {} algorithms failed", rows.len());
        std::process::exit(1);
    }
    Ok(())
}

/// Runs one kernel with the dataset's parameters and writes its output.
fn run_kernel(
    d: &Dataset,
    k: &Kernel,
    g: &Arc<Graph>,
    out: &Path,
    threads: usize,
) -> grotto::Result<()> {
    let a = registry::find(k.algorithm).ok_or_else(|| {
        grotto::Error::Invalid(format!(
            "{}: grotto has no {} yet",
            k.name.to_uppercase(),
            k.algorithm
        ))
    })?;
    let mut p = Params::new(a.params());
    for (theirs, ours) in k.params {
        let v = d.need(&format!("{}.{theirs}", k.name))?;
        p.set(ours, v)?;
    }
    if k.algorithm == "pagerank" {
        // Exactly the given iterations of the power (Jacobi) iteration
        // the specification defines: a tolerance no iteration meets.
        p.set("tolerance", "1e-300")?;
        p.set("method", "jacobi")?;
    }
    let cfg = EngineConfig {
        threads: threads.max(1),
        ..EngineConfig::default()
    };
    let plan = a.plan_for(None, g, &p)?;
    let e = Engine::open(plan.engine, g.clone(), cfg)?;
    let mut o = a.execute(&e, &plan, &p, false)?;
    let output = Output::create(out, &[], Streams::Allowed)?;
    o.table.write_to(output, Format::Graphalytics)
}
