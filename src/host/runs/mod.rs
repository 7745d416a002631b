//! Runs as data (LOOP.md): a run file, recording one as the loop runs, and replaying one through the host's own code.

pub mod file;
pub mod replay;
pub mod tape;

pub use file::{parse, RunError, RunFile, RunSettings, Source};
pub use replay::{Divergence, Replay};
pub use tape::Tape;
