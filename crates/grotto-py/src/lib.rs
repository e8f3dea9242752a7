//! `grotto._grotto`: the native half of the `grotto` Python package.
//!
//! It is thin on purpose. Graphs are opened, converted and run through
//! the library's own entry points; algorithms come from the library's
//! registry ([`grotto::algo::ALGORITHMS`]), so every algorithm the command
//! line offers is here too, with the same parameters. Work runs with the
//! interpreter released (other Python threads go on) on a thread of its
//! own, while the calling thread checks for Ctrl-C every 10 ms: an
//! interrupt stops the work at its next step ([`grotto::interrupt`]) and
//! raises `KeyboardInterrupt`, leaving no partial file; work already past
//! its commit point (an update's manifest, a finished file's rename)
//! finishes and returns as usual instead. Results come back
//! as NumPy arrays that own the result's memory (no copy). The Python
//! half (`python/grotto/__init__.py`) adds the friendly API.

use grotto::algo::output::Values;
use grotto::algo::registry::{self, EngineKind, Kind, Params};
use grotto::algo::{ALGORITHMS, NONE};
use grotto::cache::CacheSize;
use grotto::engine::Mode;
use grotto::io::BackendChoice;
use grotto::setup::{Prepared, RunSettings};
use grotto::store::names::Names;
use grotto::store::Graph;
use numpy::{PyArray1, PyReadonlyArray1};
use pyo3::create_exception;
use pyo3::exceptions::{PyException, PyKeyboardInterrupt};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList};
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

mod convert;
mod lists;
mod nx;
mod pieces;
mod update;
mod words;

create_exception!(
    _grotto,
    Error,
    PyException,
    "Every error grotto raises; its message names the file, line or option."
);
create_exception!(
    _grotto,
    InputError,
    Error,
    "Bad input: a malformed line, a missing column, an unknown vertex or option, an output that may not be written."
);
create_exception!(
    _grotto,
    CorruptGraphError,
    Error,
    "A graph file that is not one, is truncated, or fails its checks."
);
create_exception!(
    _grotto,
    IoError,
    Error,
    "The operating system failed a read or a write."
);
create_exception!(
    _grotto,
    VerifyError,
    Error,
    "A run's verifier (verify=True) found the result wrong."
);

/// The Python exception for a grotto error.
/// The message speaks Python (`source=7`, not `--source 7`).
pub(crate) fn py_err(e: grotto::Error) -> PyErr {
    use grotto::Error as E;
    let msg = words::python_words(&e.to_string());
    match e {
        E::Interrupted => PyKeyboardInterrupt::new_err(msg),
        E::NotAGraph { .. } | E::NewerVersion { .. } | E::Truncated { .. } | E::Corrupt { .. } => {
            CorruptGraphError::new_err(msg)
        }
        E::Io { .. } if !e.is_input_error() => IoError::new_err(msg),
        _ => InputError::new_err(msg),
    }
}

pub(crate) fn invalid(msg: String) -> PyErr {
    InputError::new_err(words::python_words(&msg))
}

/// Runs `work` on a thread of its own with the interpreter released,
/// checking for Ctrl-C every 10 ms; on an interrupt, asks the work to
/// stop, waits for it, and raises `KeyboardInterrupt`.
pub(crate) fn off_thread<T: Send>(
    py: Python<'_>,
    work: impl FnOnce() -> grotto::Result<T> + Send,
) -> PyResult<T> {
    off_thread_with(py, work, None)
}

/// [`off_thread_with`], or for `small` work with no progress to report,
/// the work run whole on grotto's one-thread pool
/// ([`grotto::small::one_thread`]) with the interpreter released:
/// starting a thread, or handing each parallel loop to the pool, costs
/// more than a run on a graph of ten vertices. Small work takes
/// milliseconds at most, so an interrupt waits for it: it is raised when
/// the call has returned (a loop of such calls stops at once).
pub(crate) fn maybe_off_thread<T: Send>(
    py: Python<'_>,
    small: bool,
    work: impl FnOnce() -> grotto::Result<T> + Send,
    progress: Option<ProgressTo<'_, '_>>,
) -> PyResult<T> {
    if !small || progress.is_some() {
        return off_thread_with(py, work, progress);
    }
    // A signal that comes meanwhile is left pending: Python raises it
    // after this call returns, in the caller's code, as for any call.
    py.detach(|| grotto::small::one_thread(work))
        .map_err(py_err)
}

/// Graphs this small run on the calling thread ([`maybe_off_thread`]):
/// the slowest kernel (betweenness) takes milliseconds on them.
pub(crate) fn small_graph(g: &Graph) -> bool {
    g.vertex_count() <= 1024 && g.edge_count() <= 16384
}

/// What a progress callable is told: (stage, total if known, done).
pub(crate) type Report = (String, Option<u64>, u64);

/// Where progress comes from (read on the calling thread) and the Python
/// callable it goes to.
type ProgressTo<'a, 'py> = (&'a dyn Fn() -> Option<Report>, &'a Bound<'py, PyAny>);

/// [`off_thread`] that also calls the Python callable `f` with what
/// `read()` says (stage, total, done) at each check and once at the end.
pub(crate) fn off_thread_with<T: Send>(
    py: Python<'_>,
    work: impl FnOnce() -> grotto::Result<T> + Send,
    progress: Option<ProgressTo<'_, '_>>,
) -> PyResult<T> {
    let report = || -> PyResult<()> {
        if let Some((read, f)) = progress {
            if let Some((stage, total, done)) = read() {
                f.call1((stage, total, done))?;
            }
        }
        Ok(())
    };
    std::thread::scope(|s| {
        // The work says when it ends (its sender dropping says so too, if
        // it panics), so a call returns as soon as its work is done, not
        // at the next 10 ms tick: a run on a small graph costs what the
        // run costs.
        let (ended, end) = std::sync::mpsc::channel::<()>();
        // (In a mutex: the wait runs with the interpreter released, which
        // needs what it touches to be shareable.)
        let end = std::sync::Mutex::new(end);
        let h = s.spawn(move || {
            let r = work();
            let _ = ended.send(());
            r
        });
        // Signals are checked every 10 ms (an interrupt that comes while
        // the work can still stop stops it), progress every 100 ms.
        let mut tick = 0u32;
        loop {
            let done = py.detach(|| {
                let end = end.lock().unwrap_or_else(|p| p.into_inner());
                !matches!(
                    end.recv_timeout(Duration::from_millis(10)),
                    Err(std::sync::mpsc::RecvTimeoutError::Timeout)
                )
            });
            if done {
                break;
            }
            tick += 1;
            let progress = || {
                if tick.is_multiple_of(10) {
                    report()
                } else {
                    Ok(())
                }
            };
            if let Err(e) = py.check_signals().and_then(|()| progress()) {
                grotto::interrupt::request();
                let r = py.detach(|| h.join());
                grotto::interrupt::clear();
                // Work past its commit point finishes, and then what it
                // did stands: the interrupt is not raised over a batch
                // that landed (a retry would apply it twice).
                return match r {
                    Ok(Ok(v)) => Ok(v),
                    Ok(Err(grotto::Error::Interrupted)) => Err(e),
                    Ok(Err(other)) => Err(py_err(other)),
                    Err(p) => std::panic::resume_unwind(p),
                };
            }
        }
        let r = match h.join() {
            Ok(r) => r.map_err(py_err),
            Err(p) => std::panic::resume_unwind(p),
        };
        // Ctrl-C in the last moments of finished work: the work stands,
        // so the interrupt is not raised over it.
        if r.is_ok() {
            if let Err(e) = py.check_signals() {
                if !e.is_instance_of::<PyKeyboardInterrupt>(py) {
                    return Err(e);
                }
            }
        }
        if r.is_ok() {
            report()?;
        }
        r
    })
}

/// A JSON value as Python objects (dict, list, str, int, float, bool,
/// None), built through the C API alone: no Python code runs, so no
/// pending signal is raised while the value is built.
pub(crate) fn json_to_py(py: Python<'_>, v: &serde_json::Value) -> PyResult<Py<PyAny>> {
    use serde_json::Value as J;
    Ok(match v {
        J::Null => py.None(),
        J::Bool(b) => b.into_pyobject(py)?.to_owned().into_any().unbind(),
        J::Number(n) => match (n.as_u64(), n.as_i64(), n.as_f64()) {
            (Some(u), _, _) => u.into_pyobject(py)?.into_any().unbind(),
            (_, Some(i), _) => i.into_pyobject(py)?.into_any().unbind(),
            (_, _, f) => f.unwrap_or(f64::NAN).into_pyobject(py)?.into_any().unbind(),
        },
        J::String(s) => s.into_pyobject(py)?.into_any().unbind(),
        J::Array(a) => {
            let l = PyList::empty(py);
            for x in a {
                l.append(json_to_py(py, x)?)?;
            }
            l.into_any().unbind()
        }
        J::Object(o) => {
            let d = PyDict::new(py);
            for (k, x) in o {
                d.set_item(k, json_to_py(py, x)?)?;
            }
            d.into_any().unbind()
        }
    })
}

/// A conversion's progress, written by the build and read by the
/// calling thread's checks: the stage (name, total) and the count done.
#[derive(Default)]
pub(crate) struct Tracker {
    stage: std::sync::Mutex<Option<(String, Option<u64>)>>,
    done: std::sync::atomic::AtomicU64,
}

impl Tracker {
    /// What to tell a progress callable now.
    fn read(&self) -> Option<Report> {
        let (stage, total) = self.stage.lock().ok().and_then(|s| s.clone())?;
        Some((
            stage,
            total,
            self.done.load(std::sync::atomic::Ordering::Relaxed),
        ))
    }
}

impl grotto::ingest::Progress for Tracker {
    fn stage(&self, name: &str, total: Option<u64>) {
        if let Ok(mut s) = self.stage.lock() {
            *s = Some((name.to_string(), total));
        }
        self.done.store(0, std::sync::atomic::Ordering::Relaxed);
    }
    fn set(&self, done: u64) {
        self.done.store(done, std::sync::atomic::Ordering::Relaxed);
    }
}

/// A result column: a NumPy array, or for vertex names a tuple
/// `("names", offsets, data, valid)` that the wrapper turns into strings
/// (int64 offsets into the UTF-8 `data`, and a bool array of rows that
/// name a vertex, or None when all do).
fn column<'py>(py: Python<'py>, v: Values) -> PyResult<Bound<'py, PyAny>> {
    Ok(match v {
        Values::U64(x) => PyArray1::from_vec(py, x).into_any(),
        Values::I64(x) => PyArray1::from_vec(py, x).into_any(),
        Values::F64(x) => PyArray1::from_vec(py, x).into_any(),
        Values::Name(names, vs) => {
            let (offsets, data, valid) = name_buffers(&names, &vs);
            (
                "names",
                PyArray1::from_vec(py, offsets),
                PyArray1::from_vec(py, data),
                valid.map(|v| PyArray1::from_vec(py, v)),
            )
                .into_pyobject(py)?
                .into_any()
        }
        // `Table::into_columns` gives the four kinds above only.
        _ => return Err(invalid("a result column of an unexpected kind".to_string())),
    })
}

/// The names of `vs` as Arrow-style buffers: offsets, bytes, and which
/// rows are valid (None when all are).
fn name_buffers(names: &Names, vs: &[u32]) -> (Vec<i64>, Vec<u8>, Option<Vec<bool>>) {
    let mut offsets = Vec::with_capacity(vs.len() + 1);
    let mut data = Vec::new();
    offsets.push(0i64);
    for &v in vs {
        if v != NONE {
            data.extend_from_slice(names.get(v).as_bytes());
        }
        offsets.push(data.len() as i64);
    }
    let valid = vs
        .contains(&NONE)
        .then(|| vs.iter().map(|&v| v != NONE).collect());
    (offsets, data, valid)
}

/// A list's weights as an array, when the graph is weighted.
type Weights<'py> = Option<Bound<'py, PyArray1<f32>>>;

/// A vertex's neighbours (user ids) and their weights, if any.
type Neighbours<'py> = (Bound<'py, PyArray1<u64>>, Weights<'py>);

/// A graph file opened for reading and for runs.
#[pyclass(module = "grotto._grotto", name = "Graph", frozen)]
struct PyGraph {
    graph: Arc<Graph>,
}

#[pymethods]
impl PyGraph {
    /// Vertices.
    #[getter]
    fn num_vertices(&self) -> u64 {
        self.graph.vertex_count()
    }

    /// Edges as stored (an undirected edge counts once).
    #[getter]
    fn num_edges(&self) -> u64 {
        self.graph.edge_count()
    }

    /// Whether edges have a direction.
    #[getter]
    fn directed(&self) -> bool {
        self.graph.directed()
    }

    /// Whether edges carry weights.
    #[getter]
    fn weighted(&self) -> bool {
        self.graph.weighted()
    }

    /// The file's path.
    #[getter]
    fn path(&self) -> PathBuf {
        self.graph.path().to_path_buf()
    }

    /// Whether the vertices have names (string ids).
    #[getter]
    fn has_names(&self) -> bool {
        self.graph.names().is_some()
    }

    /// Degrees of the vertices `ids` (user ids) in `direction` ("out",
    /// "in", or "both": in and out added, as networkx's `DiGraph.degree`).
    #[pyo3(signature = (ids, direction = "out"))]
    fn degree<'py>(
        &self,
        py: Python<'py>,
        ids: PyReadonlyArray1<'py, u64>,
        direction: &str,
    ) -> PyResult<Bound<'py, PyArray1<u64>>> {
        let g = &self.graph;
        g.load_order().map_err(py_err)?;
        let dirs = self.directions(direction)?;
        let d = self.degrees(ids.as_slice()?.iter().map(|&id| g.vertex_of(id)), &dirs)?;
        Ok(PyArray1::from_vec(py, d))
    }

    /// [`Self::degree`] of the vertices called `names`.
    #[pyo3(signature = (names, direction = "out"))]
    fn degree_named<'py>(
        &self,
        py: Python<'py>,
        names: Vec<String>,
        direction: &str,
    ) -> PyResult<Bound<'py, PyArray1<u64>>> {
        let g = &self.graph;
        g.load_order().map_err(py_err)?;
        let dirs = self.directions(direction)?;
        let d = self.degrees(names.iter().map(|n| g.vertex_named(n)), &dirs)?;
        Ok(PyArray1::from_vec(py, d))
    }

    /// Where each of the user ids `ids` is in a result's rows (its rank),
    /// -1 for an id that is no vertex.
    fn positions<'py>(
        &self,
        py: Python<'py>,
        ids: PyReadonlyArray1<'py, u64>,
    ) -> PyResult<Bound<'py, PyArray1<i64>>> {
        let g = &self.graph;
        let at = ids
            .as_slice()?
            .iter()
            .map(|&id| g.rank_of(id).map_or(-1, i64::from))
            .collect();
        Ok(PyArray1::from_vec(py, at))
    }

    /// [`Self::positions`] of the vertices called `names`.
    fn positions_named<'py>(
        &self,
        py: Python<'py>,
        names: Vec<String>,
    ) -> PyResult<Bound<'py, PyArray1<i64>>> {
        let g = &self.graph;
        let at = names
            .iter()
            .map(|n| g.rank_named(n).map_or(-1, i64::from))
            .collect();
        Ok(PyArray1::from_vec(py, at))
    }

    /// Neighbours of user id `id` in `direction` ("out", "in" or "both",
    /// see [`Self::read_list`]; user ids) and their weights (None for an
    /// unweighted graph), read from disk.
    #[pyo3(signature = (id, direction = "out"))]
    fn neighbors<'py>(
        &self,
        py: Python<'py>,
        id: u64,
        direction: &str,
    ) -> PyResult<Neighbours<'py>> {
        let g = &self.graph;
        g.load_order().map_err(py_err)?;
        let dirs = self.directions(direction)?;
        let v = g.vertex_of(id).map_err(py_err)?;
        let (ids, weights) = self.read_list(py, v, &dirs)?;
        let users: Vec<u64> = ids.iter().map(|&u| g.original_id(u)).collect();
        Ok((PyArray1::from_vec(py, users), weights))
    }

    /// [`Self::neighbors`] of the vertex called `name` (their names).
    #[pyo3(signature = (name, direction = "out"))]
    fn neighbors_named<'py>(
        &self,
        py: Python<'py>,
        name: &str,
        direction: &str,
    ) -> PyResult<(Vec<String>, Weights<'py>)> {
        let g = &self.graph;
        g.load_order().map_err(py_err)?;
        let dirs = self.directions(direction)?;
        let v = g.vertex_named(name).map_err(py_err)?;
        let (ids, weights) = self.read_list(py, v, &dirs)?;
        Ok((ids.iter().map(|&u| g.label_text(u)).collect(), weights))
    }

    /// Every vertex, in the order results list them: your ids as a uint64
    /// array, or the names' buffers for a graph with names (as a result's
    /// `id` column).
    fn vertex_ids<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let table = grotto::algo::output::Table::for_graph(Arc::clone(&self.graph));
        match table.into_columns().map_err(py_err)?.into_iter().next() {
            Some((_, ids)) => column(py, ids),
            None => Err(invalid("a table without its id column".to_string())),
        }
    }

    /// What `grotto info --json` says, as JSON text.
    fn info_json(&self) -> PyResult<String> {
        serde_json::to_string(&grotto::store::stats::graph_info(&self.graph))
            .map_err(|e| invalid(e.to_string()))
    }

    /// Modularity of a partition given as one label per result row (the
    /// user's order; labels any integers), with `resolution`; the graph's
    /// weights count unless `weights` is false. networkx's `modularity`
    /// (its directed form on a directed graph), from one pass over the
    /// lists with the edges on disk.
    #[pyo3(signature = (labels, resolution=1.0, weights=true, threads=None, cache="3%"))]
    fn modularity(
        &self,
        py: Python<'_>,
        labels: PyReadonlyArray1<'_, u64>,
        resolution: f64,
        weights: bool,
        threads: Option<usize>,
        cache: &str,
    ) -> PyResult<f64> {
        let labels = labels.as_slice()?.to_vec();
        let g = Arc::clone(&self.graph);
        let n = g.vertex_count() as usize;
        if labels.len() != n {
            return Err(invalid(format!(
                "{} labels for the {n} vertices of the graph",
                labels.len()
            )));
        }
        if !(resolution.is_finite() && resolution > 0.0) {
            return Err(invalid(format!(
                "resolution={resolution}: expected a positive number"
            )));
        }
        let cache: CacheSize = cache.parse().map_err(py_err)?;
        let small = small_graph(&g);
        maybe_off_thread(
            py,
            small,
            move || {
                // Labels numbered densely, then given to each vertex by its
                // row (rank).
                let mut distinct = labels.clone();
                distinct.sort_unstable();
                distinct.dedup();
                let mut rank = vec![0u32; n];
                g.ranks_of(0, &mut rank)?;
                let community: Vec<u32> = rank
                    .iter()
                    .map(|&r| distinct.partition_point(|&x| x < labels[r as usize]) as u32)
                    .collect();
                let cfg = grotto::engine::EngineConfig {
                    threads: threads
                        .filter(|&t| t > 0)
                        .unwrap_or_else(grotto::metrics::cores),
                    cache,
                    ..Default::default()
                };
                let engine = grotto::engine::SyncEngine::open(g, cfg)?;
                let (q, _) = engine.run(|r| {
                    grotto::algo::community::modularity(r, &community, resolution, weights)
                })?;
                Ok(q)
            },
            None,
        )
    }

    /// Runs algorithm `name` with `params` (name, text value pairs) and
    /// returns a dict: `columns` (name, array) pairs, `summary`,
    /// `config` and `metrics` as JSON text, `engine`.
    #[pyo3(signature = (name, params, engine=None, cache="3%", concurrency=None, threads=None, io="auto", mode=None, verify=false, progress=None))]
    #[allow(clippy::too_many_arguments)]
    fn run<'py>(
        &self,
        py: Python<'py>,
        name: &str,
        params: Vec<(String, String)>,
        engine: Option<&str>,
        cache: &str,
        concurrency: Option<usize>,
        threads: Option<usize>,
        io: &str,
        mode: Option<&str>,
        verify: bool,
        progress: Option<Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyDict>> {
        let algo = registry::find(name).ok_or_else(|| {
            let names: Vec<&str> = ALGORITHMS.iter().map(|a| a.name()).collect();
            invalid(format!(
                "no algorithm named {name:?}; there are {}",
                names.join(", ")
            ))
        })?;
        let mut p = Params::new(algo.params());
        for (k, v) in &params {
            p.set(&k.replace('_', "-"), v).map_err(py_err)?;
        }
        let asked = match engine {
            None | Some("auto") => None,
            Some("sync") => Some(EngineKind::Sync),
            Some("async") => Some(EngineKind::Async),
            Some(e) => {
                return Err(invalid(format!(
                    "engine={e:?}: expected \"sync\", \"async\" or \"auto\""
                )))
            }
        };
        let mode: Option<Mode> = mode
            .map(|m| {
                m.parse()
                    .map_err(|e: String| invalid(format!("mode={m:?}: {e}")))
            })
            .transpose()?;
        let cache: CacheSize = cache.parse().map_err(py_err)?;
        let backend: BackendChoice = io
            .parse()
            .map_err(|e: String| invalid(format!("io={io:?}: {e}")))?;
        let settings = RunSettings {
            engine: asked,
            mode,
            concurrency,
            threads,
            cache,
            io: backend,
        };
        let Prepared {
            engine: eng, plan, ..
        } = grotto::setup::prepare(algo, &self.graph, &p, &settings).map_err(py_err)?;
        // Progress: edges handed to the algorithm so far, per level or
        // pass ("bfs", no total, edges).
        let live = eng.progress();
        let stage = name.to_string();
        let read = || {
            Some((
                stage.clone(),
                None,
                live.edges.load(std::sync::atomic::Ordering::Relaxed),
            ))
        };
        let outcome = maybe_off_thread(
            py,
            small_graph(&self.graph),
            || algo.execute(&eng, &plan, &p, verify),
            progress
                .as_ref()
                .map(|f| (&read as &dyn Fn() -> Option<Report>, f)),
        )?;
        if let Some(Err(m)) = &outcome.verdict {
            return Err(VerifyError::new_err(format!("verification failed: {m}")));
        }
        // The engine's cache and buffers go before the columns are made.
        drop(eng);
        let d = PyDict::new(py);
        let cols = PyList::empty(py);
        for (name, values) in outcome.table.into_columns().map_err(py_err)? {
            cols.append((name, column(py, values)?))?;
        }
        d.set_item("columns", cols)?;
        d.set_item("summary", outcome.summary.to_string())?;
        d.set_item("config", outcome.config.to_string())?;
        let metrics =
            serde_json::to_string(&outcome.metrics).map_err(|e| invalid(e.to_string()))?;
        d.set_item("metrics", metrics)?;
        d.set_item("engine", plan.engine.name())?;
        d.set_item("rounds", plan.rounds)?;
        d.set_item("verified", outcome.verdict.map(|v| v.is_ok()))?;
        Ok(d)
    }
}

/// Opens a graph file (checks its header and loads its index).
#[pyfunction]
fn open(py: Python<'_>, path: PathBuf) -> PyResult<PyGraph> {
    let small = std::fs::metadata(&path).is_ok_and(|m| m.len() <= 1 << 20);
    let g = maybe_off_thread(py, small, || Graph::open(&path), None)?;
    // A damaged manifest slot that may hide a commit: a RuntimeWarning.
    for w in g.warnings() {
        let msg =
            std::ffi::CString::new(w.replace('\0', " ")).map_err(|e| invalid(e.to_string()))?;
        let category = py.get_type::<pyo3::exceptions::PyRuntimeWarning>();
        PyErr::warn(py, category.as_any(), &msg, 1)?;
    }
    Ok(PyGraph { graph: Arc::new(g) })
}

/// Every registered algorithm: name, one line of help, which engines run
/// it, and its parameters (name, kind, default, required, help).
#[pyfunction]
fn algorithms(py: Python<'_>) -> PyResult<Bound<'_, PyList>> {
    let out = PyList::empty(py);
    for a in ALGORITHMS {
        let d = PyDict::new(py);
        d.set_item("name", a.name())?;
        d.set_item("about", a.about())?;
        d.set_item(
            "sync",
            a.on_sync() != grotto::algo::registry::OnSync::Unsupported,
        )?;
        d.set_item("async", a.on_async())?;
        let ps = PyList::empty(py);
        for p in a.params() {
            let kind = match p.kind {
                Kind::Vertex => "vertex".to_string(),
                Kind::Int => "int".to_string(),
                Kind::Float => "float".to_string(),
                Kind::Size => "size".to_string(),
                Kind::Flag => "flag".to_string(),
                Kind::Vertices => "vertices".to_string(),
                Kind::Choice(w) => format!("choice:{}", w.join("|")),
            };
            ps.append((
                p.name.replace('-', "_"),
                kind,
                p.default,
                p.required,
                p.help,
            ))?;
        }
        d.set_item("params", ps)?;
        out.append(d)?;
    }
    Ok(out)
}

/// The native module.
#[pymodule]
fn _grotto(m: &Bound<'_, PyModule>) -> PyResult<()> {
    let py = m.py();
    m.add("Error", py.get_type::<Error>())?;
    m.add("InputError", py.get_type::<InputError>())?;
    m.add("CorruptGraphError", py.get_type::<CorruptGraphError>())?;
    m.add("IoError", py.get_type::<IoError>())?;
    m.add("VerifyError", py.get_type::<VerifyError>())?;
    m.add_class::<PyGraph>()?;
    m.add_function(wrap_pyfunction!(open, m)?)?;
    m.add_function(wrap_pyfunction!(convert::convert_file, m)?)?;
    m.add_function(wrap_pyfunction!(convert::convert_arrays, m)?)?;
    m.add_function(wrap_pyfunction!(update::update, m)?)?;
    m.add_function(wrap_pyfunction!(update::delete_vertices, m)?)?;
    m.add_function(wrap_pyfunction!(algorithms, m)?)?;
    m.add_function(wrap_pyfunction!(nx::adjacency_columns, m)?)?;
    m.add_function(wrap_pyfunction!(nx::adjacency_sorted, m)?)?;
    m.add_function(wrap_pyfunction!(pieces::extract, m)?)?;
    m.add_function(wrap_pyfunction!(pieces::edge_batch, m)?)?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    Ok(())
}
