//! A request to stop, for front ends that catch Ctrl-C themselves (the
//! Python package): [`request`] sets a process-wide flag, long work
//! checks it at its next step (an engine step or pass, a parsed chunk,
//! the moment before an output is committed) and ends with
//! [`Error::Interrupted`], leaving no partial output; [`clear`] resets it
//! for the next call. The command line does not use it: it ends the
//! process on a signal and removes its temporaries itself.

use crate::error::{Error, Result};
use std::sync::atomic::{AtomicBool, Ordering};

static REQUESTED: AtomicBool = AtomicBool::new(false);

/// Asks running work to stop.
pub fn request() {
    REQUESTED.store(true, Ordering::SeqCst);
}

/// Withdraws the request (after the interrupted work has returned).
pub fn clear() {
    REQUESTED.store(false, Ordering::SeqCst);
}

/// Whether a stop was requested.
#[inline]
pub fn requested() -> bool {
    REQUESTED.load(Ordering::Relaxed)
}

/// [`Error::Interrupted`] if a stop was requested.
pub fn check() -> Result<()> {
    if requested() {
        Err(Error::Interrupted)
    } else {
        Ok(())
    }
}
