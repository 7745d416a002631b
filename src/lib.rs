//! todo-trace: the TodoWrite lesson's functions, traced step by step for a page that replays them.
//!
//! The layers, each a folder, each using only the ones above it:
//! - `recorder`: the step recorder that `#[traced]` probes write to; it knows no lesson type.
//! - `lesson`: what the reader steps through: the plan functions, the agent loop, their data.
//! - `host`: figures, scenarios, the model stand-in, the loop's hosts (in memory, native), running a figure.
//! - `api`: the wasm boundary: the JS API, the reader's own input, error messages.

// `#[traced]` names the recorder `::todo_trace::recorder`, which resolves here as in another crate.
extern crate self as todo_trace;

pub mod api;
pub mod host;
pub mod lesson;
pub mod recorder;

/// The module's allocator (the native build keeps the system's): see `rlsf` in Cargo.toml.
#[cfg(target_arch = "wasm32")]
#[global_allocator]
static ALLOCATOR: rlsf::SmallGlobalTlsf = rlsf::SmallGlobalTlsf::new();
