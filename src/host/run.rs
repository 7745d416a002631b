//! Running a figure into a [`Trace`]: a scenario, or the reader's own input.

use serde::Serialize;
use tsify::Tsify;

use crate::host::claims::{claims, claims_along, ClaimsFrom, PlanClaim};
use crate::host::entries::{run_agent, run_prepare, run_validate, run_write, Data};
use crate::host::figures::{
    figure, loop_scenario, not_built, scenario_def, scenario_defs, ApiError, Edits, Figure,
    FigureId, HostPart, LOOP_BUILT,
};
use crate::host::input;
use crate::host::loop_scenarios::{run_file, AgentSetup, EXPECTED_TXT};
use crate::host::predict::{questions, Question};
use crate::host::runs::{self, Divergence, Replay, RunFile, RunSettings, Source};
use crate::lesson::agent_types::{Decision, HostEvent, LoopError, Stop};
use crate::lesson::{validate_todos, Lang, Message, State, Todo, TodoError};
use crate::recorder::{self, ErrorInfo, Event, HostList, Recording, Settings, Snapshot};
use serde_json::Value;

/// A recorded run of one figure, as the page replays it.
#[derive(Serialize, Tsify, Debug)]
pub struct Trace {
    pub figure: FigureId,
    pub scenario: String,
    /// False when the reader's input was refused before anything ran: then nothing was recorded.
    pub ran: bool,
    /// What the call entry was given, and read.
    pub data: Given,
    #[serde(flatten)]
    pub recording: Recording,
    pub result: CallResult,
    /// The loop figure's final plan beside the evidence in its history (absent elsewhere).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[tsify(optional)]
    pub claims: Option<Vec<PlanClaim>>,
    /// What "predict, then reveal" asks before each host decision or result (predict.rs); absent
    /// when nothing ran.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    #[tsify(optional)]
    pub questions: Vec<Question>,
    /// The loop figure's claims against the evidence so far, along the run (absent elsewhere).
    #[serde(rename = "claimsAlong", skip_serializing_if = "Option::is_none")]
    #[tsify(optional)]
    pub claims_along: Option<Vec<ClaimsFrom>>,
    /// The loop figure's run: where it came from, and where the replay left it (absent elsewhere).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[tsify(optional)]
    pub replay: Option<ReplayInfo>,
}

/// What the page says about the run a loop trace replays.
#[derive(Serialize, Tsify, Clone, Debug, PartialEq)]
pub struct ReplayInfo {
    /// In the page's language: `live: NAME, recorded DATE`, `stand-in: standard`.
    pub origin: String,
    pub source: Source,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[tsify(optional)]
    pub recorded: Option<String>,
    pub settings: RunSettings,
    /// The model calls the recording holds.
    pub calls: usize,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[tsify(optional)]
    pub diverged: Option<Divergence>,
}

/// `{ok: true, value}` or `{ok: false, error: {code, message}}`; the value is kept as JSON text.
#[derive(Serialize, Tsify, Clone, Debug)]
pub struct CallResult {
    pub ok: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[tsify(optional, type = "unknown")]
    pub value: Option<recorder::Json>,
    /// In place of `value`, the value as the recording stored it: an index into `values` (the loop's
    /// outcome, which repeats the whole history: 445 KB of the 100-call run's JSON written again).
    /// `www/api.js` puts that value in `value`, so a trace in JS never has this field;
    /// [`Trace::result_value`] reads either.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[tsify(optional, type = "never")]
    pub stored: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[tsify(optional)]
    pub error: Option<ErrorInfo>,
}

impl CallResult {
    pub fn of<T: Snapshot, E: Into<LoopError>>(result: Result<T, E>, lang: Lang) -> CallResult {
        match result {
            Ok(value) => CallResult {
                ok: true,
                value: Some(recorder::Json::of(&value)),
                stored: None,
                error: None,
            },
            Err(error) => CallResult::failed(error.into().info(lang)),
        }
    }

    pub fn failed(error: ErrorInfo) -> CallResult {
        CallResult { ok: false, value: None, stored: None, error: Some(error) }
    }
}

pub fn trace(figure_id: &str, scenario_id: &str, lang: Lang) -> Result<Trace, ApiError> {
    trace_with(figure_id, scenario_id, lang, Settings::default())
}

/// [`trace`] with other recording [`Settings`].
pub fn trace_with(
    figure_id: &str,
    scenario_id: &str,
    lang: Lang,
    settings: Settings,
) -> Result<Trace, ApiError> {
    let figure = figure(figure_id)?;
    if figure.id == FigureId::Loop {
        if !LOOP_BUILT {
            return Err(not_built());
        }
        let scenario = loop_scenario(scenario_id)?;
        return Ok(run(figure, scenario.id, Data::agent(scenario.setup, lang), lang, settings));
    }
    let scenario = scenario_def(figure, scenario_id)?;
    Ok(run(figure, scenario.id, scenario.data(lang), lang, settings))
}

/// The `scenario` of a trace made from the reader's own input.
pub const INPUT_SCENARIO: &str = "input";

/// The `scenario` of a loop trace replaying a run file the reader opened.
pub const RUN_SCENARIO: &str = "run";

/// Replays a run file's bytes in the loop figure. A file over a limit, or not a run file, gives a
/// trace that did not run with the coded error.
pub fn trace_run(bytes: &[u8], lang: Lang) -> Result<Trace, ApiError> {
    trace_run_with(bytes, lang, Settings::default())
}

/// [`trace_run`] with other recording [`Settings`].
pub fn trace_run_with(bytes: &[u8], lang: Lang, settings: Settings) -> Result<Trace, ApiError> {
    if !LOOP_BUILT {
        return Err(not_built());
    }
    let figure = figure(FigureId::Loop.name())?;
    match runs::parse(bytes) {
        Ok(run) => Ok(run_file_trace(figure, RUN_SCENARIO, run, lang, settings)),
        Err(error) => {
            let info = ErrorInfo {
                code: error.code(),
                message: error.message(lang),
                line: None,
                column: None,
            };
            Ok(refused_run(figure, info))
        }
    }
}

/// The run file of a built-in loop scenario.
pub fn scenario_run(scenario_id: &str, lang: Lang) -> Result<RunFile, ApiError> {
    if !LOOP_BUILT {
        return Err(not_built());
    }
    let scenario = loop_scenario(scenario_id)?;
    Ok(run_file(&scenario.setup, lang))
}

/// The loop figure replaying `run`.
pub fn run_file_trace(
    figure: Figure,
    scenario: &str,
    run: RunFile,
    lang: Lang,
    settings: Settings,
) -> Trace {
    replay_trace(figure, scenario, run, None, lang, settings)
}

/// [`run_file_trace`] with the user's answer to "run main.py?" changed (a "what if", what_if.rs).
pub fn replay_trace(
    figure: Figure,
    scenario: &str,
    run: RunFile,
    answer: Option<Decision>,
    lang: Lang,
    settings: Settings,
) -> Trace {
    let data = Data { run: Some(run), answer, ..Data::agent_none() };
    self::run(figure, scenario, data, lang, settings)
}

/// Runs a figure on the reader's own text, parsed by [`input::parse`] (JSON or a Python literal).
///
/// The text replaces the part of the default scenario's data that the figure `edits`. A host plan
/// must pass `validate_todos` first, since the host only ever stores a valid plan. Text that does
/// not parse, or a host plan that is not valid, gives a trace with that error as its result that
/// did not run. Only an unknown figure is an `ApiError`.
pub fn trace_input(figure_id: &str, text: &str, lang: Lang) -> Result<Trace, ApiError> {
    trace_input_with(figure_id, text, lang, Settings::default())
}

/// [`trace_input`] with other recording [`Settings`].
pub fn trace_input_with(
    figure_id: &str,
    text: &str,
    lang: Lang,
    settings: Settings,
) -> Result<Trace, ApiError> {
    let (figure, data) = editable(figure_id, lang)?;
    Ok(run_given(
        figure,
        data,
        input::parse(text).map_err(|error| error.info(lang)),
        lang,
        settings,
    ))
}

/// Runs a figure on an author's value, read once into plain data by `www/value.js` and crossed as
/// the JSON text `JSON.stringify` made of it: parsed as JSON (a number as the nearest float, as JS
/// holds it), not by the reader-text grammar, whose exactness rules are about what a reader typed.
pub fn trace_value(figure_id: &str, json: &str, lang: Lang) -> Result<Trace, ApiError> {
    let (figure, data) = editable(figure_id, lang)?;
    // value.js refused what JSON cannot hold; text that still does not parse is a bug of the page's.
    let value = serde_json::from_str(json)
        .map_err(|error| ApiError(format!("not the JSON of a value: {error}")))?;
    Ok(run_given(figure, data, Ok(value), lang, Settings::default()))
}

/// What [`trace_input`] and [`trace_value`] do once the text became data (or was refused).
fn run_given(
    figure: Figure,
    mut data: Data,
    given: Result<Value, ErrorInfo>,
    lang: Lang,
    settings: Settings,
) -> Trace {
    let parsed = match given {
        Ok(value) => value,
        Err(error) => return refused(figure, data, error),
    };
    match figure.edits {
        Edits::Plan => match validate_todos(&parsed) {
            Ok(plan) => data.state.items = plan,
            Err(error) => return refused(figure, data, error.info(lang)),
        },
        Edits::Items => data.items = parsed,
        Edits::Nothing => unreachable!("editable() refuses a figure that edits nothing"),
    }
    run(figure, INPUT_SCENARIO, data, lang, settings)
}

/// The trace of reader input refused before it crossed into the module (`api::js_value`): it did
/// not run, and its result is `error`.
pub fn refused_trace(figure_id: &str, error: ErrorInfo, lang: Lang) -> Result<Trace, ApiError> {
    // The loop figure takes a run file (as a value, or a file too large to read): refused as a run.
    let loop_figure = figure(figure_id)?;
    if loop_figure.id == FigureId::Loop {
        return Ok(refused_run(loop_figure, error));
    }
    let (figure, data) = editable(figure_id, lang)?;
    Ok(refused(figure, data, error))
}

/// A figure that takes the reader's own input, and its default scenario's data to start from.
fn editable(figure_id: &str, lang: Lang) -> Result<(Figure, Data), ApiError> {
    let figure = figure(figure_id)?;
    match (figure.edits, scenario_defs(figure).next()) {
        (Edits::Items | Edits::Plan, Some(default)) => Ok((figure, default.data(lang))),
        _ => Err(ApiError(format!(
            "figure \"{}\" takes no input of the reader's own",
            figure.id.name()
        ))),
    }
}

/// The trace of a run file refused before it was replayed.
fn refused_run(figure: Figure, error: ErrorInfo) -> Trace {
    Trace {
        figure: figure.id,
        scenario: RUN_SCENARIO.to_string(),
        ran: false,
        data: Given::default(),
        recording: Recording::default(),
        result: CallResult::failed(error),
        claims: None,
        claims_along: None,
        replay: None,
        questions: Vec::new(),
    }
}

/// The trace of reader input that never reached the call entry: the part the reader edits is left
/// empty (`items: null`, or an empty host plan) and nothing was recorded.
fn refused(figure: Figure, mut data: Data, error: ErrorInfo) -> Trace {
    match figure.edits {
        Edits::Plan => data.state.items.clear(),
        Edits::Items | Edits::Nothing => data.items = Value::Null,
    }
    Trace {
        figure: figure.id,
        scenario: INPUT_SCENARIO.to_string(),
        ran: false,
        data: Given::of(figure.id, &data),
        recording: Recording::default(),
        result: CallResult::failed(error),
        claims: None,
        replay: None,
        claims_along: None,
        questions: Vec::new(),
    }
}

/// Runs a figure's call entry on `data` while recording.
pub fn run(figure: Figure, scenario: &str, data: Data, lang: Lang, settings: Settings) -> Trace {
    let given = Given::of(figure.id, &data);
    let fields: Vec<(&'static str, &dyn HostList)> =
        figure.host.iter().map(|&part| (part.name(), given.host_part(part))).collect();
    // The stored conversation a model request is prepared from, and how a returned error reads.
    let settings = Settings { history: Some(HostPart::Messages.name()), ..settings };
    // The plan's functions fail with a `TodoError`, the loop with a `LoopError`.
    let describe = move |error: &dyn std::any::Any| {
        if let Some(error) = error.downcast_ref::<TodoError>() {
            error.info(lang)
        } else if let Some(error) = error.downcast_ref::<LoopError>() {
            error.info(lang)
        } else {
            ErrorInfo { code: "error", message: String::new(), line: None, column: None }
        }
    };
    let (run_file, answer) = (data.run, data.answer);
    let data = Data { run: None, ..data };
    // What a run's output is checked against: expected.txt as the run read it, else the page's own.
    let expected = Some(run_file.as_ref().and_then(RunFile::expected).unwrap_or(EXPECTED_TXT));
    let (recording, (mut result, outcome, replay)) =
        recorder::record_with(figure.symbol, &fields, settings, describe, || match figure.id {
            FigureId::Validate => (CallResult::of(run_validate(data, lang), lang), None, None),
            FigureId::Write => (CallResult::of(run_write(data, lang), lang), None, None),
            FigureId::Prepare => (CallResult::of(run_prepare(data, lang), lang), None, None),
            FigureId::Loop => {
                let Some(run) = run_file.as_ref().filter(|_| LOOP_BUILT) else {
                    let error = ErrorInfo {
                        code: "no_run",
                        message: String::new(),
                        line: None,
                        column: None,
                    };
                    return (CallResult::failed(error), None, None);
                };
                // The page words where the replay left its recording in the page's language.
                let mut replay = Replay::new(run);
                replay.words = lang;
                replay.answer = answer;
                let result = run_agent(&replay, lang);
                let info = ReplayInfo {
                    origin: run.origin(lang),
                    source: run.model.clone(),
                    recorded: run.recorded.clone(),
                    settings: run.settings,
                    calls: run.calls.len(),
                    diverged: replay.diverged(),
                };
                match result {
                    Ok(outcome) => {
                        // Why the loop stopped is the host's last decision, on the loop's last step.
                        match outcome.stop {
                            Stop::Answered => HostEvent::Answered,
                            Stop::CallLimit => HostEvent::CallLimit,
                        }
                        .decide();
                        // Its value is set below, once the recording holds it.
                        let result =
                            CallResult { ok: true, value: None, stored: None, error: None };
                        (result, Some(outcome), Some(info))
                    }
                    Err(error) => (CallResult::failed(error.info(lang)), None, Some(info)),
                }
            }
        });
    // The page's evidence pane at every step, worked out here from the host state each step holds.
    let (claims, claims_along) = match &outcome {
        Some(outcome) => {
            // The outcome as the recording stored it when `run_loop` returned it, referred to
            // rather than written again: it repeats the whole history (the 100-call run's is 445 KB).
            result.stored = returned(&recording);
            if result.stored.is_none() {
                result.value = Some(recorder::Json::of(outcome));
            }
            (
                Some(claims(outcome, expected)),
                Some(claims_along(&recording, &outcome.history, expected)),
            )
        }
        None => (None, None),
    };
    let mut trace = Trace {
        figure: figure.id,
        scenario: scenario.to_string(),
        ran: true,
        data: given,
        recording,
        result,
        claims,
        replay,
        claims_along,
        questions: Vec::new(),
    };
    trace.questions = questions(&trace, lang);
    trace
}

impl Trace {
    /// What the traced call returned, as JSON text: `result.value`, or the stored value it refers to.
    pub fn result_value(&self) -> Option<recorder::Json> {
        let stored = self.result.stored.map(|index| self.recording.value(index));
        stored.or_else(|| self.result.value.clone())
    }
}

/// The value the outermost call returned, as stored: the last step's, if it is that call's return.
fn returned(recording: &Recording) -> Option<u32> {
    let last = recording.steps.last()?;
    (last.event == Event::Return && last.caller.is_none()).then_some(last.value).flatten()
}

/// The parts of a figure's [`Data`] that its call entry reads (entries.rs), each absent where the
/// entry never reads it: the page shows what the function was given, and parsing a trace costs
/// less without the rest (a short trace spent a quarter of its parse on it).
#[derive(Serialize, Tsify, Clone, Debug, PartialEq, Default)]
pub struct Given {
    #[serde(skip_serializing_if = "Option::is_none")]
    #[tsify(optional)]
    pub state: Option<State>,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[tsify(optional, type = "unknown")]
    pub items: Option<Value>,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[tsify(optional)]
    pub messages: Option<Vec<Message>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[tsify(optional)]
    pub agent: Option<AgentSetup>,
}

impl Given {
    /// What `run_validate`, `run_write`, `run_prepare` and `run_agent` read of their `data`.
    pub fn of(figure: FigureId, data: &Data) -> Given {
        let items = || Some(data.items.clone());
        let state = || Some(data.state.clone());
        match figure {
            FigureId::Validate => Given { items: items(), ..Given::default() },
            FigureId::Write => Given { state: state(), items: items(), ..Given::default() },
            FigureId::Prepare => {
                Given { state: state(), messages: Some(data.messages.clone()), ..Given::default() }
            }
            FigureId::Loop => Given { agent: data.agent, ..Given::default() },
        }
    }

    /// One host field as the call starts; a field the entry is not given starts empty (the loop
    /// makes its own plan and history).
    pub fn host_part(&self, part: HostPart) -> &dyn HostList {
        static NO_TODOS: Vec<Todo> = Vec::new();
        static NO_MESSAGES: Vec<Message> = Vec::new();
        match part {
            HostPart::Items => self.state.as_ref().map_or(&NO_TODOS, |state| &state.items),
            HostPart::Messages => self.messages.as_ref().unwrap_or(&NO_MESSAGES),
        }
    }
}

impl Data {
    /// The loop figure's data for a built-in scenario: its setup, and the run the stand-in makes
    /// with it (the loop starts its own plan and history).
    pub fn agent(setup: AgentSetup, lang: Lang) -> Data {
        Data { agent: Some(setup), run: Some(run_file(&setup, lang)), ..Data::agent_none() }
    }

    /// Nothing but empty parts: the loop figure's data before its run is given.
    fn agent_none() -> Data {
        Data {
            state: State::default(),
            items: Value::Null,
            messages: Vec::new(),
            agent: None,
            run: None,
            answer: None,
        }
    }
}
