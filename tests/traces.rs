//! The traces: the teaching points of LESSON.md, listings that match the file, golden files.

use serde_json::{json, Value};
use todo_trace::host::entries::Data;
use todo_trace::host::figures::{self, FIGURES};
use todo_trace::host::input::InputError;
use todo_trace::host::loop_scenarios::run_file;
use todo_trace::host::run::{self, Trace};
use todo_trace::host::source::source;
use todo_trace::lesson::Lang;
use todo_trace::recorder::{kept_fields, Event, Settings, Step};

mod support;
use support::{host, local};

fn trace(figure: &str, scenario: &str, lang: Lang) -> Trace {
    run::trace(figure, scenario, lang).unwrap()
}

/// The text of the line a step is on, from its function's listing.
fn line_text(step: &Step) -> &'static str {
    let listing = source(step.symbol).unwrap();
    listing.lines.iter().find(|l| l.no == step.line).map(|l| l.text).unwrap_or("")
}

fn steps_at<'a>(steps: &'a [Step], text: &str) -> Vec<&'a Step> {
    steps.iter().filter(|s| line_text(s).trim() == text).collect()
}

/// What the traced call returned.
fn value(trace: &Trace) -> Value {
    serde_json::from_str(trace.result_value().expect("a returned value").get()).unwrap()
}

fn ids(items: &Value) -> Vec<&str> {
    items.as_array().unwrap().iter().map(|i| i["id"].as_str().unwrap()).collect()
}

fn statuses(items: &Value) -> Vec<&str> {
    items.as_array().unwrap().iter().map(|i| i["status"].as_str().unwrap()).collect()
}

fn error_code(trace: &Trace) -> Option<&'static str> {
    trace.result.error.as_ref().map(|e| e.code)
}

/// Every figure x scenario x language.
fn every_trace() -> Vec<(String, Trace)> {
    let mut all = Vec::new();
    for figure in FIGURES {
        for (lang, lang_id) in [(Lang::Zh, "zh"), (Lang::En, "en")] {
            for scenario in figures::scenarios(figure.id.name(), lang).unwrap() {
                let name = format!("{}-{}-{lang_id}", figure.id.name(), scenario.id);
                all.push((name, trace(figure.id.name(), scenario.id, lang)));
            }
        }
    }
    all
}

const PUSH: &str = "new_list.push(Todo {";
const ASSIGN: &str = "state.items = replacement;";

#[test]
fn validate_valid_grows_the_new_list_by_one_per_pass() {
    let t = trace("validate", "valid", Lang::En);
    let pushes = steps_at(&t.recording.steps, PUSH);
    assert_eq!(pushes.len(), 2);
    for (pass, step) in pushes.iter().enumerate() {
        // Paused at the append: this item passed every check, the next is not yet looked at.
        assert_eq!(local(&t, step, "new_list").as_array().unwrap().len(), pass);
        assert_eq!(local(&t, step, "index"), json!(pass));
        assert_eq!(local(&t, step, "seen_ids").as_array().unwrap().len(), pass + 1);
    }
    assert_eq!(ids(&value(&t)), ["1", "2"]);
    assert!(t.result.ok);
}

#[test]
fn validate_duplicate_fails_before_the_second_append() {
    let t = trace("validate", "duplicate", Lang::En);
    assert_eq!(error_code(&t), Some("duplicate_id"));
    assert_eq!(steps_at(&t.recording.steps, PUSH).len(), 1, "only the first item is appended");
    let last = t.recording.steps.last().unwrap();
    assert_eq!(
        (last.event, last.error.as_ref().map(|e| e.code)),
        (Event::Error, Some("duplicate_id"))
    );
    assert_eq!(ids(&local(&t, last, "new_list")), ["1"]);
    assert_eq!(local(&t, last, "position"), json!(2));
}

#[test]
fn validate_active_fails_at_the_count_after_recording_the_id() {
    let t = trace("validate", "active", Lang::En);
    assert_eq!(error_code(&t), Some("too_many_active"));
    let last = t.recording.steps.last().unwrap();
    assert_eq!(
        line_text(last).trim(),
        "return Err(TodoError::TooManyActive { position, id: id.to_string() });"
    );
    assert_eq!(local(&t, last, "seen_ids"), json!(["1", "2"]));
    assert_eq!(local(&t, last, "active"), json!(2));
    assert_eq!(ids(&local(&t, last, "new_list")), ["1"]);
}

#[test]
fn write_replace_assigns_once_and_the_state_changes_one_step_later() {
    let t = trace("write", "replace", Lang::En);
    let at = t.recording.steps.iter().position(|s| line_text(s).trim() == ASSIGN).unwrap();
    let (before, after) = (&t.recording.steps[at], &t.recording.steps[at + 1]);
    // Paused at the assignment: the replacement is ready, the host still holds the old plan.
    assert_eq!(statuses(&local(&t, before, "replacement")), ["completed", "in_progress"]);
    assert_eq!(statuses(&host(&t, before)["items"]), ["completed", "pending"]);
    // One step later the host holds the new plan and the replacement was moved into it.
    assert_eq!(statuses(&host(&t, after)["items"]), ["completed", "in_progress"]);
    let locals = t.recording.locals(after);
    let moved = locals.iter().find(|l| l.name == "replacement").unwrap();
    assert!(moved.value.is_none() && moved.ty == "Vec<Todo>" && moved.change == 'm');
    // The host entry that changed is marked, the other is not.
    let view = &t.recording.hosts[after.host as usize][0];
    assert_eq!((view.field, view.changes.as_str()), ("items", ".~"));
    // Every step before the assignment shows the old plan; none after it does.
    assert!(t.recording.steps[..=at]
        .iter()
        .all(|s| statuses(&host(&t, s)["items"]) == ["completed", "pending"]));
    assert!(t.recording.steps[at + 1..]
        .iter()
        .all(|s| statuses(&host(&t, s)["items"]) == ["completed", "in_progress"]));
}

#[test]
fn write_steps_into_validate_and_format_and_back() {
    let t = trace("write", "replace", Lang::En);
    let stacks: Vec<Vec<&str>> = (0..t.recording.steps.len() as u32)
        .map(|i| t.recording.frames(i).iter().map(|f| f.symbol).collect())
        .collect();
    assert_eq!(stacks[0], ["write_todos"]);
    assert_eq!(stacks[1], ["write_todos", "validate_todos"]);
    assert!(stacks.iter().any(|s| s == &["write_todos", "format_todos"]));
    assert_eq!(stacks.last().unwrap(), &["write_todos"]);
    assert!(matches!(t.recording.steps[0].event, Event::Call));
    assert!(matches!(t.recording.steps[1].event, Event::Call));
    assert!(matches!(t.recording.steps.last().unwrap().event, Event::Return));
}

#[test]
fn write_failures_never_reach_the_assignment_and_keep_the_old_plan() {
    for (scenario, code) in [
        ("active", "too_many_active"),
        ("duplicate", "duplicate_id"),
        ("unknown", "unknown_status"),
    ] {
        let t = trace("write", scenario, Lang::En);
        assert_eq!(error_code(&t), Some(code), "{scenario}");
        assert!(steps_at(&t.recording.steps, ASSIGN).is_empty(), "{scenario}: the assignment ran");
        let last = t.recording.steps.last().unwrap();
        assert_eq!(
            last.symbol, "write_todos",
            "{scenario}: the error comes back out of validation"
        );
        assert_eq!((last.event, last.error.as_ref().map(|e| e.code)), (Event::Error, Some(code)));
        assert_eq!(statuses(&host(&t, last)["items"]), ["completed", "pending"], "{scenario}");
        // It came out of validation: validate_todos ended with the same error first.
        assert!(t
            .recording
            .steps
            .iter()
            .any(|s| s.symbol == "validate_todos"
                && s.error.as_ref().is_some_and(|e| e.code == code)));
    }
}

#[test]
fn write_active_fails_late_after_the_first_item_passed() {
    let t = trace("write", "active", Lang::En);
    assert_eq!(
        steps_at(&t.recording.steps, PUSH).len(),
        1,
        "the first item was appended before the failure"
    );
}

#[test]
fn write_clear_is_a_valid_commit_that_empties_the_plan() {
    let t = trace("write", "clear", Lang::En);
    assert!(t.result.ok);
    assert_eq!(host(&t, t.recording.steps.last().unwrap())["items"], json!([]));
    assert!(t.recording.output.contains(&"(empty plan)".to_string()), "{:?}", t.recording.output);
}

#[test]
fn write_claim_says_nothing_was_run() {
    for lang in [Lang::Zh, Lang::En] {
        let t = trace("write", "claim", lang);
        assert!(t.result.ok);
        assert_eq!(
            statuses(&host(&t, t.recording.steps.last().unwrap())["items"]),
            ["completed", "completed"]
        );
        let said = t.recording.output.join("\n");
        let nothing_ran = lang.pick("没有运行", "ran none of its items");
        assert!(said.contains(nothing_ran), "{said}");
    }
}

#[test]
fn write_omit_drops_the_item_left_out() {
    let t = trace("write", "omit", Lang::En);
    assert!(t.result.ok);
    assert_eq!(ids(&host(&t, &t.recording.steps[0])["items"]), ["1", "2"]);
    assert_eq!(ids(&host(&t, t.recording.steps.last().unwrap())["items"]), ["1"]);
}

fn first_text(messages: &Value) -> &str {
    messages[0]["content"].as_str().unwrap()
}

#[test]
fn prepare_pending_changes_the_copy_only() {
    let t = trace("prepare", "pending", Lang::En);
    let prepared = &value(&t);
    let original = json!(t.data.messages);
    assert!(first_text(prepared).starts_with(first_text(&original)));
    assert!(
        first_text(prepared).ends_with("1 [completed] Read the source\n2 [pending] Run and check")
    );
    assert_eq!(
        prepared.as_array().unwrap()[1..],
        original.as_array().unwrap()[1..],
        "tool blocks are unchanged"
    );
    assert_eq!(prepared[1]["content"][0]["id"], "run_1");
    assert_eq!(prepared[2]["content"][0]["tool_use_id"], "run_1");
    // The host's history never changes while preparing.
    assert!(t.recording.steps.iter().all(|s| host(&t, s)["messages"] == original));
}

#[test]
fn prepare_updated_puts_the_claim_beside_the_evidence() {
    let t = trace("prepare", "updated", Lang::En);
    let prepared = &value(&t);
    assert!(first_text(prepared).contains("2 [completed] Run and check"));
    assert_eq!(prepared[2]["content"][0]["content"], "Not run: the user declined.");
    assert_eq!(prepared[2]["content"][0]["is_error"], true);
}

#[test]
fn prepare_empty_renders_the_placeholder() {
    for (lang, placeholder) in [(Lang::En, "(empty plan)"), (Lang::Zh, "（清单为空）")] {
        let t = trace("prepare", "empty", lang);
        assert!(first_text(&value(&t)).ends_with(placeholder));
    }
}

/// Every symbol the page can ask for: the figures, the helper, the entries.
/// A trace's `data` is all its call entry reads: the entry run on those parts alone, every other
/// part empty, makes the same trace.
#[test]
fn the_data_given_is_all_the_entry_reads() {
    for (name, t) in every_trace() {
        let given = t.data.clone();
        let data = Data {
            state: given.state.unwrap_or_default(),
            items: given.items.unwrap_or_default(),
            messages: given.messages.unwrap_or_default(),
            agent: given.agent,
            // The loop replays the run its setup makes (the trace's `replay` says which).
            run: given.agent.map(|setup| run_file(&setup, lang_of(&name))),
            answer: None,
        };
        let figure = figures::figure(t.figure.name()).unwrap();
        let again = run::run(figure, &t.scenario, data, lang_of(&name), Settings::default());
        assert_eq!(json(&again), json(&t), "{name}");
    }
    let given = |figure: &str| {
        let t = trace(figure, figures::scenarios(figure, Lang::En).unwrap()[0].id, Lang::En);
        serde_json::to_value(&t.data)
            .unwrap()
            .as_object()
            .unwrap()
            .keys()
            .cloned()
            .collect::<Vec<_>>()
    };
    assert_eq!(given("validate"), ["items"]);
    assert_eq!(given("write"), ["state", "items"]);
    assert_eq!(given("prepare"), ["state", "messages"]);
    assert_eq!(given("loop"), ["agent"]);
}

fn symbols() -> Vec<&'static str> {
    let mut symbols: Vec<&str> = FIGURES.iter().flat_map(|f| [f.symbol, f.entry]).collect();
    symbols.push("format_todos");
    symbols
}

#[test]
fn listings_are_the_files_lines() {
    for symbol in symbols() {
        let listing = source(symbol).unwrap();
        let path = format!("{}/{}", env!("CARGO_MANIFEST_DIR"), listing.file);
        let file = std::fs::read_to_string(path).unwrap();
        let lines: Vec<&str> = file.lines().collect();
        assert!(listing.lines[0].text.contains(&format!("fn {symbol}(")));
        assert_eq!(listing.lines.last().unwrap().text, "}");
        let numbers: Vec<u32> = listing.lines.iter().map(|l| l.no).collect();
        let first = numbers[0];
        assert_eq!(numbers, (first..first + numbers.len() as u32).collect::<Vec<_>>());
        for line in &listing.lines {
            assert_eq!(line.text, lines[line.no as usize - 1], "{symbol} line {}", line.no);
            assert!(!line.text.contains("#[traced"), "instrumentation shows in {symbol}");
        }
    }
    assert!(source("trace").is_none() && source("").is_none() && source("fn x(").is_none());
}

/// A line where a statement starts: not blank, not lone punctuation, not a comment, not `else`.
fn holds_a_statement(text: &str) -> bool {
    let text = text.trim();
    let only_punctuation = text.chars().all(|c| "{}()[];,".contains(c));
    let not_code = text.starts_with("//") || text.starts_with("else") || text.starts_with('}');
    !only_punctuation && !not_code
}

#[test]
fn every_step_is_on_a_step_line_of_its_function() {
    for figure in FIGURES {
        for scenario in figures::scenarios(figure.id.name(), Lang::En).unwrap() {
            for step in trace(figure.id.name(), scenario.id, Lang::En).recording.steps {
                let (symbol, line) = (step.symbol, step.line);
                let listing = source(symbol).unwrap();
                let found = listing.lines.iter().find(|l| l.no == line);
                let found = found.unwrap_or_else(|| panic!("{symbol} {line} not listed"));
                assert!(found.step, "{symbol} line {line} is not marked as a step line");
            }
        }
    }
}

#[test]
fn step_lines_are_exactly_the_statement_starts() {
    for symbol in ["validate_todos", "write_todos", "format_todos", "prepare_messages"] {
        let listing = source(symbol).unwrap();
        let marked: Vec<&str> =
            listing.lines.iter().filter(|l| l.step).map(|l| l.text.trim()).collect();
        assert!(marked.iter().all(|text| holds_a_statement(text)), "{symbol}: {marked:?}");
        // Lines no scenario reaches still take a breakpoint (reader input can reach them).
        if symbol == "validate_todos" {
            assert!(marked.contains(&"return Err(TodoError::NotAList);"));
            assert!(!marked.contains(&"} else {") && !marked.contains(&"};"));
        }
    }
    assert!(source("run_write").unwrap().lines.iter().all(|l| !l.step), "entries are not traced");
}

#[test]
fn unknown_ids_are_clear_errors() {
    let figure = run::trace("nope", "valid", Lang::En).unwrap_err().to_string();
    assert!(figure.contains("nope") && figure.contains("validate, write, prepare"), "{figure}");
    let scenario = run::trace("validate", "replace", Lang::En).unwrap_err().to_string();
    assert!(scenario.contains("replace") && scenario.contains("valid, duplicate"), "{scenario}");
    assert!(figures::parse_lang("fr").unwrap_err().to_string().contains("\"fr\""));
    assert!(figures::scenarios("nope", Lang::Zh).is_err());
}

#[test]
fn an_unknown_id_is_quoted_short_and_visible() {
    let huge = "x".repeat(1 << 20);
    let errors = [
        run::trace(&huge, "valid", Lang::En).unwrap_err(),
        run::trace("write", &huge, Lang::En).unwrap_err(),
        figures::parse_lang(&huge).unwrap_err(),
        run::trace_input(&huge, "[]", Lang::Zh).unwrap_err(),
        run::refused_trace(&huge, InputError::TooLarge { bytes: 1 << 20 }.info(Lang::Zh), Lang::Zh)
            .unwrap_err(),
    ];
    for error in errors {
        let message = error.to_string();
        assert!(message.len() < 200, "{} bytes: {}", message.len(), &message[..200]);
        assert!(message.contains(&format!("\"{}…\"", "x".repeat(40))), "{message}");
    }
    let message = run::trace("write", "re\u{202e}place", Lang::En).unwrap_err().to_string();
    assert!(
        message.starts_with("unknown scenario \"re<U+202E>place\" for figure \"write\""),
        "{message}"
    );
}

#[test]
fn each_figure_has_the_lessons_scenarios_and_one_default() {
    let expected = [
        ("validate", vec!["valid", "duplicate", "active", "unknown", "clear"], "valid"),
        (
            "write",
            vec!["replace", "duplicate", "active", "unknown", "clear", "claim", "omit"],
            "replace",
        ),
        ("prepare", vec!["pending", "updated", "empty"], "pending"),
    ];
    for (figure, ids, default) in expected {
        for lang in [Lang::Zh, Lang::En] {
            let scenarios = figures::scenarios(figure, lang).unwrap();
            assert_eq!(scenarios.iter().map(|s| s.id).collect::<Vec<_>>(), ids);
            let defaults: Vec<&str> =
                scenarios.iter().filter(|s| s.is_default).map(|s| s.id).collect();
            assert_eq!(defaults, [default]);
            assert!(scenarios.iter().all(|s| !s.label.is_empty() && !s.hint.is_empty()));
        }
    }
}

#[test]
fn a_long_run_stops_at_the_step_limit() {
    let data = support::data("validate", "valid", Lang::En);
    let settings = Settings { limit: 5, ..Settings::default() };
    let describe = |_: &dyn std::any::Any| todo_trace::recorder::ErrorInfo {
        code: "error",
        message: String::new(),
        line: None,
        column: None,
    };
    let (recording, result) =
        todo_trace::recorder::record_with("validate_todos", &[], settings, describe, || {
            todo_trace::lesson::validate_todos(&data.items)
        });
    assert_eq!(recording.steps.len(), 5);
    assert!(matches!(recording.steps[4].event, Event::Truncated));
    assert!(recording.steps[..4].iter().all(|s| !matches!(s.event, Event::Truncated)));
    assert!(result.is_ok(), "the function still runs to its end");
}

#[test]
fn nothing_is_recorded_outside_a_figure() {
    assert!(!todo_trace::recorder::recording());
    let (recording, _) = todo_trace::recorder::record("write_todos", &[], || {
        todo_trace::lesson::format_todos(&[], Lang::En)
    });
    assert!(recording.steps.is_empty(), "format_todos is not the figure's function");
    assert!(!todo_trace::recorder::recording());
}

#[test]
fn skipping_unmentioned_values_misses_no_change() {
    let every = Settings { every_value: true, ..Settings::default() };
    for (name, quick) in every_trace() {
        let slow = run::trace_with(quick.figure.name(), &quick.scenario, lang_of(&name), every);
        let (quick, slow) = (serde_json::to_string(&quick), serde_json::to_string(&slow.unwrap()));
        assert_eq!(quick.unwrap(), slow.unwrap(), "{name}");
    }
}

fn lang_of(name: &str) -> Lang {
    if name.ends_with("-zh") {
        Lang::Zh
    } else {
        Lang::En
    }
}

#[test]
fn each_step_carries_its_frames_with_the_callers_line() {
    let t = trace("write", "replace", Lang::En);
    let at = t.recording.steps.iter().position(|s| s.symbol == "validate_todos").unwrap();
    let call = &t.recording.steps[at];
    assert!(matches!(call.event, Event::Call));
    let caller = t.recording.frames(at as u32)[0];
    assert_eq!(caller.symbol, "write_todos");
    let listing = source("write_todos").unwrap();
    let text = listing.lines.iter().find(|l| l.no == caller.line).unwrap().text;
    assert!(text.contains("validate_todos(items)?"), "{text}");
    // The line just run is the call's previous step's line; a call's first step has none.
    assert_eq!(call.ran, None);
    for pair in t.recording.steps.windows(2) {
        if pair[1].caller == pair[0].caller && matches!(pair[1].event, Event::Line) {
            assert_eq!(pair[1].ran, Some(pair[0].line));
        }
    }
}

#[test]
fn changes_are_marked_per_local_against_the_calls_previous_step() {
    let t = trace("validate", "valid", Lang::En);
    let mark = |step: &Step, name: &str| {
        let locals = t.recording.locals(step);
        locals.iter().find(|l| l.name == name).map(|l| l.change)
    };
    let steps = &t.recording.steps;
    assert!(steps[0].changes.chars().all(|c| c == '.'), "a call's first step marks nothing");
    let pushes = steps_at(steps, PUSH);
    let after_push = steps.iter().position(|s| std::ptr::eq(s, pushes[0])).unwrap() + 1;
    // The push just ran: new_list changed, nothing else did.
    assert_eq!(mark(&steps[after_push], "new_list"), Some('~'));
    assert_eq!(mark(&steps[after_push], "seen_ids"), Some('.'));
    // The second pass rebinds the loop's pattern: index and item are marked changed.
    let second = steps.iter().filter(|s| line_text(s).trim() == "let position = index + 1;").nth(1);
    let second = second.unwrap();
    assert_eq!(mark(second, "index"), Some('~'));
    assert_eq!(mark(second, "item"), Some('~'));
    assert_eq!(mark(second, "position"), None, "position is out of scope before its let");
    let after_let = steps.iter().position(|s| std::ptr::eq(s, second)).unwrap() + 1;
    assert_eq!(mark(&steps[after_let], "position"), Some('+'));
}

#[test]
fn the_host_view_marks_removed_entries() {
    let t = trace("write", "omit", Lang::En);
    let views: Vec<_> =
        t.recording.steps.iter().map(|s| &t.recording.hosts[s.host as usize][0]).collect();
    let removed = views.iter().find(|v| v.changes.contains('-')).expect("a removal is shown");
    assert_eq!(removed.changes, ".-");
    assert_eq!(removed.entries.len(), 2);
}

/// Each changed local and host entry carries its value at the step before (`was`), so the page can
/// show which part of it changed without searching back.
#[test]
fn a_changed_local_or_entry_carries_its_previous_value() {
    for (name, t) in every_trace() {
        let steps = &t.recording.steps;
        for (i, step) in steps.iter().enumerate() {
            assert_eq!(step.was.len(), step.changes.matches('~').count(), "{name} step {i}");
        }
        for view in &t.recording.hosts {
            for field in view {
                assert_eq!(field.was.len(), field.changes.matches('~').count(), "{name}");
            }
        }
    }
    let t = trace("validate", "valid", Lang::En);
    let steps = &t.recording.steps;
    let pushes = steps_at(steps, PUSH);
    let at = steps.iter().position(|s| std::ptr::eq(s, pushes[0])).unwrap();
    let after = &steps[at + 1];
    let k = t.recording.locals(after).iter().position(|l| l.name == "new_list").unwrap();
    let was = after.was[after.changes[..k].matches('~').count()].expect("new_list had a value");
    assert_eq!(t.recording.value(was).get(), "[]");
    assert_eq!(Some(was), steps[at].values[k], "the value at the call's previous step");

    let t = trace("write", "replace", Lang::En);
    let assign = t.recording.steps.iter().position(|s| line_text(s).trim() == ASSIGN).unwrap();
    let view = &t.recording.hosts[t.recording.steps[assign + 1].host as usize][0];
    let old = &t.recording.hosts[t.recording.steps[assign].host as usize][0];
    assert_eq!(view.was, [old.entries[1]]);
}

/// A step's `caller` is its caller's latest step: the step at the line of the call, in the caller's
/// function, after which the caller recorded nothing until this call returned; the frames that chain
/// gives name each call's latest step, the step itself last.
#[test]
fn each_caller_is_the_callers_latest_step() {
    for (name, t) in every_trace() {
        let steps = &t.recording.steps;
        for (i, step) in steps.iter().enumerate() {
            let frames = t.recording.frames(i as u32);
            let current = frames.last().unwrap();
            assert_eq!(
                (current.step as usize, current.symbol, current.line),
                (i, step.symbol, step.line)
            );
            let Some(caller) = step.caller else {
                assert_eq!(frames.len(), 1, "{name}");
                continue;
            };
            assert!((caller as usize) < i, "{name}");
            assert!(matches!(steps[caller as usize].event, Event::Call | Event::Line), "{name}");
            // Every step in between is deeper than the caller: it ran inside this call.
            for between in caller + 1..i as u32 {
                let chain = t.recording.frames(between);
                assert!(
                    chain.iter().any(|f| f.step == caller) && chain.len() > frames.len() - 1,
                    "{name}"
                );
            }
        }
    }
}

/// The trace's effect is the host after the call against the host before it; a function that
/// cannot see the host (validate) shows none.
#[test]
fn the_effect_marks_what_the_whole_call_did_to_the_host() {
    let t = trace("write", "omit", Lang::En);
    let effect = &t.recording.hosts[t.recording.effect.unwrap() as usize][0];
    assert_eq!(effect.changes, ".-");
    let t = trace("write", "replace", Lang::En);
    assert_eq!(t.recording.hosts[t.recording.effect.unwrap() as usize][0].changes, ".~");
    let t = trace("write", "active", Lang::En);
    assert_eq!(t.recording.hosts[t.recording.effect.unwrap() as usize][0].changes, "..");
    let t = trace("validate", "valid", Lang::En);
    assert!(t.recording.hosts.iter().all(|view| view.is_empty()));
}

/// A step's cost in JSON does not grow with the data: the tables hold the data once, and a step
/// only refers to it. Measured as the JSON of the steps alone, per step.
#[test]
fn a_steps_json_does_not_grow_with_the_data() {
    let per_step = |trace: &Trace| {
        let steps = serde_json::to_string(&trace.recording.steps).unwrap();
        steps.len() as f64 / trace.recording.steps.len() as f64
    };
    let small = per_step(&trace("validate", "valid", Lang::En));
    let items: Vec<Value> = (0..20)
        .map(|i| json!({"id": format!("{i}"), "content": "x".repeat(150), "status": "pending"}))
        .collect();
    let big = run::trace_input("validate", &Value::Array(items).to_string(), Lang::En).unwrap();
    assert!(big.result.ok);
    assert!(per_step(&big) <= 2.0 * small, "{} bytes a step against {small}", per_step(&big));
}

/// The heaviest input within the limits: 64 KiB of items whose contents are padded with white
/// space that trimming removes, so every step of the old format copied ~64 KB.
#[test]
fn the_largest_input_makes_a_bounded_trace() {
    let pad = "\u{b}".repeat(1_600);
    let item = |i: usize| format!(r#"{{"id":"{i}","content":"{pad}x{pad}","status":"pending"}}"#);
    let mut text = format!("[{}]", (0..20).map(item).collect::<Vec<_>>().join(","));
    let room = todo_trace::host::input::MAX_INPUT_BYTES - text.len();
    text.insert_str(1, &" ".repeat(room));
    assert_eq!(text.len(), todo_trace::host::input::MAX_INPUT_BYTES);
    let t = run::trace_input("validate", &text, Lang::En).unwrap();
    assert!(t.result.ok, "{:?}", t.result.error);
    let json = serde_json::to_string(&t).unwrap();
    assert!(json.len() <= 5_000_000, "{} bytes", json.len());
}

/// `recorder/write.rs` writes a trace's steps, bindings, scopes and host views by hand, for speed:
/// on every trace, what it wrote is what each type's derived `Serialize` writes, so the derive stays
/// the one definition and a field added to one of them cannot be left out of the text.
#[test]
fn the_hand_written_parts_are_what_serde_writes() {
    for (name, trace) in &every_trace() {
        let written: Value = serde_json::from_str(&json(trace)).unwrap();
        let r = &trace.recording;
        let derived = [
            ("steps", serde_json::to_value(&r.steps)),
            ("bindings", serde_json::to_value(&r.bindings)),
            ("scopes", serde_json::to_value(&r.scopes)),
            ("hosts", serde_json::to_value(kept_fields(&r.hosts))),
        ];
        for (key, value) in derived {
            assert_eq!(written[key], value.unwrap(), "{name}: {key}");
        }
    }
}

/// Golden files: one per figure x scenario x language, compact JSON with one step per line so a
/// diff shows which step changed. `UPDATE_GOLDEN=1 cargo test` rewrites them after a deliberate change.
#[test]
fn traces_match_their_golden_files() {
    let dir = format!("{}/tests/golden", env!("CARGO_MANIFEST_DIR"));
    let update = std::env::var_os("UPDATE_GOLDEN").is_some();
    let all = every_trace();
    for (name, trace) in &all {
        let text = golden_text(trace);
        let path = format!("{dir}/{name}.json");
        if update {
            std::fs::create_dir_all(&dir).unwrap();
            std::fs::write(&path, &text).unwrap();
        }
        let golden = std::fs::read_to_string(&path)
            .unwrap_or_else(|_| panic!("{path} is missing: run UPDATE_GOLDEN=1 cargo test"));
        assert!(golden == text, "{path} differs: review, then UPDATE_GOLDEN=1 cargo test");
    }
    assert_eq!(all.len(), 48);
}

fn golden_text(trace: &Trace) -> String {
    let compact = serde_json::to_string(trace).unwrap();
    let steps: Vec<String> =
        trace.recording.steps.iter().map(|s| serde_json::to_string(s).unwrap()).collect();
    let all_steps = format!("\"steps\":[{}]", steps.join(","));
    let one_per_line = format!("\"steps\":[\n{}\n]", steps.join(",\n"));
    assert!(compact.contains(&all_steps));
    compact.replacen(&all_steps, &one_per_line, 1) + "\n"
}

fn json(trace: &Trace) -> String {
    serde_json::to_string(trace).unwrap()
}
