//! Empty: it exists so that Cargo resolves the build-dependencies, whose
//! features unify those of the proc macros' parsers (see Cargo.toml).
fn main() {}
