//! What the reader steps through: the plan functions (`plan`), the agent loop (`agent`), and their data.

pub mod agent;
pub mod agent_types;
pub mod messages;
mod plan;
pub mod types;

pub use plan::*;
