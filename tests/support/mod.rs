//! Reading a trace back in tests: locals and host fields as JSON values, scenario data by id.
#![allow(dead_code)]

#[cfg(not(target_arch = "wasm32"))]
pub mod folder;

use serde_json::{Map, Value};
use todo_trace::host::entries::Data;
use todo_trace::host::figures::{figure, scenario_def};
use todo_trace::host::run::Trace;
use todo_trace::lesson::Lang;
use todo_trace::recorder::{Json, Step};

fn parse(raw: &Json) -> Value {
    serde_json::from_str(raw.get()).unwrap()
}

/// A local of the step's call (`null` if moved away or not in scope).
pub fn local(trace: &Trace, step: &Step, name: &str) -> Value {
    let locals = trace.recording.locals(step);
    let local = locals.iter().find(|l| l.name == name);
    local.and_then(|l| l.value.as_ref()).map_or(Value::Null, parse)
}

/// The host's data at a step, as `{field: [entries]}` (removed entries left out).
pub fn host(trace: &Trace, step: &Step) -> Value {
    let view = &trace.recording.hosts[step.host as usize];
    let fields = view.iter().map(|field| {
        let entries = trace.recording.host_entries(step, field.field);
        (field.field.to_string(), Value::Array(entries.iter().map(parse).collect()))
    });
    Value::Object(fields.collect::<Map<_, _>>())
}

/// A scenario's data.
pub fn data(figure_id: &str, scenario: &str, lang: Lang) -> Data {
    scenario_def(figure(figure_id).unwrap(), scenario).unwrap().data(lang)
}

/// (tool name, result is_error) for every tool call of the printed history.
pub fn tool_calls(outcome: &Value) -> Vec<(String, bool, String)> {
    let blocks: Vec<&Value> = outcome["history"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|m| m["content"].as_array())
        .flatten()
        .collect();
    blocks
        .iter()
        .filter(|b| b["type"] == "tool_use")
        .map(|call| {
            let result = blocks
                .iter()
                .find(|b| b["type"] == "tool_result" && b["tool_use_id"] == call["id"])
                .expect("a result for every call");
            (
                call["name"].as_str().unwrap().to_string(),
                result["is_error"].as_bool().unwrap(),
                result["content"].as_str().unwrap().to_string(),
            )
        })
        .collect()
}
