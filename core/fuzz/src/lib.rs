//! The code behind each fuzz target, shared with `core/tests/fuzz_regressions.rs` (which
//! includes these two files by path) so that a crash input replays on stable in `cargo test`.

pub mod invariants;
pub mod targets;
