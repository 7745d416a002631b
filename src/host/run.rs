//! Running a figure into a [`Trace`]: a scenario, or the reader's own input.

use serde::Serialize;
use tsify::Tsify;

use crate::api::input::{self, InputError};
use crate::host::entries::{run_agent, run_prepare, run_validate, run_write, Data};
use crate::host::figures::{
    figure, loop_scenario, scenario_def, scenario_defs, ApiError, Edits, Figure, FigureId, HostPart,
};
use crate::host::loop_scenarios::{claims, AgentSetup, PlanClaim};
use crate::lesson::agent_types::Stop;
use crate::lesson::{validate_todos, Lang, Message, State, Todo, TodoError};
use crate::recorder::json::{Object, ToJson};
use crate::recorder::{
    self, each, text, ErrorInfo, HostEvent, HostList, Recording, Settings, Snapshot,
};
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
    pub result: Outcome,
    /// The loop figure's final plan beside the evidence in its history (absent elsewhere).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[tsify(optional)]
    pub claims: Option<Vec<PlanClaim>>,
}

impl Trace {
    /// The trace as JSON text, the same as serde_json's `to_string` of it (a test holds them
    /// equal), with the steps written by [`recorder::write_steps`] and the tables written here rather
    /// than through serde: for a short trace, serde's writing of the small tables cost as much
    /// as its steps.
    pub fn to_json(&self) -> String {
        // Every part is UTF-8: serde_json's text, and ASCII.
        String::from_utf8(self.write(None)).unwrap_or_default()
    }

    /// The trace as it crosses to JS: the UTF-8 of [`Trace::to_json`]'s text with its bindings and
    /// host fields as arrays rather than objects and its steps as numbers, which are returned beside
    /// it ([`recorder::write_wire_steps`]). `traceFrom` in wasm.rs makes them into the same objects,
    /// sooner than `JSON.parse` makes objects.
    pub fn to_wire(&self) -> (Vec<u8>, Vec<i32>) {
        let mut numbers = Vec::new();
        (self.write(Some(&mut numbers)), numbers)
    }

    /// The JSON text, or with `wire_numbers` the text as it crosses to JS.
    fn write(&self, wire_numbers: Option<&mut Vec<i32>>) -> Vec<u8> {
        let r = &self.recording;
        let wire = wire_numbers.is_some();
        // About what a step takes with its share of the tables, so that the text is rarely copied.
        let mut out = Vec::with_capacity(192 * r.steps.len() + 2048);
        let put = |out: &mut Vec<u8>, key: &str, value: &dyn Snapshot| {
            out.extend_from_slice(if out.is_empty() { b"{\"" } else { b",\"" });
            out.extend_from_slice(key.as_bytes());
            out.extend_from_slice(b"\":");
            value.write_json(out);
        };
        put(&mut out, "figure", &self.figure);
        put(&mut out, "scenario", &self.scenario);
        put(&mut out, "ran", &self.ran);
        put(&mut out, "data", &self.data);
        out.extend_from_slice(b",\"values\":");
        each(&mut out, &r.values, |out, value| out.extend_from_slice(value.bytes()));
        if !r.parts.is_empty() {
            out.extend_from_slice(b",\"parts\":");
            numbers(&mut out, &r.parts);
        }
        // On the wire, a record is an array of its fields in order: `[name, type]`.
        let (open, close) = if wire { (b'[', b']') } else { (b'{', b'}') };
        let key = |out: &mut Vec<u8>, key: &[u8]| {
            if !wire {
                out.extend_from_slice(key);
            }
        };
        out.extend_from_slice(b",\"bindings\":");
        each(&mut out, &r.bindings, |out, binding| {
            out.push(open);
            key(out, b"\"name\":");
            text(out, binding.name);
            out.push(b',');
            key(out, b"\"type\":");
            text(out, binding.ty);
            out.push(close);
        });
        out.extend_from_slice(b",\"scopes\":");
        each(&mut out, &r.scopes, |out, scope| numbers(out, scope));
        out.extend_from_slice(b",\"hosts\":");
        each(&mut out, &r.hosts, |out, view| {
            each(out, view, |out, field| {
                out.push(open);
                key(out, b"\"field\":");
                text(out, field.field);
                out.push(b',');
                key(out, b"\"entries\":");
                numbers(out, &field.entries);
                out.push(b',');
                key(out, b"\"changes\":");
                text(out, &field.changes);
                if !field.was.is_empty() {
                    out.push(b',');
                    key(out, b"\"was\":");
                    numbers(out, &field.was);
                }
                out.push(close);
            })
        });
        if let Some(wire_numbers) = wire_numbers {
            recorder::write_wire_steps(&r.steps, &mut out, wire_numbers);
        } else {
            out.extend_from_slice(b",\"steps\":");
            recorder::write_steps(&r.steps, &mut out);
        }
        put(&mut out, "output", &r.output);
        if !r.requests.is_empty() {
            put(&mut out, "requests", &r.requests);
        }
        if let Some(effect) = &r.effect {
            put(&mut out, "effect", effect);
        }
        put(&mut out, "result", &self.result);
        if let Some(claims) = &self.claims {
            put(&mut out, "claims", claims);
        }
        out.push(b'}');
        out
    }
}

fn numbers(out: &mut Vec<u8>, numbers: &[u32]) {
    each(out, numbers, |out, &n| recorder::number(out, n.into()));
}

/// `{ok: true, value}` or `{ok: false, error: {code, message}}`; the value is kept as JSON text.
#[derive(Serialize, Tsify, Clone, Debug)]
pub struct Outcome {
    pub ok: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[tsify(optional, type = "unknown")]
    pub value: Option<recorder::Json>,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[tsify(optional)]
    pub error: Option<ErrorInfo>,
}

impl Outcome {
    pub fn of<T: ToJson>(result: Result<T, TodoError>, lang: Lang) -> Outcome {
        match result {
            Ok(value) => Outcome { ok: true, value: Some(recorder::raw_json(&value)), error: None },
            Err(error) => Outcome::failed(error.info(lang)),
        }
    }

    pub fn failed(error: ErrorInfo) -> Outcome {
        Outcome { ok: false, value: None, error: Some(error) }
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
        let scenario = loop_scenario(scenario_id)?;
        return Ok(run(figure, scenario.id, Data::agent(scenario.setup), lang, settings));
    }
    let scenario = scenario_def(figure, scenario_id)?;
    Ok(run(figure, scenario.id, scenario.data(lang), lang, settings))
}

/// The `scenario` of a trace made from the reader's own input.
pub const INPUT_SCENARIO: &str = "input";

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

/// Runs a figure on data given as a value (`traceValue`: an author's JS value, converted), or on
/// the error that refused it; otherwise as [`trace_input`].
pub fn trace_value(
    figure_id: &str,
    given: Result<Value, ErrorInfo>,
    lang: Lang,
) -> Result<Trace, ApiError> {
    let (figure, data) = editable(figure_id, lang)?;
    Ok(run_given(figure, data, given, lang, Settings::default()))
}

/// What [`trace_input`] and [`trace_value`] share once the text or value became data (or was refused).
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

/// The trace of reader text refused before it was read: the wasm layer refuses a string whose
/// UTF-16 length is already over the size limit without copying it into the module.
pub fn refused_input(figure_id: &str, error: &InputError, lang: Lang) -> Result<Trace, ApiError> {
    let (figure, data) = editable(figure_id, lang)?;
    Ok(refused(figure, data, error.info(lang)))
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
        result: Outcome::failed(error),
        claims: None,
    }
}

/// Runs a figure's call entry on `data` while recording.
pub fn run(figure: Figure, scenario: &str, data: Data, lang: Lang, settings: Settings) -> Trace {
    let given = Given::of(figure.id, &data);
    let fields: Vec<(&'static str, &dyn HostList)> =
        figure.host.iter().map(|&part| (part.name(), given.host_part(part))).collect();
    let (recording, (result, claims)) =
        recorder::record_with(figure.symbol, lang, &fields, settings, || match figure.id {
            FigureId::Validate => (Outcome::of(run_validate(data, lang), lang), None),
            FigureId::Write => (Outcome::of(run_write(data, lang), lang), None),
            FigureId::Prepare => (Outcome::of(run_prepare(data, lang), lang), None),
            FigureId::Loop => {
                let result = run_agent(data, lang);
                let claims = result.as_ref().ok().map(|outcome| {
                    // Why the loop stopped is the host's last decision, on the loop's last step.
                    recorder::decide(match outcome.stop {
                        Stop::Answered => HostEvent::Answered,
                        Stop::CallLimit => HostEvent::CallLimit,
                    });
                    claims(outcome)
                });
                (Outcome::of(result, lang), claims)
            }
        });
    Trace {
        figure: figure.id,
        scenario: scenario.to_string(),
        ran: true,
        data: given,
        recording,
        result,
        claims,
    }
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
    /// The loop figure's data: its setup, and an empty plan and history (the loop starts both).
    pub fn agent(setup: AgentSetup) -> Data {
        Data {
            state: State::default(),
            items: Value::Null,
            messages: Vec::new(),
            agent: Some(setup),
        }
    }
}

// The trace's text of each type (`json`), as serde writes it by the attributes above.
impl ToJson for Outcome {
    fn to_json(&self, out: &mut Vec<u8>) {
        Object::new(out)
            .field("ok", &self.ok)
            .maybe("value", &self.value)
            .maybe("error", &self.error)
            .end();
    }
}

impl ToJson for Given {
    fn to_json(&self, out: &mut Vec<u8>) {
        Object::new(out)
            .maybe("state", &self.state)
            .maybe("items", &self.items)
            .maybe("messages", &self.messages)
            .maybe("agent", &self.agent)
            .end();
    }
}
