//! Progress bars on stderr, drawn only when stderr is a terminal.

use grotto::ingest::Progress;
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use std::io::IsTerminal;

/// An indicatif bar, hidden unless enabled and stderr is a terminal.
pub struct Bar {
    bar: Option<ProgressBar>,
}

impl Bar {
    /// A bar that shows when `enabled` and stderr is a terminal.
    pub fn new(enabled: bool) -> Bar {
        let bar = (enabled && std::io::stderr().is_terminal()).then(|| {
            let b = ProgressBar::with_draw_target(None, ProgressDrawTarget::stderr());
            b.set_style(
                ProgressStyle::with_template(
                    "{msg:>10} {wide_bar} {binary_bytes}/{binary_total_bytes} {elapsed}",
                )
                .unwrap_or_else(|_| ProgressStyle::default_bar()),
            );
            b
        });
        Bar { bar }
    }
    /// Removes the bar.
    pub fn done(&self) {
        if let Some(b) = &self.bar {
            b.finish_and_clear();
        }
    }
}

impl Progress for Bar {
    fn stage(&self, name: &str, total: Option<u64>) {
        if let Some(b) = &self.bar {
            b.set_message(name.to_string());
            b.set_position(0);
            b.set_length(total.unwrap_or(0));
        }
    }
    fn set(&self, done: u64) {
        if let Some(b) = &self.bar {
            b.set_position(done);
        }
    }
}

/// A run's progress on stderr (when enabled and stderr is a terminal):
/// steps (levels or passes) done, of all when the algorithm says how
/// many it takes, and edges handed to it, redrawn ten times a second by
/// a thread of its own until dropped.
pub struct RunBar {
    stop: std::sync::Arc<std::sync::atomic::AtomicBool>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl RunBar {
    /// Starts showing `live`, the progress of a run of `name`.
    pub fn new(
        enabled: bool,
        name: &str,
        live: std::sync::Arc<grotto::engine::RunProgress>,
    ) -> RunBar {
        use std::sync::atomic::{AtomicBool, Ordering::Relaxed};
        let stop = std::sync::Arc::new(AtomicBool::new(false));
        let thread = (enabled && std::io::stderr().is_terminal()).then(|| {
            let stop = stop.clone();
            let name = name.to_string();
            std::thread::spawn(move || {
                let b = ProgressBar::with_draw_target(None, ProgressDrawTarget::stderr());
                let counted = ProgressStyle::with_template(
                    "{msg} {wide_bar} step {human_pos}/{human_len} {elapsed}",
                )
                .unwrap_or_else(|_| ProgressStyle::default_bar());
                let open =
                    ProgressStyle::with_template("{spinner} {msg}, step {human_pos} {elapsed}")
                        .unwrap_or_else(|_| ProgressStyle::default_spinner());
                let mut shown_total = u64::MAX;
                while !stop.load(Relaxed) {
                    let total = live.total.load(Relaxed);
                    if total != shown_total {
                        b.set_style(if total > 0 {
                            counted.clone()
                        } else {
                            open.clone()
                        });
                        b.set_length(total);
                        shown_total = total;
                    }
                    b.set_position(live.steps.load(Relaxed));
                    b.set_message(format!("{name}: {} edges", live.edges.load(Relaxed)));
                    b.tick();
                    std::thread::sleep(std::time::Duration::from_millis(100));
                }
                b.finish_and_clear();
            })
        });
        RunBar { stop, thread }
    }
}

impl Drop for RunBar {
    fn drop(&mut self) {
        self.stop.store(true, std::sync::atomic::Ordering::Relaxed);
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}
