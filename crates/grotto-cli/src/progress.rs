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
