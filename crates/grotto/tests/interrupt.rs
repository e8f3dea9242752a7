//! A stop request ([`grotto::interrupt`]) ends a run on either engine and
//! a conversion with `Error::Interrupted`, and leaves no output; once
//! cleared, the same calls succeed. (Its own test binary: the flag is
//! process-wide, and the unit tests run in parallel threads.)

use grotto::algo::registry::{self, Params};
use grotto::engine::{Engine, EngineConfig, EngineKind};
use grotto::gen::{grid::Grid, AsSource};
use grotto::ingest::{convert_from, ConvertOptions, NoProgress, Source};
use grotto::store::Graph;
use grotto::Error;
use std::sync::Arc;

/// The tests of this binary one at a time: the stop flag is shared.
static ONE: std::sync::Mutex<()> = std::sync::Mutex::new(());

#[test]
fn a_stop_request_ends_runs_and_conversions_without_output() {
    let _one = ONE.lock().unwrap_or_else(|p| p.into_inner());
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("grid.grotto");
    let grid = Grid::new(60, 60).unwrap();
    let opts = ConvertOptions {
        undirected: true,
        ..Default::default()
    };
    convert_from(
        &Source::Generated(&AsSource(&grid)),
        &path,
        &opts,
        &NoProgress,
    )
    .unwrap();
    let g = Arc::new(Graph::open(&path).unwrap());
    let bfs = registry::find("bfs").unwrap();
    let mut p = Params::new(bfs.params());
    p.set("source", "0").unwrap();

    grotto::interrupt::request();
    for kind in [EngineKind::Sync, EngineKind::Async] {
        let e = Engine::open(kind, g.clone(), EngineConfig::default()).unwrap();
        let plan = bfs.plan(Some(kind), &g).unwrap();
        let r = bfs.execute(&e, &plan, &p, false);
        assert!(matches!(r, Err(Error::Interrupted)), "{kind:?}");
    }
    let other = dir.path().join("other.grotto");
    let r = convert_from(
        &Source::Generated(&AsSource(&grid)),
        &other,
        &opts,
        &NoProgress,
    );
    assert!(matches!(r, Err(Error::Interrupted)));
    assert!(!other.exists());
    let names: Vec<_> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(names.len(), 1, "litter: {names:?}");

    grotto::interrupt::clear();
    for kind in [EngineKind::Sync, EngineKind::Async] {
        let e = Engine::open(kind, g.clone(), EngineConfig::default()).unwrap();
        let plan = bfs.plan(Some(kind), &g).unwrap();
        let o = bfs.execute(&e, &plan, &p, true).unwrap();
        assert_eq!(o.verdict, Some(Ok(())));
        assert_eq!(o.summary["reached"], 3600);
    }
    convert_from(
        &Source::Generated(&AsSource(&grid)),
        &other,
        &opts,
        &NoProgress,
    )
    .unwrap();
}

/// The commit point: a stop asked for before it applies nothing; a
/// signal after it waits, and becomes a stop request for later work.
/// (In this binary: the gate is process-wide state.)
#[test]
fn a_stop_before_the_commit_point_stops_and_one_after_waits() {
    use grotto::interrupt::{clear, commit_point, deferred, on_signal, request, requested};
    let _one = ONE.lock().unwrap_or_else(|p| p.into_inner());
    // (Before any commit point a signal stops at once; the other test of
    // this binary may have passed one already, so the CLI tests check it.)
    clear();
    request();
    assert!(matches!(commit_point(), Err(Error::Interrupted)));
    clear();
    let c = commit_point().expect("no stop requested");
    let mut stopped = false;
    on_signal(130, |_| stopped = true);
    assert!(!stopped, "a signal after the commit point must wait");
    assert_eq!(deferred(), Some(130));
    assert!(requested(), "later work stops at its next check");
    drop(c);
    clear();
}
