//! The claims-against-evidence table that ends a `practice` transcript: the page's last pane, as lines of text.
//!
//! The rows come from `loop_scenarios::claims`, the function the page's table is built from, so
//! the command line and the page cannot disagree about which status is backed; the words are
//! the page's (`www/text-*.js`, `loop.item` to `loop.gap`).

use crate::host::claims::{claims, PlanClaim};
use crate::lesson::agent_types::Outcome;
use crate::lesson::types::Lang;

/// The table's rows for a finished run; `expected` is the workspace's expected.txt (none: no run
/// can back "Run and check").
pub fn claims_of(outcome: &Outcome, expected: Option<&str>) -> Vec<PlanClaim> {
    claims(outcome, expected)
}

/// A status in the page's words.
fn status(status: &str, lang: Lang) -> &str {
    match (status, lang) {
        ("pending", Lang::Zh) => "待办",
        ("in_progress", Lang::Zh) => "进行中",
        ("completed", Lang::Zh) => "已完成",
        ("in_progress", Lang::En) => "in progress",
        (other, _) => other,
    }
}

/// The evidence column of one row: what backs the status, or that nothing does.
fn evidence(claim: &PlanClaim, lang: Lang) -> String {
    let what = match claim.path {
        Some(path) => format!("{} {path}", claim.tool),
        None => claim.tool.to_string(),
    };
    let mut text = match (&claim.evidence, lang) {
        (Some(found), Lang::Zh) => format!("有证据：{what} 成功（{}）", found.tool_use_id),
        (Some(found), Lang::En) => format!("backed: {what} succeeded ({})", found.tool_use_id),
        (None, Lang::Zh) => format!("历史里没有成功的 {what}"),
        (None, Lang::En) => format!("no successful {what} in the history"),
    };
    if claim.gap {
        text.push_str(lang.pick("  ← 只有声明，没有证据", "  ← claimed without evidence"));
    }
    text
}

/// A model's text on one row: a line feed inside it would start a line that is not indented.
fn one_line(text: &str) -> String {
    text.replace('\n', "\\n")
}

/// The table as lines: a title, a header, then one line per plan item. Items and their
/// contents came from a model, so the caller prints them escaped.
pub fn table_lines(claims: &[PlanClaim], lang: Lang) -> Vec<String> {
    let mut lines = vec![
        lang.pick("声明与证据：", "Claim against evidence:").to_string(),
        lang.pick(
            "    计划项 | 状态（声明） | 历史里的证据",
            "    Item | Status (the claim) | Evidence in the history",
        )
        .to_string(),
    ];
    if claims.is_empty() {
        lines.push(lang.pick("    （计划是空的）", "    (the plan is empty)").to_string());
    }
    for claim in claims {
        lines.push(format!(
            "    {}. {} | {} | {}",
            one_line(&claim.id),
            one_line(&claim.content),
            status(&claim.status, lang),
            evidence(claim, lang)
        ));
    }
    lines
}
