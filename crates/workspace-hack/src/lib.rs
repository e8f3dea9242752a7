//! No code: this crate only unifies the features of the dependencies the
//! grotto crates share, so that each is compiled once (see Cargo.toml).
