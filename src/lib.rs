//! todo-trace: the TodoWrite lesson's functions, traced step by step for a page that replays them.
//!
//! `lesson` holds the functions the reader steps through (`types` their data); `entries` the calls
//! the page runs; `figures` names the figures and their scenarios, `scenarios` holds their data and
//! `run` runs one into a trace; `input` reads a reader's own input
//! (`js_value` checks an author's JS value); `trace` records steps (`json` writes its values); `source`
//! cuts listings; `wasm` is the JS API. The agent loop: `agent` (the lesson code), `agent_types`
//! (its data and traits), `stand_in` (the model), `loop_scenarios`, and the two hosts
//! `in_memory` (the page) and `native` (the `practice` command).

pub mod agent;
pub mod agent_types;
pub mod entries;
pub mod figures;
pub mod in_memory;
pub mod input;
pub mod js_value;
pub mod json;
pub mod lesson;
pub mod loop_scenarios;
mod messages;
pub mod native;
pub mod run;
pub mod scenarios;
pub mod source;
pub mod stand_in;
pub mod trace;
pub mod types;
pub mod value;
pub mod wasm;

/// The module's allocator (the native build keeps the system's): see `rlsf` in Cargo.toml.
#[cfg(target_arch = "wasm32")]
#[global_allocator]
static ALLOCATOR: rlsf::SmallGlobalTlsf = rlsf::SmallGlobalTlsf::new();
