//! The `practice` command for real: temporary folders, real files, a real `python3` process.
#![cfg(not(target_arch = "wasm32"))]

mod support;

use std::fs;
use std::path::PathBuf;
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value;
use support::folder::{workspace, TempDir};
use support::tool_calls;
use todo_trace::host::claims::claims_of;
use todo_trace::host::loop_scenarios::{run_in_memory, SCENARIOS};
use todo_trace::host::native::{fresh_folder, write_workspace, Folder, Python};
use todo_trace::lesson::agent_types::{ReadError, Runner, Workspace};
use todo_trace::lesson::{Lang, Message, Todo};

/// Runs `practice` with no terminal on stdin (so it never waits for an answer).
fn practice(args: &[&str]) -> Output {
    practice_with(args, |_| {})
}

fn practice_with(args: &[&str], adjust: impl FnOnce(&mut Command)) -> Output {
    let mut command = Command::new(env!("CARGO_BIN_EXE_practice"));
    command.args(args).stdin(Stdio::null());
    adjust(&mut command);
    command.output().expect("practice starts")
}

/// `practice --json ARGS` in a fresh folder: the printed object, and the folder.
fn json(args: &[&str]) -> (Value, TempDir) {
    let dir = workspace();
    let mut all = vec!["--json", "--workspace", dir.0.to_str().unwrap()];
    all.extend_from_slice(args);
    let output = practice(&all);
    assert_eq!(output.status.code(), Some(0), "{}", String::from_utf8_lossy(&output.stderr));
    let text = String::from_utf8(output.stdout).unwrap();
    assert_eq!(text.lines().count(), 1, "one JSON object: {text}");
    (serde_json::from_str(&text).unwrap(), dir)
}

fn count(outcome: &Value, tool: &str, ok: bool) -> usize {
    tool_calls(outcome).iter().filter(|(name, is_error, _)| name == tool && *is_error != ok).count()
}

fn statuses(outcome: &Value) -> Vec<String> {
    let plan = outcome["plan"].as_array().unwrap();
    plan.iter().map(|item| item["status"].as_str().unwrap().to_string()).collect()
}

#[test]
fn allowed_it_reads_runs_checks_and_leaves_the_marker() {
    for lang in ["zh", "en"] {
        let (outcome, dir) = json(&["--decision", "allow", "--lang", lang]);
        assert_eq!(outcome["stop"], "answered");
        assert_eq!(outcome["calls"], 8);
        assert_eq!(count(&outcome, "todo_write", true), 4);
        assert_eq!(count(&outcome, "read_file", true), 2);
        assert_eq!(count(&outcome, "run_main", true), 1);
        assert_eq!(outcome["ran"], true);
        assert!(dir.0.join("ran.marker").exists());
        assert!(outcome["answer"].as_str().unwrap().contains("42"), "{}", outcome["answer"]);
        assert_eq!(statuses(&outcome), ["completed"; 3]);
        let run = tool_calls(&outcome).into_iter().find(|(name, ..)| name == "run_main").unwrap();
        assert!(
            run.2.ends_with("\n42\n") && !run.2.contains("recorded") && !run.2.contains("录制")
        );
    }
}

#[test]
fn denied_or_under_maintenance_item_three_stays_pending_and_nothing_ran() {
    for args in
        [&["--decision", "deny"][..], &["--decision", "allow", "--maintenance"], &["--maintenance"]]
    {
        let (outcome, dir) = json(args);
        assert_eq!(outcome["stop"], "answered", "{args:?}");
        assert_eq!(outcome["calls"], 7);
        assert_eq!(statuses(&outcome), ["completed", "completed", "pending"]);
        assert_eq!(outcome["ran"], false);
        assert!(!dir.0.join("ran.marker").exists());
        let code = if args.contains(&"--maintenance") { "run_blocked" } else { "run_refused" };
        assert_eq!(outcome["warnings"][0]["code"], code, "{args:?}");
    }
}

#[test]
fn the_budget_stops_the_loop_before_any_run() {
    let (outcome, _dir) = json(&["--decision", "allow", "--max-calls", "4"]);
    assert_eq!(outcome["stop"], "call_limit");
    assert_eq!(outcome["calls"], 4);
    assert_eq!(outcome["answer"], "");
    assert_eq!(count(&outcome, "run_main", true) + count(&outcome, "run_main", false), 0);
    assert_eq!(statuses(&outcome), ["completed", "in_progress", "pending"]);
    assert_eq!(outcome["ran"], false);
}

#[test]
fn a_claimed_plan_is_all_completed_and_nothing_ran() {
    let (outcome, _dir) = json(&["--decision", "allow", "--model", "claim"]);
    assert_eq!(statuses(&outcome), ["completed"; 3]);
    assert_eq!(outcome["ran"], false);
    assert_eq!(count(&outcome, "read_file", true), 0);
}

#[test]
fn without_a_decision_and_without_a_terminal_the_answer_is_deny() {
    let (outcome, _dir) = json(&[]);
    assert_eq!(outcome["ran"], false);
    assert_eq!(outcome["warnings"][0]["code"], "run_refused");
    assert_eq!(statuses(&outcome), ["completed", "completed", "pending"]);
}

/// A history with every `run_main` result's text replaced: the one part a real run may change.
fn without_run_output(outcome: &Value) -> Value {
    let mut outcome = outcome.clone();
    let runs: Vec<Value> = outcome["history"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|m| m["content"].as_array())
        .flatten()
        .filter(|b| b["type"] == "tool_use" && b["name"] == "run_main")
        .map(|call| call["id"].clone())
        .collect();
    for message in outcome["history"].as_array_mut().unwrap() {
        for block in message["content"].as_array_mut().into_iter().flatten() {
            if block["type"] == "tool_result" && runs.contains(&block["tool_use_id"]) {
                block["content"] = Value::from("<the run's output>");
            }
        }
    }
    let object = outcome.as_object_mut().unwrap();
    object.remove("ran");
    object.remove("workspace");
    object.remove("stale_marker_removed");
    outcome
}

#[test]
fn each_scenario_natively_matches_the_page_except_for_the_real_output() {
    for scenario in &SCENARIOS {
        for (lang, name) in [(Lang::Zh, "zh"), (Lang::En, "en")] {
            let max_calls = scenario.setup.max_calls.to_string();
            let decision = serde_json::to_value(scenario.setup.decision).unwrap();
            let mut args = vec![
                "--model",
                scenario.setup.model.name(),
                "--decision",
                decision.as_str().unwrap(),
                "--max-calls",
                &max_calls,
                "--lang",
                name,
            ];
            if scenario.setup.maintenance {
                args.push("--maintenance");
            }
            if scenario.setup.reminder {
                args.push("--reminder");
            }
            let (native, _dir) = json(&args);
            let page = run_in_memory(&scenario.setup, lang).outcome.unwrap();
            let page = serde_json::to_value(page.json()).unwrap();
            assert_eq!(
                without_run_output(&native),
                without_run_output(&page),
                "{} {name}",
                scenario.id
            );
            let runs = count(&page, "run_main", true);
            assert_eq!(
                native["ran"],
                runs == 1,
                "{} {name}: ran.marker is the evidence",
                scenario.id
            );
        }
    }
}

#[test]
fn bad_flags_exit_2_with_usage() {
    let cases: [&[&str]; 8] = [
        &["--decision", "maybe"],
        &["--decision"],
        &["--max-calls", "-1"],
        &["--max-calls", "many"],
        &["--model", "real"],
        &["--lang", "fr"],
        &["--frobnicate"],
        &["--time-limit", "0"],
    ];
    for args in cases {
        let output = practice(args);
        assert_eq!(output.status.code(), Some(2), "{args:?}");
        let stderr = String::from_utf8_lossy(&output.stderr);
        // The usage is in the default language, zh.
        assert!(stderr.contains("用法：practice [--decision"), "{args:?}: {stderr}");
        assert!(output.stdout.is_empty());
    }
    let help = practice(&["--help"]);
    assert_eq!(help.status.code(), Some(0));
    assert!(String::from_utf8_lossy(&help.stdout).contains("--workspace DIR"));
}

#[test]
fn the_transcript_says_who_said_what_in_the_chosen_language() {
    let output = practice(&["--decision", "allow", "--lang", "en"]);
    assert_eq!(output.status.code(), Some(0));
    let text = String::from_utf8(output.stdout).unwrap();
    let dir = text.lines().next().unwrap().strip_prefix("Workspace: ").unwrap().to_string();
    let _cleanup = TempDir(PathBuf::from(&dir));
    for expected in [
        "User: Read main.py and expected.txt",
        "Model (call 1): calls todo_write",
        "  Plan updated:\n    1 [in_progress] Read the source\n    2 [pending] Read the expected output",
        "Model (call 6): calls run_main {}\n  Result:\n    exit code 0\n    output:\n    42",
        "Model (call 8): main.py ran and printed 42",
        "Stopped: answered",
        "ran.marker exists: main.py really ran",
    ] {
        assert!(text.contains(expected), "missing {expected:?} in:\n{text}");
    }
    let zh = practice(&["--decision", "deny", "--max-calls", "4"]);
    let text = String::from_utf8(zh.stdout).unwrap();
    let dir = text.lines().next().unwrap().strip_prefix("工作区：").unwrap().to_string();
    let _cleanup = TempDir(PathBuf::from(&dir));
    assert!(text.contains("停止原因：call_limit"), "{text}");
    assert!(text.contains("模型（第 4 次调用）：调用 read_file"), "{text}");
    assert!(text.contains("    2 [in_progress] 读取预期"), "{text}");
}

#[test]
fn the_nag_transcript_shows_the_reminder_once() {
    let output =
        practice(&["--decision", "allow", "--model", "drift", "--reminder", "--lang", "en"]);
    let text = String::from_utf8(output.stdout).unwrap();
    let dir = text.lines().next().unwrap().strip_prefix("Workspace: ").unwrap().to_string();
    let _cleanup = TempDir(PathBuf::from(&dir));
    assert_eq!(
        text.matches("The host adds: <reminder>Update your todos.</reminder>").count(),
        1,
        "{text}"
    );
}

fn workspace_with_main(source: &str) -> TempDir {
    let dir = TempDir::new();
    write_workspace(&dir.0).unwrap();
    fs::write(dir.0.join("main.py"), source).unwrap();
    dir
}

#[test]
fn a_program_that_hangs_is_stopped_at_the_time_limit_and_reported() {
    let dir = workspace_with_main("import time\ntime.sleep(60)\n");
    let started = Instant::now();
    let output = practice(&[
        "--json",
        "--decision",
        "allow",
        "--lang",
        "en",
        "--time-limit",
        "0.5",
        "--workspace",
        dir.0.to_str().unwrap(),
    ]);
    assert!(started.elapsed() < Duration::from_secs(20), "not waited on: {:?}", started.elapsed());
    assert_eq!(output.status.code(), Some(0));
    let outcome: Value = serde_json::from_slice(&output.stdout).unwrap();
    let run = tool_calls(&outcome).into_iter().find(|(name, ..)| name == "run_main").unwrap();
    assert!(run.1, "a stopped run is an error result");
    assert!(run.2.contains("time limit of 0.5 s") && run.2.contains("killed"), "{}", run.2);
    assert_eq!(statuses(&outcome)[2], "pending");
    assert!(outcome["answer"].as_str().unwrap().contains("has not run successfully"));
}

#[test]
fn a_missing_python3_is_reported_in_the_result() {
    let dir = workspace_with_main(todo_trace::host::loop_scenarios::MAIN_PY);
    let output = practice_with(
        &["--json", "--decision", "allow", "--lang", "en", "--workspace", dir.0.to_str().unwrap()],
        |command| {
            command.env("PATH", "");
        },
    );
    let outcome: Value = serde_json::from_slice(&output.stdout).unwrap();
    let run = tool_calls(&outcome).into_iter().find(|(name, ..)| name == "run_main").unwrap();
    assert!(run.1 && run.2.contains("python3 was not found"), "{}", run.2);
    assert_eq!(outcome["ran"], false);
}

#[test]
fn a_path_climbing_out_of_the_folder_is_refused() {
    let outer = TempDir(fresh_folder().unwrap());
    let root = outer.0.join("workspace");
    fs::create_dir(&root).unwrap();
    write_workspace(&root).unwrap();
    fs::write(outer.0.join("secret.txt"), "secret").unwrap();
    #[cfg(unix)]
    std::os::unix::fs::symlink(outer.0.join("secret.txt"), root.join("link.txt")).unwrap();
    let folder = Folder { root: root.clone() };
    assert_eq!(folder.read("main.py").unwrap(), todo_trace::host::loop_scenarios::MAIN_PY);
    assert_eq!(folder.read("./expected.txt").unwrap(), "42\n");
    let secret = outer.0.join("secret.txt");
    for path in ["../secret.txt", "a/../../secret.txt", secret.to_str().unwrap(), "/etc/passwd"] {
        assert_eq!(folder.read(path), Err(ReadError::Outside), "{path}");
    }
    #[cfg(unix)]
    assert_eq!(folder.read("link.txt"), Err(ReadError::Outside), "a link out of the folder");
    assert_eq!(folder.read("missing.txt"), Err(ReadError::Missing));
}

#[test]
fn output_past_the_cap_is_cut_and_said_so() {
    let dir = workspace_with_main("print('x' * 100000)\n");
    let mut python = Python { output_cap: 1000, ..Python::new(dir.0.clone()) };
    let result = python.run(Lang::En);
    assert!(result.ok, "{}", result.text);
    assert!(result.text.contains("output over 1000 bytes"), "{}", result.text);
    let output = result.text.split_once("output:\n").unwrap().1;
    assert_eq!(output.len(), 1000);
}

#[test]
fn a_failing_program_is_an_error_result_with_its_stderr() {
    let dir = workspace_with_main("import sys\nprint('partial')\nsys.exit('boom')\n");
    let result = Python::new(dir.0.clone()).run(Lang::En);
    assert!(!result.ok);
    assert!(
        result.text.starts_with("exit code 1\nstderr:\nboom\noutput:\npartial"),
        "{}",
        result.text
    );
}

#[test]
fn on_a_terminal_the_user_is_asked_before_the_run() {
    // `script` (util-linux) gives practice a terminal; without it there is nothing to test here.
    if Command::new("script").arg("--version").output().is_err() {
        eprintln!("skipped: no `script` command to give practice a terminal");
        return;
    }
    for (answer, ran) in [("y", true), ("n", false)] {
        let dir = workspace_with_main(todo_trace::host::loop_scenarios::MAIN_PY);
        let command = format!(
            "{} --json --lang en --workspace {}",
            env!("CARGO_BIN_EXE_practice"),
            dir.0.display()
        );
        let mut child = Command::new("script")
            .args(["-qec", &command, "/dev/null"])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .unwrap();
        use std::io::Write;
        writeln!(child.stdin.take().unwrap(), "{answer}").unwrap();
        let output = child.wait_with_output().unwrap();
        let text = String::from_utf8_lossy(&output.stdout);
        assert!(text.contains("The model asks to run python3 main.py in"), "{text}");
        assert_eq!(dir.0.join("ran.marker").exists(), ran, "answered {answer}: {text}");
    }
}

#[test]
fn a_run_that_prints_the_wrong_number_backs_no_claim() {
    let dir = workspace_with_main("print(41)\n");
    let output = practice(&[
        "--json",
        "--decision",
        "allow",
        "--lang",
        "en",
        "--workspace",
        dir.0.to_str().unwrap(),
    ]);
    assert_eq!(output.status.code(), Some(0), "{}", String::from_utf8_lossy(&output.stderr));
    let outcome: Value = serde_json::from_slice(&output.stdout).unwrap();
    let plan: Vec<Todo> = serde_json::from_value(outcome["plan"].clone()).unwrap();
    let history: Vec<Message> = serde_json::from_value(outcome["history"].clone()).unwrap();
    let expected = fs::read_to_string(dir.0.join("expected.txt")).unwrap();
    let claims = claims_of(&plan, &history, Some(&expected));
    // The run succeeded and the plan may say so; its output, 41, is not expected.txt's 42.
    assert_eq!(count(&outcome, "run_main", true), 1);
    assert!(!claims[2].backed && claims[2].evidence.is_none(), "{claims:?}");
    assert_eq!(claims[2].gap, claims[2].completed);
    assert!(claims[0].backed && claims[1].backed);
}
