//! Empty on purpose: this crate exists for its test, tests/guarantees.rs (see Cargo.toml for why it is a crate).
