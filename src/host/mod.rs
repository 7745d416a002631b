//! The hosts around the lesson code: figures and their scenarios, the model stand-in, the loop's
//! in-memory and native hosts, and running a figure into a trace.

pub mod claims;
pub mod compare;
pub mod entries;
pub mod figures;
pub mod in_memory;
pub mod input;
pub mod loop_scenarios;
pub mod native;
pub mod predict;
pub mod predict_words;
pub mod run;
pub mod runs;
pub mod scenarios;
pub mod source;
pub mod stand_in;
pub mod what_if;
