//! A breadth-first search written by a user against the asynchronous
//! engine's interface: depth per vertex, then a histogram of depths.
//!
//! ```text
//! cargo run --release -p grotto-cli -- generate grid --rows 300 --cols 300 -o /tmp/g.el
//! cargo run --release -p grotto-cli -- convert /tmp/g.el /tmp/g.grotto --undirected
//! cargo run --release -p grotto --example async_bfs -- /tmp/g.grotto 0
//! ```

use grotto::engine::{AsyncEngine, EngineConfig, Flow, Priority, Seeds};
use grotto::store::Graph;
use std::sync::atomic::{AtomicU32, Ordering::Relaxed};
use std::sync::Arc;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().collect();
    let (Some(path), Some(source)) = (args.get(1), args.get(2)) else {
        return Err("usage: async_bfs GRAPH.grotto SOURCE_ID".into());
    };
    let graph = Arc::new(Graph::open(path.as_ref())?);
    let s = graph.vertex_of(source.parse()?)?;
    let engine = AsyncEngine::open(Arc::clone(&graph), EngineConfig::default())?;
    let n = graph.vertex_count() as usize;

    let (depth, metrics) = engine.run(|run| {
        // Vertex state: atomics, since apply and propagate run on all threads.
        let depth: Vec<AtomicU32> = (0..n).map(|_| AtomicU32::new(u32::MAX)).collect();
        depth[s as usize].store(0, Relaxed);
        run.flow(
            &Flow::default(),
            Seeds::List(&[(s, Priority::FIRST)]),
            // apply: what an active vertex sends its neighbours.
            |v| Some(depth[v as usize].load(Relaxed) + 1),
            // propagate: a neighbour takes a smaller depth and runs again,
            // the smallest depths first.
            |d, e| (d < depth[e.dst as usize].fetch_min(d, Relaxed)).then_some(Priority(d)),
        )?;
        Ok(depth
            .into_iter()
            .map(|d| d.into_inner())
            .collect::<Vec<_>>())
    })?;

    let reached = depth.iter().filter(|&&d| d != u32::MAX).count();
    let deepest = depth
        .iter()
        .filter(|&&d| d != u32::MAX)
        .max()
        .copied()
        .unwrap_or(0);
    println!("reached {reached} of {n} vertices, deepest level {deepest}");
    println!(
        "{:.3} s, {:.1} MB read, {:.2} bytes per edge, {} blocks processed ({} reused in memory)",
        metrics.algo_s,
        metrics.bytes_read as f64 / 1e6,
        metrics.bytes_per_edge,
        metrics.block_visits,
        metrics.block_reuses
    );
    Ok(())
}
