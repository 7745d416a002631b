//! `practice`'s live-model flags and its claims table (issue 26), and the live model's network
//! failures against sockets that refuse or never answer. The Messages API itself, with headers,
//! bodies, retries and the SDK as judge, is tested through a local mock in `tests/live/`.
#![cfg(all(unix, not(target_arch = "wasm32"), feature = "live"))]

mod support;

use std::fs;
use std::io::Read;
use std::net::TcpListener;
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

use support::folder::workspace;
use todo_trace::host::native::live::{LiveModel, Settings, DEFAULT_MODEL};
use todo_trace::lesson::agent_types::{tool_definitions, Model, Request};
use todo_trace::lesson::types::{Lang, Message};

/// `practice ARGS` with no terminal, no key and no base URL from the caller's environment.
fn practice(args: &[&str], env: &[(&str, &str)]) -> Output {
    let mut command = Command::new(env!("CARGO_BIN_EXE_practice"));
    command
        .args(args)
        .stdin(Stdio::null())
        .env_remove("ANTHROPIC_API_KEY")
        .env_remove("ANTHROPIC_BASE_URL");
    for (name, value) in env {
        command.env(name, value);
    }
    command.output().expect("practice starts")
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

#[test]
fn bad_combinations_of_the_live_flags_are_usage_errors() {
    for (args, says) in [
        (&["--model-name", "claude-x"][..], "--model-name"),
        (&["--live", "--model", "skip"], "--live and --model"),
        (&["--model", "claim", "--live"], "--live and --model"),
        (&["--live", "--model-name", ""], "--model-name takes"),
        (&["--live", "--model-name"], "--model-name needs a value"),
    ] {
        let output = practice(args, &[("ANTHROPIC_API_KEY", "sk-test")]);
        assert_eq!(output.status.code(), Some(2), "{args:?}");
        let stderr = text(&output.stderr);
        assert!(stderr.contains(says) && stderr.contains("--live"), "{args:?}: {stderr}");
        assert!(output.stdout.is_empty(), "{args:?}: nothing runs");
    }
}

#[test]
fn without_a_key_nothing_is_created_or_sent() {
    // A listener that would see any connection: nothing may arrive.
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    listener.set_nonblocking(true).unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    for (lang, says) in [("en", "ANTHROPIC_API_KEY"), ("zh", "没有 API 密钥")] {
        let dir = workspace();
        let output = practice(
            &[
                "--live",
                "--decision",
                "allow",
                "--lang",
                lang,
                "--workspace",
                dir.0.to_str().unwrap(),
            ],
            &[("ANTHROPIC_BASE_URL", &base)],
        );
        assert_eq!(output.status.code(), Some(2), "{lang}");
        assert!(text(&output.stderr).contains(says), "{lang}: {}", text(&output.stderr));
        assert!(output.stdout.is_empty(), "{lang}: the run did not start");
        assert!(!dir.0.join("ran.marker").exists());
    }
    assert!(listener.accept().is_err(), "no connection was made");
}

#[test]
fn a_key_a_header_cannot_carry_is_refused_without_quoting_it() {
    let output = practice(&["--live", "--lang", "en"], &[("ANTHROPIC_API_KEY", "sk-two words")]);
    assert_eq!(output.status.code(), Some(2));
    let stderr = text(&output.stderr);
    assert!(stderr.contains("ANTHROPIC_API_KEY") && !stderr.contains("two words"), "{stderr}");
}

#[test]
fn the_help_names_the_live_flags_and_the_default_model_in_either_order() {
    for args in [["--lang", "en", "--help"], ["--help", "--lang", "en"]] {
        let output = practice(&args, &[]);
        assert_eq!(output.status.code(), Some(0));
        let help = text(&output.stdout);
        assert!(help.contains("Runs the lesson's agent loop"), "{help}");
        assert!(help.contains("--live") && help.contains("ANTHROPIC_API_KEY"), "{help}");
        assert!(help.contains(&format!("(default {DEFAULT_MODEL})")), "{help}");
    }
    let zh = text(&practice(&["--help"], &[]).stdout);
    assert!(zh.contains(&format!("默认 {DEFAULT_MODEL}")), "{zh}");
}

/// The rows of the table the transcript ends with, after its title and header.
fn table(transcript: &str, title: &str) -> Vec<String> {
    let start = transcript.rfind(title).unwrap_or_else(|| panic!("no table:\n{transcript}"));
    let rows: Vec<String> = transcript[start..].lines().skip(2).map(str::to_string).collect();
    assert!(!rows.is_empty());
    rows
}

#[test]
fn the_transcript_ends_with_the_claims_against_evidence() {
    let dir = workspace();
    let path = dir.0.to_str().unwrap();
    let output = practice(&["--decision", "allow", "--lang", "en", "--workspace", path], &[]);
    let transcript = text(&output.stdout);
    let rows = table(&transcript, "Claim against evidence:");
    assert_eq!(rows.len(), 3, "{transcript}");
    assert!(rows.iter().all(|row| row.contains("| completed | backed: ")), "{rows:?}");
    assert!(rows[0].contains("read_file main.py succeeded"), "{rows:?}");
    assert!(rows[2].contains("run_main succeeded"), "{rows:?}");

    // claim: every item completed, nothing read or run, every row flagged.
    let output = practice(&["--model", "claim", "--decision", "allow", "--lang", "zh"], &[]);
    let transcript = text(&output.stdout);
    let rows = table(&transcript, "声明与证据：");
    assert_eq!(rows.len(), 3, "{transcript}");
    for row in &rows {
        assert!(row.contains("已完成") && row.contains("只有声明，没有证据"), "{row}");
    }
    assert!(transcript.trim_end().ends_with(rows[2].trim_end()), "the table ends it");
}

#[test]
fn a_run_printing_41_does_not_back_run_and_check() {
    let dir = workspace();
    fs::write(dir.0.join("main.py"), "print(41)\n").unwrap();
    let path = dir.0.to_str().unwrap();
    let output = practice(&["--decision", "allow", "--lang", "en", "--workspace", path], &[]);
    let transcript = text(&output.stdout);
    let rows = table(&transcript, "Claim against evidence:");
    let run = rows.iter().find(|row| row.starts_with("    3. ")).expect("item 3");
    assert!(run.contains("| completed |"), "{run}");
    assert!(run.contains("claimed without evidence"), "item 3 is flagged: {run}\n{transcript}");
}

fn request() -> Request {
    Request { tools: tool_definitions(Lang::En), messages: vec![Message::user("hi")] }
}

#[test]
fn a_server_that_never_answers_times_out_as_a_network_error() {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    // Accepts, reads the request, and says nothing until the test ends.
    let silent = std::thread::spawn(move || {
        let (mut stream, _) = listener.accept().unwrap();
        let mut buffer = [0u8; 4096];
        let _ = stream.read(&mut buffer);
        std::thread::sleep(Duration::from_secs(3));
    });
    let mut settings = Settings::new(&base, "m");
    settings.read_timeout = Duration::from_millis(300);
    let mut model = LiveModel::new("sk-never-shown".into(), settings, Lang::En);
    let started = Instant::now();
    let error = model.reply(&request()).unwrap_err();
    assert!(
        started.elapsed() < Duration::from_secs(3),
        "the read timed out, {:?}",
        started.elapsed()
    );
    assert_eq!(error.code, "network", "{}", error.message);
    assert!(error.message.contains("network error"), "{}", error.message);
    assert!(!error.message.contains("sk-never-shown"));
    assert_eq!(model.attempts, 1, "a timeout is not retried");
    silent.join().unwrap();
}

#[test]
fn a_refused_connection_is_a_network_error_in_the_runs_language() {
    // A port that was just free: nothing listens on it.
    let port = TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
    let base = format!("http://127.0.0.1:{port}");
    let mut model = LiveModel::new("sk-never-shown".into(), Settings::new(&base, "m"), Lang::Zh);
    let error = model.reply(&request()).unwrap_err();
    assert_eq!(error.code, "network");
    assert!(error.message.contains("无法连接"), "{}", error.message);
    assert!(model.replies.is_empty());
}
