//! How PageRank's pull iterations sweep: Jacobi or Gauss-Seidel, and
//! `auto`'s choice between them from the L1 changes (see the module
//! documentation of [`super`]).

use super::{PageRankConfig, Semantics};

/// How an iteration of the pull sweep reads its neighbours' scores.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Method {
    /// Jacobi, and Gauss-Seidel once Jacobi's L1 change shrinks by less
    /// than [`GS_SWITCH_RATIO`] an iteration; back to Jacobi for good if
    /// two Gauss-Seidel iterations shrink it by less than `d^2`. Jacobi
    /// throughout when the tolerance is below
    /// [`FIXED_ITERATIONS_TOLERANCE`] (a fixed number of iterations).
    Auto,
    /// Every iteration reads the scores of the previous one (networkx's
    /// and Graphalytics' power iteration; the same result for any number
    /// of threads).
    Jacobi,
    /// A vertex's new score is read by the vertices summed after it in the
    /// same iteration (GAP's `pr`); the result depends, within the
    /// tolerance's bound, on the order the threads take the blocks.
    GaussSeidel,
}

/// The iteration-over-iteration ratio of Jacobi's L1 change from which
/// [`Method::Auto`] turns to Gauss-Seidel: graphs whose slow modes are
/// smooth (road networks, meshes) converge at about Jacobi's ratio
/// squared with Gauss-Seidel (road1k: 54 iterations to 31), while on
/// R-MAT Jacobi's ratio stays near 0.4 and Gauss-Seidel's is worse
/// (17 iterations to 28), so a fast Jacobi is left alone.
pub const GS_SWITCH_RATIO: f64 = 0.65;

/// Below this tolerance no L1 change can be told from rounding (scores sum
/// to 1, kept in f64), so the run is a fixed number of iterations
/// (Graphalytics, GraphX's `maxIter`), which are Jacobi's: [`Method::Auto`]
/// then never turns.
pub const FIXED_ITERATIONS_TOLERANCE: f64 = 1e-15;

impl std::str::FromStr for Method {
    type Err = String;
    fn from_str(s: &str) -> std::result::Result<Method, String> {
        match s {
            "auto" => Ok(Method::Auto),
            "jacobi" => Ok(Method::Jacobi),
            "gauss-seidel" => Ok(Method::GaussSeidel),
            _ => Err(format!(
                "method \"{s}\": expected auto, jacobi or gauss-seidel"
            )),
        }
    }
}

impl Method {
    pub(super) fn name(self) -> &'static str {
        match self {
            Method::Auto => "auto",
            Method::Jacobi => "jacobi",
            Method::GaussSeidel => "gauss-seidel",
        }
    }
}

/// The uniform share of a Gauss-Seidel iteration that starts from scores
/// whose vertices without out-edges hold `dangling` in all.
pub(super) fn gs_share(cfg: &PageRankConfig, n: u64, dangling: f64) -> f64 {
    let (d, nf) = (cfg.damping, n as f64);
    match cfg.semantics {
        Semantics::Standard => (1.0 - d + d * dangling) / nf,
        Semantics::Gap => (1.0 - d) / nf,
    }
}

/// [`Method::Auto`]'s choice of the next iteration's sweep, from the L1
/// changes so far.
pub(super) struct Switch {
    auto: bool,
    damping: f64,
    /// The last two changes, the latest first.
    last: [f64; 2],
    /// Gauss-Seidel iterations since the switch.
    since: u32,
    /// Gauss-Seidel was tried and did worse: Jacobi to the end.
    settled: bool,
}

impl Switch {
    pub(super) fn new(cfg: &PageRankConfig) -> Switch {
        Switch {
            auto: cfg.method == Method::Auto && cfg.tolerance >= FIXED_ITERATIONS_TOLERANCE,
            damping: cfg.damping,
            last: [f64::INFINITY; 2],
            since: 0,
            settled: false,
        }
    }

    /// Whether the next iteration is Gauss-Seidel, after one (`gs` says
    /// which) that changed the scores by `change`.
    pub(super) fn next(&mut self, gs: bool, change: f64) -> bool {
        let [prev, before] = self.last;
        self.last = [change, prev];
        if !self.auto || self.settled {
            return gs;
        }
        if !gs {
            // Turn when Jacobi's change shrinks slowly.
            return prev.is_finite() && change >= GS_SWITCH_RATIO * prev;
        }
        self.since += 1;
        // Two Gauss-Seidel iterations must beat Jacobi's worst case, a
        // factor d each; if not, back to Jacobi for good.
        if self.since >= 2 && change > self.damping * self.damping * before {
            self.settled = true;
            return false;
        }
        true
    }
}
