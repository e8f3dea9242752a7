//! Stopping work, and telling the truth about what a stopped command did.
//!
//! Front ends that catch Ctrl-C themselves (the Python package) call
//! [`request`]: a process-wide flag that long work checks at its next
//! step (an engine step or pass, a parsed chunk, the moment before an
//! output is committed) and ends with [`Error::Interrupted`], leaving no
//! partial output; [`clear`] resets it for the next call. The command
//! line ends the process on a signal instead ([`on_signal`]), removing
//! its temporaries.
//!
//! Either way a stop must never be reported for work that happened. A
//! write that changes what a file holds (the rename of a finished
//! output, the manifest slot of an update) passes a *commit point*
//! first ([`commit_point`]): a stop requested before it leaves nothing
//! applied and reports the interrupt; from it on, a stop waits for the
//! work to finish and the work reports success. For a signal that means:
//! once a process has passed a commit point, a signal no longer ends it;
//! it is kept ([`deferred`]) and becomes a stop request, so that long
//! work that comes later in the same command (the demo's next step)
//! still stops at its next check, while the command's own summary of
//! what it committed is printed as usual.

use crate::error::{Error, Result};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Mutex, MutexGuard};

static REQUESTED: AtomicBool = AtomicBool::new(false);

/// Whether the process passed a commit point, and the signal that
/// arrived after.
struct Gate {
    committed: bool,
    deferred: Option<i32>,
}

static GATE: Mutex<Gate> = Mutex::new(Gate {
    committed: false,
    deferred: None,
});

fn gate() -> MutexGuard<'static, Gate> {
    GATE.lock().unwrap_or_else(|p| p.into_inner())
}

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

/// Proof that work passed its commit point: the code that follows must
/// not check for stops before the change is made.
#[must_use = "hold it until the commit's writes are done"]
#[derive(Debug)]
pub struct Committing(());

/// Passes a commit point: [`Error::Interrupted`] if a stop was already
/// requested (nothing is applied), else [`Committing`]: from now on a
/// signal ([`on_signal`]) no longer ends the process. Call it right
/// before the first write that makes the change visible, and check for
/// no stop after it.
pub fn commit_point() -> Result<Committing> {
    let mut g = gate();
    if requested() {
        return Err(Error::Interrupted);
    }
    g.committed = true;
    Ok(Committing(()))
}

/// For a signal handler: before any commit point, calls `stop` with
/// `code` (which ends the process; no commit can begin meanwhile); after
/// one, keeps `code`, requests a stop (later interruptible work ends at
/// its next check) and returns, so that the command reports what it did.
pub fn on_signal(code: i32, stop: impl FnOnce(i32)) {
    let mut g = gate();
    if g.committed {
        g.deferred = Some(code);
        request();
        return;
    }
    stop(code);
}

/// The signal that arrived during a commit and waited for it, if any.
pub fn deferred() -> Option<i32> {
    gate().deferred
}
