//! An algorithm as a type, and the registry front ends run them through.
//!
//! [`Algorithm`] gathers what a front end needs to offer an algorithm:
//! its name and parameters, its config and result types, which engines
//! run it and which one is preferred, how it runs on each, one verifier
//! signature, and how its result becomes a table, a summary and a config
//! record. [`crate::algo::ALGORITHMS`] lists every algorithm as a
//! [`Registered`] trait object; the command line builds `grotto run`'s
//! subcommands and flags from it, and runs every algorithm through
//! [`Registered::execute`], one generic path.
//!
//! Parameters are described as data ([`Param`]) and passed as text
//! ([`Params`]), so the library needs no argument parser: the command line
//! turns each [`Param`] into a flag, a Python binding into a keyword.
//!
//! Adding an algorithm takes its file (with an `impl Algorithm`), its
//! `pub mod` line in `algo/mod.rs` and one line in `ALGORITHMS`.

use super::output::Table;
use super::reference::Csr;
use super::Verdict;
pub use crate::engine::EngineKind;
use crate::engine::{AsyncRun, Engine, Run, RunMetrics};
use crate::error::{Error, Result};
use crate::store::{Direction, Graph};
use std::marker::PhantomData;
use std::sync::Arc;

/// What an algorithm does when the synchronous engine is asked for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OnSync {
    /// It has no synchronous formulation: asking for it is an error.
    Unsupported,
    /// It runs on the synchronous engine ([`Algorithm::run_sync`]).
    Native,
    /// Its synchronous formulation is the asynchronous engine's rounds
    /// mode (a barrier between rounds): [`Algorithm::run_async`] runs with
    /// [`Setting::rounds`] set.
    AsyncRounds,
}

/// The type of a parameter's value.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// A vertex, in the user's ids.
    Vertex,
    /// A non-negative integer.
    Int,
    /// A number.
    Float,
    /// One of these words.
    Choice(&'static [&'static str]),
    /// A size: bytes with an optional unit (`512MiB`), or a share of the
    /// graph file (`10%`), as `--cache` takes it.
    Size,
    /// A switch: `true` or `false` (on the command line, the flag alone).
    Flag,
    /// Vertices in the user's ids (or names), separated by commas.
    Vertices,
}

/// One parameter of an algorithm, described for front ends.
#[derive(Clone, Copy, Debug)]
pub struct Param {
    /// Name, in kebab case: the flag `--NAME` on the command line.
    pub name: &'static str,
    /// One line of help.
    pub help: &'static str,
    /// The type of its value.
    pub kind: Kind,
    /// The value when none is given, as text; `None` when the parameter
    /// is optional with no value (or required).
    pub default: Option<&'static str>,
    /// Whether a value must be given.
    pub required: bool,
}

impl Param {
    /// An optional parameter with a default.
    pub const fn with_default(
        name: &'static str,
        kind: Kind,
        default: &'static str,
        help: &'static str,
    ) -> Param {
        Param {
            name,
            help,
            kind,
            default: Some(default),
            required: false,
        }
    }

    /// An optional parameter with no value unless given.
    pub const fn optional(name: &'static str, kind: Kind, help: &'static str) -> Param {
        Param {
            name,
            help,
            kind,
            default: None,
            required: false,
        }
    }

    /// A parameter that must be given.
    pub const fn required(name: &'static str, kind: Kind, help: &'static str) -> Param {
        Param {
            name,
            help,
            kind,
            default: None,
            required: true,
        }
    }

    /// Checks that `text` is a value of this parameter's kind.
    pub fn check(&self, text: &str) -> Result<()> {
        let ok = match self.kind {
            // A vertex may be a name; the graph decides when it is resolved.
            Kind::Vertex => !text.is_empty(),
            Kind::Int => text.parse::<u64>().is_ok(),
            Kind::Float => text.parse::<f64>().is_ok(),
            Kind::Choice(words) => words.contains(&text),
            Kind::Size => text.parse::<crate::cache::CacheSize>().is_ok(),
            Kind::Flag => text == "true" || text == "false",
            Kind::Vertices => text.split(',').all(|t| !t.trim().is_empty()),
        };
        if ok {
            Ok(())
        } else {
            Err(Error::Invalid(format!(
                "--{} {text:?}: expected {}",
                self.name,
                match self.kind {
                    Kind::Vertex => "a vertex id or name".to_string(),
                    Kind::Int => "a non-negative integer".to_string(),
                    Kind::Float => "a number".to_string(),
                    Kind::Choice(words) => format!("one of {}", words.join(", ")),
                    Kind::Size => "a size like 512MiB or 10% (of the graph file)".to_string(),
                    Kind::Flag => "true or false".to_string(),
                    Kind::Vertices => "vertex ids or names separated by commas".to_string(),
                }
            )))
        }
    }
}

/// `--source`: a vertex in the user's ids, default drawn with [`SEED`].
pub const SOURCE: Param = Param::optional(
    "source",
    Kind::Vertex,
    "Source vertex, in your ids (default: a seeded random vertex with out-edges).",
);

/// `--seed` of the default source.
pub const SEED: Param = Param::with_default("seed", Kind::Int, "1", "Seed for the default source.");

/// Values of an algorithm's parameters, as text, checked against the
/// algorithm's [`Param`]s when set; getters fall back to the defaults.
#[derive(Clone, Debug)]
pub struct Params {
    spec: &'static [Param],
    values: Vec<Option<String>>,
}

impl Params {
    /// No values given yet, for parameters `spec`.
    pub fn new(spec: &'static [Param]) -> Params {
        Params {
            spec,
            values: vec![None; spec.len()],
        }
    }

    /// Sets parameter `name` to `value`; an error for a name the algorithm
    /// does not have or a value of the wrong kind.
    pub fn set(&mut self, name: &str, value: &str) -> Result<()> {
        let i = self.index(name)?;
        self.spec[i].check(value)?;
        self.values[i] = Some(value.to_string());
        Ok(())
    }

    /// Checks that every required parameter has a value.
    pub fn complete(&self) -> Result<()> {
        for (p, v) in self.spec.iter().zip(&self.values) {
            if p.required && v.is_none() {
                return Err(Error::Invalid(format!("--{} is required", p.name)));
            }
        }
        Ok(())
    }

    fn index(&self, name: &str) -> Result<usize> {
        self.spec
            .iter()
            .position(|p| p.name == name)
            .ok_or_else(|| Error::Invalid(format!("no parameter named {name:?}")))
    }

    /// The text of `name`: the value given, else the default.
    pub fn text(&self, name: &str) -> Result<Option<&str>> {
        let i = self.index(name)?;
        Ok(self.values[i].as_deref().or(self.spec[i].default))
    }

    fn parse<T: std::str::FromStr>(&self, name: &str, what: &str) -> Result<Option<T>> {
        match self.text(name)? {
            None => Ok(None),
            Some(t) => t
                .parse::<T>()
                .map(Some)
                .map_err(|_| Error::Invalid(format!("--{name} {t:?}: expected {what}"))),
        }
    }

    /// An integer parameter, `None` when absent with no default.
    pub fn opt_u64(&self, name: &str) -> Result<Option<u64>> {
        self.parse(name, "a non-negative integer")
    }

    /// An integer parameter that has a value (a default or a required one).
    pub fn u64(&self, name: &str) -> Result<u64> {
        self.opt_u64(name)?
            .ok_or_else(|| Error::Invalid(format!("--{name} is required")))
    }

    /// An integer parameter that must fit in 32 bits.
    pub fn u32(&self, name: &str) -> Result<u32> {
        self.parse(name, "an integer below 2^32")?
            .ok_or_else(|| Error::Invalid(format!("--{name} is required")))
    }

    /// A count that must fit in a `usize`, `None` when absent.
    pub fn opt_usize(&self, name: &str) -> Result<Option<usize>> {
        self.parse(
            name,
            "a non-negative integer that fits this machine's usize",
        )
    }

    /// A size parameter ([`Kind::Size`]), `None` when absent with no
    /// default.
    pub fn opt_size(&self, name: &str) -> Result<Option<crate::cache::CacheSize>> {
        self.text(name)?.map(|t| t.parse()).transpose()
    }

    /// A switch ([`Kind::Flag`]): false unless set to `true`.
    pub fn flag(&self, name: &str) -> Result<bool> {
        Ok(self.text(name)? == Some("true"))
    }

    /// A number parameter, `None` when absent with no default.
    pub fn opt_f64(&self, name: &str) -> Result<Option<f64>> {
        self.parse(name, "a number")
    }

    /// A number parameter that has a value.
    pub fn f64(&self, name: &str) -> Result<f64> {
        self.opt_f64(name)?
            .ok_or_else(|| Error::Invalid(format!("--{name} is required")))
    }

    /// A vertex parameter turned into an internal id (`None` when absent),
    /// with an error naming the flag when the graph has no such vertex.
    pub fn vertex(&self, g: &Graph, name: &str) -> Result<Option<crate::VertexId>> {
        self.text(name)?
            .map(|id| super::user_vertex(g, id, &format!("--{name}")))
            .transpose()
    }

    /// The internal ids of a [`Kind::Vertices`] parameter (none when
    /// absent), with an error naming the flag for a vertex the graph does
    /// not have.
    pub fn vertices(&self, g: &Graph, name: &str) -> Result<Vec<crate::VertexId>> {
        match self.text(name)? {
            None => Ok(Vec::new()),
            Some(t) => t
                .split(',')
                .map(|id| super::user_vertex(g, id.trim(), &format!("--{name}")))
                .collect(),
        }
    }

    /// The internal id of `--source`, or GAP's seeded default (a random
    /// vertex with out-edges, drawn with `--seed`).
    pub fn source(&self, g: &Graph) -> Result<crate::VertexId> {
        match self.vertex(g, "source")? {
            Some(v) => Ok(v),
            None => super::pick_source(g, self.u64("seed")?),
        }
    }
}

/// How a run was set up, for the config an algorithm builds.
#[derive(Clone, Copy, Debug)]
pub struct Setting {
    /// The engine the algorithm runs on.
    pub engine: EngineKind,
    /// Whether it runs in the asynchronous engine's rounds mode, standing
    /// in for the synchronous engine ([`OnSync::AsyncRounds`]).
    pub rounds: bool,
    /// Block reads in flight.
    pub concurrency: usize,
}

/// An algorithm: everything a front end needs to offer it and run it.
pub trait Algorithm: 'static {
    /// Name on the command line (`grotto run NAME`).
    const NAME: &'static str;
    /// One line of help.
    const ABOUT: &'static str;
    /// Its parameters.
    const PARAMS: &'static [Param];
    /// What asking for the synchronous engine does.
    const SYNC: OnSync;
    /// Whether the asynchronous engine runs it.
    const ASYNC: bool;
    /// Settings of one run.
    type Config;
    /// The result, in internal vertex ids.
    type Output;

    /// The engine `--engine auto` picks for `g`, from the measurements
    /// given next to each implementation.
    fn preferred(g: &Graph) -> EngineKind;
    /// The engine `--engine auto` picks for `g` with parameters `p`
    /// (default: [`Algorithm::preferred`]; weighted PageRank, which only
    /// the async engine runs, overrides it).
    fn preferred_for(g: &Graph, _p: &Params) -> EngineKind {
        Self::preferred(g)
    }
    /// The config from parameter values.
    fn config(g: &Graph, p: &Params, s: &Setting) -> Result<Self::Config>;
    /// The config as a record in the user's ids, for reports.
    fn config_json(g: &Graph, p: &Params, c: &Self::Config) -> Result<serde_json::Value>;
    /// Runs on the synchronous engine.
    fn run_sync(_r: &mut Run<'_>, _c: &Self::Config) -> Result<Self::Output> {
        Err(not_on(Self::NAME, EngineKind::Sync))
    }
    /// Runs on the asynchronous engine.
    fn run_async(_r: &mut AsyncRun<'_>, _c: &Self::Config) -> Result<Self::Output> {
        Err(not_on(Self::NAME, EngineKind::Async))
    }
    /// Checks a result against a serial computation on the in-memory
    /// `csr` (out-edges) of `g`.
    fn verify(g: &Graph, csr: &Csr, c: &Self::Config, out: &Self::Output) -> Verdict;
    /// Per-vertex columns in the user's ids.
    fn table(g: &Arc<Graph>, out: Self::Output) -> Table;
    /// Figures for the run summary.
    fn summary(g: &Graph, out: &Self::Output) -> serde_json::Value;
}

fn not_on(name: &str, e: EngineKind) -> Error {
    Error::Invalid(format!("{name} does not run on the {} engine", e.name()))
}

/// Where a run goes: the engine to open and how the algorithm runs on it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Plan {
    /// The engine to open.
    pub engine: EngineKind,
    /// Whether the algorithm runs in the asynchronous engine's rounds
    /// mode, standing in for the synchronous engine.
    pub rounds: bool,
}

/// What one run gives back.
pub struct Outcome {
    /// Per-vertex columns in the user's ids.
    pub table: Table,
    /// Figures for the summary.
    pub summary: serde_json::Value,
    /// The config, in the user's ids.
    pub config: serde_json::Value,
    /// The verifier's verdict, when verification was asked for.
    pub verdict: Option<Verdict>,
    /// The run's measurements.
    pub metrics: RunMetrics,
}

/// An [`Algorithm`] as a trait object, for registries.
pub trait Registered: Sync {
    /// Name on the command line.
    fn name(&self) -> &'static str;
    /// One line of help.
    fn about(&self) -> &'static str;
    /// Its parameters.
    fn params(&self) -> &'static [Param];
    /// What asking for the synchronous engine does.
    fn on_sync(&self) -> OnSync;
    /// Whether the asynchronous engine runs it.
    fn on_async(&self) -> bool;
    /// The engine preferred on `g`.
    fn preferred(&self, g: &Graph) -> EngineKind;
    /// The engine preferred on `g` with parameters `p`.
    fn preferred_for(&self, g: &Graph, p: &Params) -> EngineKind;
    /// Runs on `engine` (opened for `plan`), then verifies when `verify`.
    fn execute(
        &self,
        engine: &Engine,
        plan: &Plan,
        params: &Params,
        verify: bool,
    ) -> Result<Outcome>;

    /// The engine and mode for a run where `asked` is the user's choice
    /// (`None`: the preferred one); an error naming the engine that runs
    /// the algorithm when the asked one does not.
    fn plan(&self, asked: Option<EngineKind>, g: &Graph) -> Result<Plan> {
        self.plan_preferring(asked, self.preferred(g))
    }

    /// [`Registered::plan`] for a run with parameters `p`, which can
    /// change the engine preferred.
    fn plan_for(&self, asked: Option<EngineKind>, g: &Graph, p: &Params) -> Result<Plan> {
        self.plan_preferring(asked, self.preferred_for(g, p))
    }

    /// [`Registered::plan`] with the preferred engine given.
    fn plan_preferring(&self, asked: Option<EngineKind>, preferred: EngineKind) -> Result<Plan> {
        let name = self.name();
        match asked.unwrap_or(preferred) {
            EngineKind::Sync => match self.on_sync() {
                OnSync::Native => Ok(Plan {
                    engine: EngineKind::Sync,
                    rounds: false,
                }),
                OnSync::AsyncRounds => Ok(Plan {
                    engine: EngineKind::Async,
                    rounds: true,
                }),
                OnSync::Unsupported => Err(Error::Invalid(format!(
                    "{name} runs on the asynchronous engine only: use --engine async (or auto)"
                ))),
            },
            EngineKind::Async if self.on_async() => Ok(Plan {
                engine: EngineKind::Async,
                rounds: false,
            }),
            EngineKind::Async => Err(Error::Invalid(format!(
                "{name} runs on the synchronous engine only: use --engine sync (or auto)"
            ))),
        }
    }
}

/// The registry entry of algorithm `A`.
pub struct Entry<A>(PhantomData<fn() -> A>);

impl<A> Entry<A> {
    /// The entry (a constant, for the static registry).
    pub const NEW: Entry<A> = Entry(PhantomData);
}

impl<A: Algorithm> Registered for Entry<A> {
    fn name(&self) -> &'static str {
        A::NAME
    }
    fn about(&self) -> &'static str {
        A::ABOUT
    }
    fn params(&self) -> &'static [Param] {
        A::PARAMS
    }
    fn on_sync(&self) -> OnSync {
        A::SYNC
    }
    fn on_async(&self) -> bool {
        A::ASYNC
    }
    fn preferred(&self, g: &Graph) -> EngineKind {
        A::preferred(g)
    }
    fn preferred_for(&self, g: &Graph, p: &Params) -> EngineKind {
        A::preferred_for(g, p)
    }

    fn execute(
        &self,
        engine: &Engine,
        plan: &Plan,
        params: &Params,
        verify: bool,
    ) -> Result<Outcome> {
        params.complete()?;
        let g = engine.graph();
        let setting = Setting {
            engine: engine.kind(),
            rounds: plan.rounds,
            concurrency: engine.config().concurrency,
        };
        let cfg = A::config(g, params, &setting)?;
        let (out, metrics) = match engine {
            Engine::Sync(e) => e.run(|r| A::run_sync(r, &cfg))?,
            Engine::Async(e) => e.run(|r| A::run_async(r, &cfg))?,
        };
        let verdict = if verify {
            Some(A::verify(g, &Csr::load(g, Direction::Out)?, &cfg, &out))
        } else {
            None
        };
        Ok(Outcome {
            summary: A::summary(g, &out),
            config: A::config_json(g, params, &cfg)?,
            table: A::table(g, out),
            verdict,
            metrics,
        })
    }
}

/// The registered algorithm named `name`.
pub fn find(name: &str) -> Option<&'static dyn Registered> {
    super::ALGORITHMS.iter().copied().find(|a| a.name() == name)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_unique_and_params_well_formed() {
        let all = super::super::ALGORITHMS;
        for (i, a) in all.iter().enumerate() {
            assert!(
                all[..i].iter().all(|b| b.name() != a.name()),
                "{} twice",
                a.name()
            );
            assert!(
                a.on_sync() != OnSync::Unsupported || a.on_async(),
                "{}",
                a.name()
            );
            for p in a.params() {
                if let Some(d) = p.default {
                    p.check(d)
                        .unwrap_or_else(|e| panic!("{} default: {e}", a.name()));
                }
                assert!(!(p.required && p.default.is_some()), "{}", p.name);
            }
        }
    }

    #[test]
    fn params_check_kinds_and_fall_back_to_defaults() {
        let a = find("pagerank").unwrap();
        let mut p = Params::new(a.params());
        assert_eq!(p.f64("damping").unwrap(), 0.85);
        p.set("damping", "0.5").unwrap();
        assert_eq!(p.f64("damping").unwrap(), 0.5);
        assert!(p.set("damping", "half").is_err());
        assert!(p.set("semantics", "weird").is_err());
        assert!(p.set("nonsense", "1").is_err());
        let k = Params::new(find("kcore").unwrap().params());
        assert!(k.complete().unwrap_err().to_string().contains("--k"));
    }
}
