//! `practice --record` and `--replay` for real: every built-in scenario recorded, then replayed to the same transcript.
#![cfg(not(target_arch = "wasm32"))]

mod support;

use std::fs;
use std::path::Path;
use std::process::{Command, Output, Stdio};

use support::folder::TempDir;
use todo_trace::host::loop_scenarios::SCENARIOS;
use todo_trace::lesson::agent_types::Decision;

fn practice(args: &[&str]) -> Output {
    practice_env(args, &[])
}

fn practice_env(args: &[&str], env: &[(&str, &str)]) -> Output {
    let mut command = Command::new(env!("CARGO_BIN_EXE_practice"));
    command.args(args).stdin(Stdio::null());
    for (key, value) in env {
        command.env(key, value);
    }
    command.output().expect("practice starts")
}

/// The transcript of the run itself: from the user's question to the final plan. What is
/// printed before (the workspace, or the file replayed) and after (whether `ran.marker` exists)
/// is about the machine, which a run file does not hold.
fn transcript(output: &Output) -> String {
    let text = String::from_utf8(output.stdout.clone()).unwrap();
    let start = text.find("User: ").or_else(|| text.find("用户：")).expect("the question");
    let footers = ["\nran.marker ", "\n（重放", "\n(A replay"];
    let end = footers.iter().find_map(|footer| text.rfind(footer)).expect("the last line");
    text[start..end].to_string()
}

fn stderr(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

#[test]
fn every_scenario_recorded_then_replayed_prints_the_same_transcript() {
    let dir = TempDir::new();
    for scenario in &SCENARIOS {
        for lang in ["zh", "en"] {
            let setup = scenario.setup;
            let file = dir.file(&format!("{}-{lang}.json", scenario.id));
            let max_calls = setup.max_calls.to_string();
            let decision = match setup.decision {
                Decision::Allow => "allow",
                Decision::Deny => "deny",
            };
            let mut args =
                vec!["--lang", lang, "--model", setup.model.name(), "--decision", decision];
            args.extend(["--max-calls", &max_calls, "--record", &file]);
            if setup.maintenance {
                args.push("--maintenance");
            }
            if setup.reminder {
                args.push("--reminder");
            }
            let recorded = practice(&args);
            assert_eq!(recorded.status.code(), Some(0), "{}: {}", scenario.id, stderr(&recorded));
            let replayed = practice(&["--lang", lang, "--replay", &file]);
            assert_eq!(replayed.status.code(), Some(0), "{}: {}", scenario.id, stderr(&replayed));
            assert_eq!(transcript(&replayed), transcript(&recorded), "{} {lang}", scenario.id);
            let run: serde_json::Value =
                serde_json::from_str(&fs::read_to_string(&file).unwrap()).unwrap();
            assert!(run["recorded"].as_str().unwrap().ends_with('Z'), "{}", run["recorded"]);
        }
    }
}

#[test]
fn a_run_file_holds_no_key_and_nothing_of_the_machine() {
    let dir = TempDir::new();
    let file = dir.file("run.json");
    let key = "sk-ant-test-never-written-0123456789";
    let output = practice_env(
        &["--lang", "en", "--decision", "allow", "--record", &file],
        &[("ANTHROPIC_API_KEY", key)],
    );
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let text = fs::read_to_string(&file).unwrap();
    assert!(!text.contains(key));
    // The workspace was a fresh temporary folder: its path is the machine's, not the run's.
    let stdout = String::from_utf8(output.stdout).unwrap();
    let workspace = stdout.lines().next().unwrap().trim_start_matches("Workspace: ");
    assert!(Path::new(workspace).is_absolute(), "{workspace}");
    assert!(!text.contains(workspace));
    assert!(!text.contains(&std::env::var("HOME").unwrap_or_else(|_| "/root".into())));
}

#[test]
fn a_replay_that_leaves_its_recording_exits_1_and_says_where() {
    let dir = TempDir::new();
    let file = dir.file("run.json");
    let recorded = practice(&["--lang", "en", "--decision", "allow", "--record", &file]);
    assert_eq!(recorded.status.code(), Some(0), "{}", stderr(&recorded));
    let mut run: serde_json::Value =
        serde_json::from_str(&fs::read_to_string(&file).unwrap()).unwrap();
    run["settings"]["max_calls"] = 4.into();
    let edited = dir.file("edited.json");
    fs::write(&edited, run.to_string()).unwrap();
    let output = practice(&["--lang", "en", "--replay", &edited]);
    assert_eq!(output.status.code(), Some(1));
    assert!(
        stderr(&output).contains("diverged at model call 5: the host stopped at its budget of 4 calls; the recording holds 8"),
        "{}",
        stderr(&output)
    );
    let json = practice(&["--lang", "en", "--json", "--replay", &edited]);
    assert_eq!(json.status.code(), Some(1));
    let report: serde_json::Value = serde_json::from_slice(&json.stdout).unwrap();
    assert_eq!(report["diverged"]["call"], 5);
    assert_eq!(report["stop"], "call_limit");
}

#[test]
fn a_bad_run_file_is_refused_with_its_code_and_exit_2() {
    let dir = TempDir::new();
    let cases = [
        ("not-json.json", "{", "run_malformed"),
        ("version.json", "{\"version\": 3}", "run_unknown_version"),
    ];
    for (name, text, code) in cases {
        let file = dir.file(name);
        fs::write(&file, text).unwrap();
        let output = practice(&["--lang", "en", "--replay", &file]);
        assert_eq!(output.status.code(), Some(2), "{name}");
        assert!(stderr(&output).contains(code), "{name}: {}", stderr(&output));
    }
    let missing = practice(&["--replay", &dir.file("absent.json")]);
    assert_eq!(missing.status.code(), Some(2));
    // Settings come from the file: a flag that would change them is refused.
    let combined = practice(&["--replay", &dir.file("absent.json"), "--decision", "deny"]);
    assert_eq!(combined.status.code(), Some(2));
    assert!(stderr(&combined).contains("--decision"));
}

#[cfg(unix)]
#[test]
fn a_fifo_given_as_a_run_file_is_refused_without_waiting_for_a_writer() {
    let dir = TempDir::new();
    let fifo = dir.file("run.json");
    let path = std::ffi::CString::new(fifo.clone()).unwrap();
    // SAFETY: a valid NUL-terminated path; mkfifo only creates the node.
    assert_eq!(unsafe { libc::mkfifo(path.as_ptr(), 0o600) }, 0);
    let output = practice(&["--lang", "en", "--replay", &fifo]);
    assert_eq!(output.status.code(), Some(2));
    assert!(stderr(&output).contains("not a regular file"), "{}", stderr(&output));
}
