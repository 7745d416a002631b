//! The page's figures and the API's vocabulary: figure and scenario descriptions, languages, errors.

use serde::Serialize;
use tsify::Tsify;

use crate::host::loop_scenarios::{LoopScenario, SCENARIOS as LOOP_SCENARIOS};
use crate::host::scenarios::{ScenarioDef, SCENARIOS};
use crate::lesson::messages::quoted;
use crate::lesson::Lang;

/// Which figure: one per lesson function, and the agent loop that uses them.
#[derive(Serialize, Tsify, Clone, Copy, Debug, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum FigureId {
    Validate,
    Write,
    Prepare,
    Loop,
}

/// The part of a scenario's data that the reader's own input replaces.
#[derive(Serialize, Tsify, Clone, Copy, Debug, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum Edits {
    /// The items the model submits (`data.items`).
    Items,
    /// The host's stored plan (`data.state.items`); the host only stores a valid plan.
    Plan,
    /// Nothing: the figure runs its scenarios only (the loop, whose data is a setup).
    Nothing,
}

/// A host-owned field that a figure's steps show.
#[derive(Serialize, Tsify, Clone, Copy, Debug, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum HostPart {
    /// The stored plan, `state.items`.
    Items,
    /// The conversation history.
    Messages,
}

impl HostPart {
    pub fn name(self) -> &'static str {
        match self {
            HostPart::Items => "items",
            HostPart::Messages => "messages",
        }
    }
}

/// A figure: one lesson function, stepped through from its call entry.
#[derive(Serialize, Tsify, Clone, Copy, Debug, PartialEq)]
pub struct Figure {
    pub id: FigureId,
    /// The function the figure steps through.
    pub symbol: &'static str,
    pub file: &'static str,
    /// The call entry that sets up a scenario and calls `symbol`.
    pub entry: &'static str,
    pub edits: Edits,
    /// The host fields its steps show, in this order.
    pub host: &'static [HostPart],
}

pub const FIGURES: [Figure; 4] = [
    Figure {
        id: FigureId::Validate,
        symbol: "validate_todos",
        file: "src/lesson/plan.rs",
        entry: "run_validate",
        edits: Edits::Items,
        // validate_todos cannot see the host: its steps show none.
        host: &[],
    },
    Figure {
        id: FigureId::Write,
        symbol: "write_todos",
        file: "src/lesson/plan.rs",
        entry: "run_write",
        edits: Edits::Items,
        host: &[HostPart::Items],
    },
    Figure {
        id: FigureId::Prepare,
        symbol: "prepare_messages",
        file: "src/lesson/plan.rs",
        entry: "run_prepare",
        edits: Edits::Plan,
        host: &[HostPart::Items, HostPart::Messages],
    },
    Figure {
        id: FigureId::Loop,
        symbol: "run_loop",
        file: "src/lesson/agent.rs",
        entry: "run_agent",
        edits: Edits::Nothing,
        host: &[HostPart::Items, HostPart::Messages],
    },
];

impl FigureId {
    pub fn name(self) -> &'static str {
        match self {
            FigureId::Validate => "validate",
            FigureId::Write => "write",
            FigureId::Prepare => "prepare",
            FigureId::Loop => "loop",
        }
    }
}

/// A scenario as the page's switcher lists it.
#[derive(Serialize, Tsify, Clone, Debug, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct Scenario {
    pub id: &'static str,
    pub label: &'static str,
    pub hint: &'static str,
    pub is_default: bool,
}

/// Why an API call could not run at all (an unknown id or language).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ApiError(pub String);

impl std::fmt::Display for ApiError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for ApiError {}

/// Whether this build holds the loop figure's runtime (the `loop` feature). A constant, so that in
/// the plan module (built without it) every loop path after a check of it is dead code, left out.
pub const LOOP_BUILT: bool = cfg!(feature = "loop");

/// Why a loop call failed in the plan module. Each way into the loop's runtime starts with
/// `if !LOOP_BUILT { return Err(not_built()); }`: written so, what follows is unreachable on its face.
/// (`loop_built()?` was tried: the optimizer could not prove the error path always taken, and the plan
/// module kept the loop, 196 KB gzip in place of 122.)
pub fn not_built() -> ApiError {
    ApiError(
        "the loop figure is not in this module (www/pkg-plan, figures 1–3): load the whole module (www/pkg)"
            .to_string(),
    )
}

pub fn parse_lang(lang: &str) -> Result<Lang, ApiError> {
    match lang {
        "zh" => Ok(Lang::Zh),
        "en" => Ok(Lang::En),
        other => Err(ApiError(format!("unknown language {}: use \"zh\" or \"en\"", quoted(other)))),
    }
}

pub fn figure(id: &str) -> Result<Figure, ApiError> {
    FIGURES.iter().copied().find(|f| f.id.name() == id).ok_or_else(|| {
        let known: Vec<&str> = FIGURES.iter().map(|f| f.id.name()).collect();
        ApiError(format!("unknown figure {}: expected one of {}", quoted(id), known.join(", ")))
    })
}

/// A figure's scenarios, its default first.
pub fn scenario_defs(figure: Figure) -> impl Iterator<Item = &'static ScenarioDef> {
    SCENARIOS.iter().filter(move |s| s.figure == figure.id)
}

/// One of a figure's scenarios, or an error that lists them.
pub fn scenario_def(figure: Figure, id: &str) -> Result<&'static ScenarioDef, ApiError> {
    scenario_defs(figure).find(|s| s.id == id).ok_or_else(|| {
        let ids: Vec<&str> = scenario_defs(figure).map(|s| s.id).collect();
        ApiError(format!(
            "unknown scenario {} for figure \"{}\": expected one of {}",
            quoted(id),
            figure.id.name(),
            ids.join(", ")
        ))
    })
}

/// One of the loop's scenarios (LOOP.md's table), or an error that lists them.
pub fn loop_scenario(id: &str) -> Result<&'static LoopScenario, ApiError> {
    LOOP_SCENARIOS.iter().find(|s| s.id == id).ok_or_else(|| {
        let ids: Vec<&str> = LOOP_SCENARIOS.iter().map(|s| s.id).collect();
        ApiError(format!(
            "unknown scenario {} for figure \"loop\": expected one of {}",
            quoted(id),
            ids.join(", ")
        ))
    })
}

pub fn scenarios(figure_id: &str, lang: Lang) -> Result<Vec<Scenario>, ApiError> {
    let figure = figure(figure_id)?;
    let words: Vec<(&'static str, Words, Words)> = match figure.id {
        FigureId::Loop => LOOP_SCENARIOS.iter().map(|s| (s.id, s.label, s.hint)).collect(),
        _ => scenario_defs(figure).map(|s| (s.id, s.label, s.hint)).collect(),
    };
    Ok(words
        .into_iter()
        .enumerate()
        .map(|(i, (id, label, hint))| Scenario {
            id,
            label: lang.pick(label.0, label.1),
            hint: lang.pick(hint.0, hint.1),
            is_default: i == 0,
        })
        .collect())
}

/// (Chinese, English)
type Words = (&'static str, &'static str);
