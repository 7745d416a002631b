//! Each plan item's claim beside the evidence in the history: the loop figure's last pane, and `practice`'s table.

use serde::Serialize;
use tsify::Tsify;

use crate::host::stand_in::{Needs, EVIDENCE};
use crate::lesson::agent_types::Outcome;
use crate::lesson::types::{Block, Content, Message};

/// One item of the final plan beside the evidence in the history (LOOP.md's fourth point).
#[derive(Serialize, Tsify, Clone, Debug, PartialEq, Eq)]
#[serde(rename_all = "camelCase")]
pub struct PlanClaim {
    pub id: String,
    pub content: String,
    pub status: String,
    /// The item says `completed`.
    pub completed: bool,
    /// The tool whose successful result would back it: `read_file` (of `path`) or `run_main`.
    pub tool: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[tsify(optional)]
    pub path: Option<&'static str>,
    /// The successful result that backs it; absent when the history holds none.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[tsify(optional)]
    pub evidence: Option<Evidence>,
    /// Claimed `completed` with nothing to back it: the gap a reader should see.
    pub gap: bool,
}

/// Where a backing result is: the history message holding it, and the call it answers.
#[derive(Serialize, Tsify, Clone, Debug, PartialEq, Eq)]
#[serde(rename_all = "camelCase")]
pub struct Evidence {
    pub message: u32,
    pub tool_use_id: String,
}

/// Each item of the final plan against the tool results in the final history. An item outside
/// the stand-in's three has no evidence that could back it.
pub fn claims(outcome: &Outcome) -> Vec<PlanClaim> {
    outcome
        .plan
        .iter()
        .map(|item| {
            let needs = EVIDENCE.iter().find(|(id, _)| *id == item.id).map(|&(_, needs)| needs);
            let (tool, path) = match needs {
                Some(Needs::Read(path)) => ("read_file", Some(path)),
                Some(Needs::Run) | None => ("run_main", None),
            };
            let evidence = needs.and_then(|needs| backing(outcome, needs));
            let completed = item.status == "completed";
            PlanClaim {
                id: item.id.clone(),
                content: item.content.clone(),
                status: item.status.clone(),
                completed,
                tool,
                path,
                gap: completed && evidence.is_none(),
                evidence,
            }
        })
        .collect()
}

/// The first successful result in the history of the call that `needs`.
fn backing(outcome: &Outcome, needs: Needs) -> Option<Evidence> {
    // Read in place: the history is the longest value of a run.
    fn blocks(message: &Message) -> &[Block] {
        match &message.content {
            Content::Blocks(blocks) => blocks,
            Content::Text(_) => &[],
        }
    }
    let asked: Vec<&str> = outcome
        .history
        .iter()
        .flat_map(blocks)
        .filter_map(|block| match (block, needs) {
            (Block::ToolUse { id, name, input }, Needs::Read(path))
                if name == "read_file" && input["path"].as_str() == Some(path) =>
            {
                Some(id.as_str())
            }
            (Block::ToolUse { id, name, .. }, Needs::Run) if name == "run_main" => Some(id),
            _ => None,
        })
        .collect();
    outcome.history.iter().enumerate().find_map(|(index, message)| {
        blocks(message).iter().find_map(|block| match block {
            Block::ToolResult { tool_use_id, is_error: false, .. }
                if asked.contains(&tool_use_id.as_str()) =>
            {
                Some(Evidence { message: index as u32, tool_use_id: tool_use_id.clone() })
            }
            _ => None,
        })
    })
}
