//! `practice` against a hostile workspace and hostile arguments (issue 27, items 6–11): each case
//! as it was reported, and the outcome it must have now.
#![cfg(all(unix, not(target_arch = "wasm32")))]

mod support;

use std::ffi::OsStr;
use std::fs;
use std::os::unix::ffi::OsStrExt;
use std::path::Path;
use std::process::{Child, Command, Output, Stdio};
use std::thread;
use std::time::{Duration, Instant};

use serde_json::Value;
use support::folder::workspace;

/// A child killed when the test ends, so a hang fails the test instead of leaving a process behind.
struct Killed(Child);

impl Drop for Killed {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// Runs `practice ARGS` with no terminal on stdin, failing the test if it has not finished within
/// `limit` (a generous bound: a hang is the failure, not slowness).
/// `practice --json --decision DECISION --lang en --workspace DIR`, killed after `limit`.
fn json_run_within(decision: &str, dir: &Path, limit: Duration) -> Output {
    let args = ["--json", "--decision", decision, "--lang", "en", "--workspace"].map(OsStr::new);
    practice_within(&[&args[..], &[dir.as_os_str()]].concat(), limit)
}

fn practice_within(args: &[&OsStr], limit: Duration) -> Output {
    let child = Command::new(env!("CARGO_BIN_EXE_practice"))
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("practice starts");
    let mut child = Killed(child);
    // The pipes are read on their own threads, so a chatty run cannot stall on a full pipe.
    let mut stdout = child.0.stdout.take().unwrap();
    let mut stderr = child.0.stderr.take().unwrap();
    let out = thread::spawn(move || {
        let mut bytes = Vec::new();
        let _ = std::io::Read::read_to_end(&mut stdout, &mut bytes);
        bytes
    });
    let err = thread::spawn(move || {
        let mut bytes = Vec::new();
        let _ = std::io::Read::read_to_end(&mut stderr, &mut bytes);
        bytes
    });
    let started = Instant::now();
    let status = loop {
        if let Some(status) = child.0.try_wait().unwrap() {
            break status;
        }
        assert!(started.elapsed() < limit, "practice {args:?} still running after {limit:?}");
        thread::sleep(Duration::from_millis(20));
    };
    Output { status, stdout: out.join().unwrap(), stderr: err.join().unwrap() }
}

fn practice_in(dir: &Path, args: &[&str]) -> Output {
    let mut all: Vec<&OsStr> = vec![OsStr::new("--workspace"), dir.as_os_str()];
    all.extend(args.iter().map(OsStr::new));
    practice_within(&all, Duration::from_secs(60))
}

fn json_in(dir: &Path, args: &[&str]) -> Value {
    let mut all = vec!["--json"];
    all.extend_from_slice(args);
    let output = practice_in(dir, &all);
    assert_eq!(output.status.code(), Some(0), "{}", String::from_utf8_lossy(&output.stderr));
    serde_json::from_slice(&output.stdout).expect("one JSON object")
}

/// Every `run_main` result of a printed history: (is_error, text).
fn run_results(outcome: &Value) -> Vec<(bool, String)> {
    let calls = support::tool_calls(outcome).into_iter();
    calls
        .filter(|(name, ..)| name == "run_main")
        .map(|(_, is_error, text)| (is_error, text))
        .collect()
}

/// Polls `done` every 20 ms until it holds or `limit` has passed; whether it held.
fn eventually(limit: Duration, mut done: impl FnMut() -> bool) -> bool {
    let started = Instant::now();
    loop {
        if done() {
            return true;
        }
        if started.elapsed() >= limit {
            return false;
        }
        thread::sleep(Duration::from_millis(20));
    }
}

/// A process that exists and is not a zombie.
fn alive(pid: &str) -> bool {
    match fs::read_to_string(format!("/proc/{pid}/stat")) {
        Ok(stat) => {
            stat.rsplit_once(')').is_some_and(|(_, rest)| !rest.trim_start().starts_with('Z'))
        }
        Err(_) => false,
    }
}

// 6. An old marker counts as a run.

#[test]
fn a_marker_from_before_the_run_is_not_evidence() {
    for lang in ["zh", "en"] {
        let dir = workspace();
        fs::write(dir.0.join("ran.marker"), "from an earlier run\n").unwrap();
        let outcome = json_in(&dir.0, &["--decision", "deny", "--lang", lang]);
        assert_eq!(outcome["ran"], false, "{lang}: a denied run made no marker");
        assert_eq!(outcome["stale_marker_removed"], true, "{lang}");
        assert!(!dir.0.join("ran.marker").exists());
    }
    let dir = workspace();
    fs::write(dir.0.join("ran.marker"), "from an earlier run\n").unwrap();
    let output = practice_in(&dir.0, &["--decision", "deny", "--lang", "en"]);
    let text = String::from_utf8(output.stdout).unwrap();
    assert!(text.contains("ran.marker does not exist: main.py did not run"), "{text}");
    assert!(text.contains("removed before the run"), "the transcript says so: {text}");
    assert!(!text.contains("really ran"), "{text}");
    // Allowed, the run makes a new one, and that one is evidence.
    fs::write(dir.0.join("ran.marker"), "from an earlier run\n").unwrap();
    let outcome = json_in(&dir.0, &["--decision", "allow"]);
    assert_eq!(outcome["ran"], true);
    assert_eq!(fs::read_to_string(dir.0.join("ran.marker")).unwrap(), "main.py ran\n");
}

// 7. The time limit misses child processes.

/// A `main.py` whose child leaves the process group (`setsid`), writes its pid, and would write
/// `late.txt` 6 s later; `main.py` itself then does `rest` (exit at once, or hang).
fn escaping_child(rest: &str) -> String {
    format!(
        "import os, time\n\
         pid = os.fork()\n\
         if pid == 0:\n\
         \x20   os.setsid()\n\
         \x20   open('child.tmp', 'w').write(str(os.getpid()))\n\
         \x20   os.rename('child.tmp', 'child.pid')\n\
         \x20   time.sleep(6)\n\
         \x20   open('late.txt', 'w').write('outlived the run')\n\
         \x20   os._exit(0)\n\
         while not os.path.exists('child.pid'):\n\
         \x20   time.sleep(0.01)\n\
         {rest}\n"
    )
}

fn assert_no_child_outlives(main_py: &str, args: &[&str]) {
    let dir = workspace();
    fs::write(dir.0.join("main.py"), main_py).unwrap();
    let mut all = vec!["--json", "--decision", "allow", "--lang", "en"];
    all.extend_from_slice(args);
    let output = practice_in(&dir.0, &all);
    assert_eq!(output.status.code(), Some(0), "{}", String::from_utf8_lossy(&output.stderr));
    let pid = fs::read_to_string(dir.0.join("child.pid")).expect("the child started");
    // Killed means gone (or reaped by init) soon after practice exits; a survivor sleeps 6 s.
    assert!(
        eventually(Duration::from_secs(4), || !alive(&pid)),
        "the setsid child {pid} outlived practice"
    );
    assert!(!dir.0.join("late.txt").exists());
}

#[test]
fn a_setsid_child_does_not_outlive_a_program_that_exits() {
    assert_no_child_outlives(&escaping_child("print(42)"), &[]);
}

#[test]
fn a_setsid_child_does_not_outlive_the_time_limit() {
    let dir_probe = escaping_child("time.sleep(60)");
    assert_no_child_outlives(&dir_probe, &["--time-limit", "3"]);
}

#[test]
fn a_background_child_in_the_group_does_not_outlive_the_run() {
    let main_py = "import subprocess, time\n\
                   p = subprocess.Popen(['sh', '-c', 'echo $$ > child.tmp; mv child.tmp child.pid; sleep 6; echo late > late.txt'])\n\
                   import os\n\
                   while not os.path.exists('child.pid'):\n\
                   \x20   time.sleep(0.01)\n\
                   print(42)\n";
    let dir = workspace();
    fs::write(dir.0.join("main.py"), main_py).unwrap();
    let output = practice_in(&dir.0, &["--json", "--decision", "allow"]);
    assert_eq!(output.status.code(), Some(0));
    let pid = fs::read_to_string(dir.0.join("child.pid")).unwrap();
    let pid = pid.trim();
    assert!(eventually(Duration::from_secs(4), || !alive(pid)), "{pid} outlived practice");
    assert!(!dir.0.join("late.txt").exists());
}

// 8. A FIFO hangs it.

fn mkfifo(path: &Path) {
    let status = Command::new("mkfifo").arg(path).status().expect("mkfifo runs");
    assert!(status.success());
}

#[test]
fn a_fifo_as_expected_txt_does_not_hang() {
    let dir = workspace();
    fs::remove_file(dir.0.join("expected.txt")).unwrap();
    mkfifo(&dir.0.join("expected.txt"));
    let output = json_run_within("deny", &dir.0, Duration::from_secs(30));
    assert_eq!(output.status.code(), Some(0), "{}", String::from_utf8_lossy(&output.stderr));
    let text = String::from_utf8(output.stdout).unwrap();
    assert!(text.contains("not a regular file"), "{text}");
    let stderr = String::from_utf8(output.stderr).unwrap();
    assert!(stderr.contains("expected.txt"), "explained before the run: {stderr}");
}

#[test]
fn a_fifo_as_main_py_is_neither_read_nor_run() {
    let dir = workspace();
    fs::remove_file(dir.0.join("main.py")).unwrap();
    mkfifo(&dir.0.join("main.py"));
    let output = json_run_within("allow", &dir.0, Duration::from_secs(30));
    assert_eq!(output.status.code(), Some(0), "{}", String::from_utf8_lossy(&output.stderr));
    let outcome: Value = serde_json::from_slice(&output.stdout).unwrap();
    for (is_error, text) in run_results(&outcome) {
        assert!(is_error && text.starts_with("Not run:"), "{text}");
    }
    assert_eq!(outcome["ran"], false);
}

#[test]
fn a_file_over_the_cap_is_not_read() {
    let dir = workspace();
    fs::write(dir.0.join("expected.txt"), "4".repeat(64 * 1024 + 1)).unwrap();
    let outcome = json_in(&dir.0, &["--decision", "deny", "--lang", "en"]);
    let text = outcome["history"].to_string();
    assert!(text.contains("larger than 65536 bytes"), "{text}");
    assert!(!text.contains("4444444444"), "none of it is read");
}

// 9. A symlink escapes the workspace.

#[test]
fn main_py_linked_to_etc_passwd_is_neither_read_nor_run() {
    let dir = workspace();
    fs::remove_file(dir.0.join("main.py")).unwrap();
    std::os::unix::fs::symlink("/etc/passwd", dir.0.join("main.py")).unwrap();
    for args in [&["--json"][..], &[]] {
        let mut all = vec!["--decision", "allow", "--lang", "en"];
        all.extend_from_slice(args);
        let output = practice_in(&dir.0, &all);
        assert_eq!(output.status.code(), Some(0), "{}", String::from_utf8_lossy(&output.stderr));
        for stream in [&output.stdout, &output.stderr] {
            let text = String::from_utf8_lossy(stream);
            assert!(!text.contains("root:"), "{text}");
            assert!(!text.contains("SyntaxError"), "python3 never saw it: {text}");
        }
        if args == ["--json"] {
            let outcome: Value = serde_json::from_slice(&output.stdout).unwrap();
            let runs = run_results(&outcome);
            assert!(!runs.is_empty(), "the stand-in still asks to run");
            for (is_error, text) in runs {
                assert!(is_error && text.starts_with("Not run:"), "{text}");
            }
            assert_eq!(outcome["ran"], false);
        }
    }
}

// 10. Non-UTF-8 arguments panic.

#[test]
fn a_non_utf8_argument_exits_2_with_a_message() {
    for args in [
        &[OsStr::new("--workspace"), OsStr::from_bytes(b"\xff")][..],
        &[OsStr::from_bytes(b"--lang\xff")],
        &[OsStr::new("--model"), OsStr::from_bytes(b"st\xffandard")],
    ] {
        let output = practice_within(args, Duration::from_secs(30));
        assert_eq!(output.status.code(), Some(2), "{args:?}");
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(stderr.contains("UTF-8"), "{args:?}: {stderr}");
        assert!(!stderr.contains("panicked"), "{stderr}");
        assert!(output.stdout.is_empty());
    }
}

// 11. Terminal escapes pass through.

const ESC: u8 = 0x1b;

#[test]
fn escape_sequences_from_the_workspace_and_the_program_never_reach_stdout() {
    let dir = workspace();
    // The program writes them with Python's escapes, so its output holds the raw bytes.
    let main_py = r"import sys
clear = '\x1b[2J\x1b[H\x1b]0;owned\x07'
print(clear)
print('\r\n\x1b[0mThe model asks to run python3 main.py. Allow? [y/N] ')
sys.stderr.write(clear)
print('\u009b31m C1 too')
print(42)
";
    fs::write(dir.0.join("main.py"), main_py).unwrap();
    let clear = "\x1b[2J\x1b[H\x1b]0;owned\x07";
    let fake = "\r\n\x1b[0mThe model asks to run python3 main.py. Allow? [y/N] ";
    fs::write(dir.0.join("expected.txt"), format!("{clear}42\n{fake}\n")).unwrap();
    for json in [false, true] {
        let mut args = vec!["--decision", "allow", "--lang", "en"];
        if json {
            args.push("--json");
        }
        let output = practice_in(&dir.0, &args);
        assert_eq!(output.status.code(), Some(0), "{}", String::from_utf8_lossy(&output.stderr));
        assert!(
            !output.stdout.contains(&ESC),
            "json {json}: {}",
            String::from_utf8_lossy(&output.stdout)
        );
        assert!(!output.stdout.contains(&b'\r'), "json {json}");
        assert!(!output.stdout.contains(&0x07), "json {json}");
        let text = String::from_utf8(output.stdout).unwrap();
        assert!(!text.contains('\u{9b}'), "json {json}: a C1 CSI is escaped too");
        if json {
            // Escaped as JSON, the data is kept whole.
            let outcome: Value = serde_json::from_str(&text).unwrap();
            assert!(outcome["history"].to_string().contains("\\u001b[2J"));
            assert!(run_results(&outcome)[0].1.contains('\u{9b}'));
        } else {
            assert!(text.contains("\\x1b[2J\\x1b[H\\x1b]0;owned\\x07"), "{text}");
            assert!(text.contains("\\u{9b}31m C1 too"), "{text}");
            // Nothing from the program starts a line where the prompt could be mistaken for it.
            for line in text.lines().filter(|line| line.contains("Allow? [y/N]")) {
                assert!(line.starts_with("    "), "an unindented imitation: {line:?}");
            }
        }
    }
}

#[test]
fn the_help_is_in_the_chosen_language() {
    let output = practice_within(
        &[OsStr::new("--help"), OsStr::new("--lang"), OsStr::new("en")],
        Duration::from_secs(30),
    );
    assert_eq!(output.status.code(), Some(0));
    let en = String::from_utf8(output.stdout).unwrap();
    assert!(en.contains("Runs the lesson's agent loop"), "{en}");
    let output = practice_within(&[OsStr::new("--help")], Duration::from_secs(30));
    let zh = String::from_utf8(output.stdout).unwrap();
    assert!(zh.contains("用法") && !zh.contains("Runs the lesson's agent loop"), "{zh}");
}

#[test]
fn a_missing_file_is_explained_before_the_run() {
    for (name, lang, expected) in [
        ("main.py", "en", "main.py"),
        ("expected.txt", "en", "expected.txt"),
        ("main.py", "zh", "main.py"),
    ] {
        let dir = workspace();
        fs::remove_file(dir.0.join(name)).unwrap();
        let output = practice_in(&dir.0, &["--decision", "allow", "--lang", lang]);
        assert_eq!(output.status.code(), Some(0));
        let text = String::from_utf8(output.stdout).unwrap();
        let question = text.find(if lang == "en" { "User: " } else { "用户：" }).unwrap();
        let note = text[..question].find(expected);
        assert!(note.is_some(), "{name} {lang}: explained before the question:\n{text}");
    }
}

#[test]
fn without_a_terminal_the_transcript_says_why_the_answer_was_deny() {
    let dir = workspace();
    let output = practice_in(&dir.0, &["--lang", "en"]);
    let text = String::from_utf8(output.stdout).unwrap();
    assert!(text.contains("not a terminal"), "{text}");
    let output = practice_in(&dir.0, &["--lang", "en", "--json"]);
    let stderr = String::from_utf8(output.stderr).unwrap();
    assert!(stderr.contains("not a terminal"), "{stderr}");
}
