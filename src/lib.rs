//! todo-trace: the TodoWrite lesson's functions, traced step by step for a page that replays them.
//!
//! `lesson` holds the functions the reader steps through (`types` their data); `entries` the calls
//! the page runs; `figures` names the figures and their scenarios, `scenarios` holds their data and
//! `run` runs one into a trace; `input` reads a reader's own input; `trace` records steps; `source`
//! cuts listings; `wasm` is the JS API.

pub mod entries;
pub mod figures;
pub mod input;
pub mod lesson;
mod messages;
pub mod run;
pub mod scenarios;
pub mod source;
pub mod trace;
pub mod types;
pub mod wasm;
