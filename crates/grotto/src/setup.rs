//! One run set-up for every front end: the command line, the Python
//! binding and its networkx backend all call [`prepare`]. It reads the
//! device profile stored for the graph's device, settles the engine the
//! algorithm runs on (and refuses what the engine cannot do), opens it,
//! and checks that its buffer pool fits in memory before anything runs.

use crate::algo::registry::{Params, Plan, Registered};
use crate::cache::CacheSize;
use crate::engine::{Engine, EngineConfig, EngineKind, Mode};
use crate::error::{Error, Result};
use crate::io::profile::{self, Profile, ENGINE_MERGE_BYTES, ENGINE_MIN_DEPTH};
use crate::io::{BackendChoice, IoOptions};
use crate::store::Graph;
use std::path::Path;
use std::sync::Arc;

/// How a run is to be set up; `None` leaves a choice to grotto.
#[derive(Clone, Debug)]
pub struct RunSettings {
    /// The engine asked for. Default `None`: the one the algorithm runs
    /// faster on this graph with these parameters.
    pub engine: Option<EngineKind>,
    /// How the synchronous engine reads blocks. Default `None`:
    /// [`Mode::Block`]; asking for one refuses a run on the async engine.
    pub mode: Option<Mode>,
    /// Reads in flight. Default `None`: the device profile's k_r for the
    /// engines, else [`ENGINE_MIN_DEPTH`].
    pub concurrency: Option<usize>,
    /// Worker threads. Default `None`: one per core (capped by the work
    /// the graph has, see the engine's session).
    pub threads: Option<usize>,
    /// Buffer pool size. Default 3% of the graph file.
    pub cache: CacheSize,
    /// The io backend. Default [`BackendChoice::Auto`].
    pub io: BackendChoice,
}

impl Default for RunSettings {
    fn default() -> RunSettings {
        RunSettings {
            engine: None,
            mode: None,
            concurrency: None,
            threads: None,
            cache: CacheSize::Percent(3.0),
            io: BackendChoice::Auto,
        }
    }
}

/// A run ready to execute.
pub struct Prepared {
    /// The engine, open on the graph.
    pub engine: Engine,
    /// How the algorithm runs on it.
    pub plan: Plan,
    /// The settings the engine was opened with.
    pub config: EngineConfig,
    /// The device profile used, if one is stored for the graph's device.
    pub profile: Option<Profile>,
    /// One line on the profile: which file, or why there is none.
    pub profile_note: String,
}

/// The device profile stored for the device holding `graph_path`, and a
/// line saying which (or why none is used: the defaults then apply).
pub fn profile_for(graph_path: &Path) -> (Option<Profile>, String) {
    let dir = graph_path
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    match profile::load_for(dir) {
        Ok(Some((p, file))) => {
            let msg = format!(
                "device profile {} (k_r {}, merge size {} KiB; engines: {} reads in flight, merges up to {} KiB)",
                file.display(),
                p.k_r,
                p.merge_bytes / 1024,
                p.engine_concurrency(),
                p.engine_merge_bytes() / 1024
            );
            (Some(p), msg)
        }
        Ok(None) => (None, "no device profile for this device (run `grotto profile --path DIR`); using k_r 32, merge size 128 KiB".into()),
        Err(e) => (None, format!("device profile unreadable ({e}); using k_r 32, merge size 128 KiB")),
    }
}

/// Sets up a run of `algo` with `params` on `graph` as `settings` ask:
/// the profile, the engine (an error naming the one that runs the
/// algorithm when the asked one does not, or when a sync `mode` is asked
/// of an async run), and the memory check of the buffer pool.
pub fn prepare(
    algo: &dyn Registered,
    graph: &Arc<Graph>,
    params: &Params,
    settings: &RunSettings,
) -> Result<Prepared> {
    let (profile, profile_note) = profile_for(graph.path());
    let plan = algo.plan_for(settings.engine, graph, params)?;
    if settings.mode.is_some() && plan.engine == EngineKind::Async {
        return Err(Error::Invalid(format!(
            "--mode chooses how the sync engine reads blocks, and {} runs on the async engine here{}",
            algo.name(),
            if settings.engine.is_none() {
                " (--engine auto picked it; --engine sync runs the sync engine where the algorithm allows)"
            } else {
                ""
            }
        )));
    }
    let config = EngineConfig {
        mode: settings.mode.unwrap_or(Mode::Block),
        concurrency: settings.concurrency.unwrap_or_else(|| {
            profile
                .as_ref()
                .map_or(ENGINE_MIN_DEPTH, |p| p.engine_concurrency())
        }),
        threads: settings.threads.unwrap_or_else(crate::metrics::cores),
        cache: settings.cache,
        merge_bytes: profile
            .as_ref()
            .map_or(*ENGINE_MERGE_BYTES.start(), |p| p.engine_merge_bytes()),
        io: IoOptions {
            backend: settings.io,
            ..IoOptions::default()
        },
    };
    let engine = Engine::open(plan.engine, Arc::clone(graph), config.clone())?;
    crate::metrics::check_memory(
        engine.cache_bytes(),
        &format!("the buffer pool (--cache {})", settings.cache),
    )?;
    Ok(Prepared {
        engine,
        plan,
        config,
        profile,
        profile_note,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::algo::registry::find;
    use crate::testkit;

    #[test]
    fn a_run_is_set_up_with_its_engine_and_the_threads_it_can_use() {
        let g = testkit::from_edges(&[(0, 1), (1, 2), (2, 3)], true, false);
        let wcc = find("wcc").expect("wcc");
        let p = Params::new(wcc.params());
        let settings = RunSettings {
            threads: Some(8),
            ..RunSettings::default()
        };
        let run = prepare(wcc, &g.graph, &p, &settings).expect("prepare");
        assert_eq!(run.plan, wcc.plan_for(None, &g.graph, &p).expect("plan"));
        // Four vertices are one chunk of work: one thread, not eight.
        let out = wcc.execute(&run.engine, &run.plan, &p, true).expect("run");
        assert_eq!(out.metrics.threads, 1);
        assert!(matches!(out.verdict, Some(Ok(()))));
    }

    #[test]
    fn a_sync_mode_on_an_async_run_is_refused_naming_both() {
        let g = testkit::from_edges(&[(0, 1), (1, 2)], true, false);
        let mis = find("mis").expect("mis");
        let p = Params::new(mis.params());
        let settings = RunSettings {
            engine: Some(EngineKind::Async),
            mode: Some(Mode::Vertex),
            ..RunSettings::default()
        };
        let err = prepare(mis, &g.graph, &p, &settings)
            .err()
            .expect("refused")
            .to_string();
        assert!(
            err.contains("--mode") && err.contains("async engine"),
            "{err}"
        );
    }
}
