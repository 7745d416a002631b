//! `practice`: the lesson's agent loop on real files with a real `python3` process, printed as a transcript.
//!
//! The loop, the stand-in model and the host rules are the same compiled code the page steps
//! through; only the workspace (a folder), the approval (a question on the terminal, or
//! `--decision`) and the runner (a real process) differ. See `practice --help`.

// A native command: for wasm32, where `cargo clippy --all-targets` builds every target, it is an
// empty crate (its live model's HTTP client and the run files' clock exist only natively).
#![cfg_attr(target_arch = "wasm32", no_main)]
#![cfg(not(target_arch = "wasm32"))]

use std::ffi::OsString;
use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Duration;

use serde::Serialize;
use todo_trace::host::in_memory::Preset;
use todo_trace::host::loop_scenarios::{question, MARKER, MAX_CALLS};
use todo_trace::host::native::live::{LiveModel, DEFAULT_MODEL};
use todo_trace::host::native::{
    adopt_orphans, fresh_folder, json_shown, now, read_inside, read_run_file, shown,
    workspace_notes, write_workspace, Folder, Python, Terminal, MAX_READ_BYTES, TIME_LIMIT,
};
use todo_trace::host::runs::tape::{TapedApproval, TapedModel, TapedRunner, TapedWorkspace};
use todo_trace::host::runs::{self, Divergence, Replay, RunFile, RunSettings, Source, Tape};
use todo_trace::host::stand_in::{Script, StandIn};
use todo_trace::lesson::agent::run_loop;
use todo_trace::lesson::agent_types::{Approval, Decision, Model, OutcomeJson, Tools};
use todo_trace::lesson::types::Lang;

const USAGE_EN: &str = "usage: practice [--decision allow|deny] [--maintenance] [--max-calls N]
                [--model standard|skip|claim|rejected|drift | --live [--model-name NAME]]
                [--reminder] [--lang zh|en] [--json] [--workspace DIR] [--time-limit SECONDS]
                [--record FILE]
       practice --replay FILE [--lang zh|en] [--json]

Runs the lesson's agent loop with the model stand-in (or a live model), real files and a real
python3 process.
  --decision      answer every run request in advance; without it a terminal is asked
                  each time, and without a terminal the answer is deny
  --maintenance   the host's maintenance rule: runs are blocked without asking
  --max-calls N   stop with call_limit after N model calls (default 12)
  --model         the stand-in's script (default standard)
  --live          ask a real model over the Anthropic Messages API instead of the stand-in;
                  needs ANTHROPIC_API_KEY (never printed or written), and ANTHROPIC_BASE_URL
                  may name another address (default https://api.anthropic.com)
  --model-name    the live model (default DEFAULT_MODEL_NAME)
  --reminder      remind the model after three rounds without a plan update
  --lang          the language of the run, the transcript and this help (default zh)
  --json          print the outcome as one JSON object, plus ran (this run made ran.marker)
                  and stale_marker_removed (a ran.marker from before was removed first)
  --workspace DIR use this folder as it is, instead of a fresh temporary one
                  (a ran.marker already in it is removed before the run: it is not evidence)
  --time-limit S  seconds main.py may run before it and every process it started are killed
                  (default 10)
  --record FILE   write the run file of this run: the model's replies, the files read, the
                  answers and the program's runs (never a key, nothing of this machine)
  --replay FILE   replay a run file through the same host code, printing the same transcript;
                  exits 1 where the host asks for something the recording does not hold";

const USAGE_ZH: &str = "用法：practice [--decision allow|deny] [--maintenance] [--max-calls N]
                [--model standard|skip|claim|rejected|drift | --live [--model-name NAME]]
                [--reminder] [--lang zh|en] [--json] [--workspace DIR] [--time-limit SECONDS]
                [--record FILE]
      practice --replay FILE [--lang zh|en] [--json]

用模型替身（或真实模型）、真实文件和真实的 python3 进程运行本课的智能体循环。
  --decision      预先回答每一次运行请求；不给时每次在终端上询问，没有终端时答案是拒绝
  --maintenance   宿主的维护规则：不询问，直接阻止运行
  --max-calls N   模型调用 N 次后以 call_limit 停止（默认 12）
  --model         替身的脚本（默认 standard）
  --live          通过 Anthropic Messages API 询问真实模型，而不是替身；需要 ANTHROPIC_API_KEY
                  （密钥从不打印、从不写入），ANTHROPIC_BASE_URL 可以换一个地址
                  （默认 https://api.anthropic.com）
  --model-name    真实模型的名字（默认 DEFAULT_MODEL_NAME）
  --reminder      连续三轮没有更新计划时提醒模型
  --lang          运行、记录和本帮助所用的语言（默认 zh）
  --json          把结果打印成一个 JSON 对象，另加 ran（本次运行生成了 ran.marker）
                  和 stale_marker_removed（运行前先删除了旧的 ran.marker）
  --workspace DIR 直接使用这个文件夹，而不是新建临时文件夹
                  （其中已有的 ran.marker 会在运行前删除：它不是证据）
  --time-limit S  main.py 可以运行的秒数，超时后它和它启动的所有进程都会被终止（默认 10）
  --record FILE   把这次运行写成运行记录：模型的回复、读过的文件、用户的回答和程序的运行
                  （不含任何密钥，也不含这台机器的任何信息）
  --replay FILE   用同一份宿主代码重放一份运行记录，打印同样的过程；
                  宿主问到记录里没有的东西时，以退出码 1 结束";

/// The help in the run's language, naming the default live model from its one constant.
fn usage(lang: Lang) -> String {
    lang.pick(USAGE_ZH, USAGE_EN).replace("DEFAULT_MODEL_NAME", DEFAULT_MODEL)
}

/// Prints a line to stdout, its control characters shown escaped (`shown`): much of what is
/// printed came from the workspace, the program or a model. When the reader has gone
/// (`practice | head`), the run ends quietly instead of panicking on the closed pipe.
macro_rules! say {
    () => { say!("") };
    ($($arg:tt)*) => {
        if writeln!(std::io::stdout(), "{}", shown(&format!($($arg)*))).is_err() {
            std::process::exit(0);
        }
    };
}

/// Prints to stderr, its control characters shown escaped.
macro_rules! complain {
    ($($arg:tt)*) => {
        eprintln!("{}", shown(&format!($($arg)*)))
    };
}

// After the macros, which it uses. In a folder of the binary's name, which Cargo leaves alone
// (it has no main.rs), beside this file.
#[path = "practice/transcript.rs"]
mod transcript;

use transcript::{labelled, print_messages, print_summary, Narrated};

/// The command line, parsed.
struct Options {
    decision: Option<Decision>,
    maintenance: bool,
    max_calls: usize,
    /// The stand-in's script; `None` when `--model` was not given (then standard).
    script: Option<Script>,
    /// Ask a live model over the Messages API, by this name.
    live: Option<String>,
    reminder: bool,
    lang: Lang,
    json: bool,
    workspace: Option<PathBuf>,
    time_limit: Duration,
    record: Option<PathBuf>,
    replay: Option<PathBuf>,
    /// The flags given, to refuse those a replay cannot take.
    given: Vec<String>,
}

/// The language the arguments ask for (the last valid `--lang`), known before the rest is
/// parsed, so that help and usage are printed in it.
fn lang_of(args: &[String]) -> Lang {
    let mut lang = Lang::Zh;
    for pair in args.windows(2) {
        match (pair[0].as_str(), pair[1].as_str()) {
            ("--lang", "zh") => lang = Lang::Zh,
            ("--lang", "en") => lang = Lang::En,
            _ => {}
        }
    }
    lang
}

/// The arguments as text; a non-UTF-8 one is refused by name (shown lossily), not a panic.
fn utf8_args(args: impl IntoIterator<Item = OsString>) -> Result<Vec<String>, String> {
    args.into_iter()
        .map(|arg| {
            arg.into_string()
                .map_err(|arg| format!("argument {:?} is not valid UTF-8", arg.to_string_lossy()))
        })
        .collect()
}

/// The options, or `None` when help was asked for.
fn parse(args: impl IntoIterator<Item = String>) -> Result<Option<Options>, String> {
    let mut options = Options {
        decision: None,
        maintenance: false,
        max_calls: MAX_CALLS,
        script: None,
        live: None,
        reminder: false,
        lang: Lang::Zh,
        json: false,
        workspace: None,
        time_limit: TIME_LIMIT,
        record: None,
        replay: None,
        given: Vec::new(),
    };
    let mut live = false;
    let mut model_name = None;
    let mut args = args.into_iter();
    while let Some(flag) = args.next() {
        if flag.starts_with("--") {
            options.given.push(flag.clone());
        }
        let mut value = || args.next().ok_or(format!("{flag} needs a value"));
        match flag.as_str() {
            "--decision" => {
                options.decision = Some(match value()?.as_str() {
                    "allow" => Decision::Allow,
                    "deny" => Decision::Deny,
                    other => return Err(format!("--decision takes allow or deny, not {other:?}")),
                })
            }
            "--maintenance" => options.maintenance = true,
            "--max-calls" => {
                let text = value()?;
                options.max_calls =
                    text.parse().map_err(|_| format!("--max-calls takes a count, not {text:?}"))?;
            }
            "--model" => {
                let text = value()?;
                options.script = Some(Script::from_name(&text).ok_or(format!(
                    "--model takes standard, skip, claim, rejected or drift, not {text:?}"
                ))?);
            }
            "--live" => live = true,
            "--model-name" => {
                let name = value()?;
                if name.is_empty() || name.chars().any(|c| c.is_whitespace() || c.is_control()) {
                    return Err(format!(
                        "--model-name takes a model id such as {DEFAULT_MODEL}, not {name:?}"
                    ));
                }
                model_name = Some(name);
            }
            "--reminder" => options.reminder = true,
            "--lang" => {
                options.lang = match value()?.as_str() {
                    "zh" => Lang::Zh,
                    "en" => Lang::En,
                    other => return Err(format!("--lang takes zh or en, not {other:?}")),
                }
            }
            "--json" => options.json = true,
            "--workspace" => options.workspace = Some(PathBuf::from(value()?)),
            "--time-limit" => {
                let text = value()?;
                let seconds: f64 = text.parse().unwrap_or(f64::NAN);
                if !(seconds > 0.0 && seconds <= 3600.0) {
                    return Err(format!("--time-limit takes seconds (0 to 3600), not {text:?}"));
                }
                options.time_limit = Duration::from_secs_f64(seconds);
            }
            "--record" => options.record = Some(PathBuf::from(value()?)),
            "--replay" => options.replay = Some(PathBuf::from(value()?)),
            "--help" | "-h" => return Ok(None),
            other => return Err(format!("unknown argument {other:?}")),
        }
    }
    match (live, model_name, options.script) {
        (false, Some(_), _) => {
            return Err("--model-name names a live model: it needs --live".into())
        }
        (true, _, Some(_)) => {
            return Err(
                "--live and --model exclude each other: --model picks a stand-in's script".into()
            )
        }
        (true, name, None) => options.live = Some(name.unwrap_or_else(|| DEFAULT_MODEL.into())),
        (false, None, _) => {}
    }
    if options.replay.is_some() {
        // A replay's settings, answers and files are the recording's.
        let allowed = ["--replay", "--lang", "--json"];
        if let Some(flag) = options.given.iter().find(|flag| !allowed.contains(&flag.as_str())) {
            return Err(format!("--replay takes its settings from the run file, not from {flag}"));
        }
    }
    Ok(Some(options))
}

/// The outcome as `--json` prints it.
#[derive(Serialize)]
struct Report<'a> {
    #[serde(flatten)]
    outcome: OutcomeJson<'a>,
    /// `ran.marker` exists after the run, and this run made it (an older one was removed first).
    ran: bool,
    workspace: String,
    /// A `ran.marker` from before the run was removed first.
    stale_marker_removed: bool,
}

/// Removes a `ran.marker` left from before: only a marker this run makes is evidence that
/// `main.py` ran. Whether there was one; an error (and then nothing runs) when it cannot be.
fn remove_stale_marker(dir: &Path) -> std::io::Result<bool> {
    let marker = dir.join(MARKER);
    match fs::symlink_metadata(&marker) {
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => Ok(false),
        Err(error) => Err(error),
        // A folder by that name is not removed: it may hold the user's files.
        Ok(metadata) if metadata.is_dir() => Err(std::io::Error::other("it is a folder")),
        Ok(_) => fs::remove_file(&marker).map(|()| true),
    }
}

/// Whether this run left the marker: a regular file (the marker `main.py` writes), made after
/// any older one was removed.
fn marker_made(dir: &Path) -> bool {
    fs::symlink_metadata(dir.join(MARKER)).is_ok_and(|metadata| metadata.is_file())
}

/// Writes a run file, as JSON a person can read.
fn write_run(path: &Path, run: &RunFile) -> std::io::Result<()> {
    let json = serde_json::to_string_pretty(run).map_err(std::io::Error::other)?;
    fs::write(path, json + "\n")
}

/// `practice --replay FILE`: the recorded run through the same host code, with the same transcript.
fn replay(path: &Path, options: &Options) -> ExitCode {
    let lang = options.lang;
    let bytes = match read_run_file(path) {
        Ok(bytes) => bytes,
        Err(error) => {
            complain!("practice: cannot read the run file {}: {error}", path.display());
            return ExitCode::from(2);
        }
    };
    let run = match runs::parse(&bytes) {
        Ok(run) => run,
        Err(error) => {
            complain!("practice: {} ({})", error.message(lang), error.code());
            return ExitCode::from(2);
        }
    };
    let replay = Replay::new(&run);
    let mut model = &replay;
    let result = if options.json {
        replay.run(&mut model)
    } else {
        labelled(lang.pick("重放：", "Replay: "), &run.origin(lang));
        say!("{}{}", lang.pick("用户：", "User: "), run.question);
        let mut narrated = Narrated { model: &mut model, lang, shown: 1 };
        let result = replay.run(&mut narrated);
        if let Ok(outcome) = &result {
            print_messages(&outcome.history, narrated.shown, lang);
        }
        result
    };
    let diverged = replay.finish(&result);
    match (&result, options.json) {
        (Ok(outcome), true) => {
            let report = ReplayReport { outcome: outcome.json(), diverged: diverged.as_ref() };
            match serde_json::to_string(&report) {
                Ok(json) => say!("{}", json_shown(&json)),
                Err(error) => complain!("practice: {error}"),
            }
        }
        (Ok(outcome), false) => print_summary(outcome, None, run.expected(), lang),
        // A divergence is said once, below.
        (Err(error), _) if diverged.is_none() => complain!("practice: {}", error.message(lang)),
        (Err(_), _) => {}
    }
    match diverged {
        Some(divergence) => {
            complain!("practice: {}", divergence.message);
            ExitCode::from(1)
        }
        None if result.is_err() => ExitCode::FAILURE,
        None => ExitCode::SUCCESS,
    }
}

/// A replay's outcome as `--json` prints it.
#[derive(Serialize)]
struct ReplayReport<'a> {
    #[serde(flatten)]
    outcome: OutcomeJson<'a>,
    /// Where the replay left its recording; absent when it followed it to the end.
    #[serde(skip_serializing_if = "Option::is_none")]
    diverged: Option<&'a Divergence>,
}

fn main() -> ExitCode {
    let args = match utf8_args(std::env::args_os().skip(1)) {
        Ok(args) => args,
        Err(problem) => {
            complain!("practice: {problem}\n\n{}", usage(Lang::Zh));
            return ExitCode::from(2);
        }
    };
    let options = match parse(args.iter().cloned()) {
        Ok(Some(options)) => options,
        Ok(None) => {
            say!("{}", usage(lang_of(&args)));
            return ExitCode::SUCCESS;
        }
        Err(problem) => {
            complain!("practice: {problem}\n\n{}", usage(lang_of(&args)));
            return ExitCode::from(2);
        }
    };
    if let Some(path) = &options.replay {
        return replay(path, &options);
    }
    let lang = options.lang;
    // The key is looked for first: without one, nothing is created, run or sent.
    let mut live = match options.live.as_deref().map(|name| LiveModel::from_env(name, lang)) {
        None => None,
        Some(Ok(model)) => Some(model),
        Some(Err(problem)) => {
            complain!("practice: {problem}");
            return ExitCode::from(2);
        }
    };
    // Every process main.py starts stays below practice, even one that leaves its process group.
    adopt_orphans();
    let dir = match &options.workspace {
        Some(dir) => dir.clone(),
        None => match fresh_folder().and_then(|dir| write_workspace(&dir).map(|()| dir)) {
            Ok(dir) => dir,
            Err(error) => {
                complain!("practice: cannot create the workspace folder: {error}");
                return ExitCode::FAILURE;
            }
        },
    };
    if !dir.is_dir() {
        complain!("practice: {} is not a folder", dir.display());
        return ExitCode::FAILURE;
    }
    let stale_marker_removed = match remove_stale_marker(&dir) {
        Ok(removed) => removed,
        Err(error) => {
            complain!(
                "practice: {MARKER} from before the run cannot be removed ({error}), so it could not tell whether this run ran main.py"
            );
            return ExitCode::FAILURE;
        }
    };
    let workspace = Folder { root: dir.clone() };
    let mut preset = options.decision.map(Preset::new);
    let mut terminal = Terminal { dir: dir.clone(), asked: 0, json: options.json };
    let approval: &mut dyn Approval = match &mut preset {
        Some(preset) => preset,
        None => &mut terminal,
    };
    let mut python = Python { time_limit: options.time_limit, ..Python::new(dir.clone()) };
    // Every answer of the world is kept as it passes; written out with --record.
    let tape = Tape::new();
    let mut approval = TapedApproval { approval, tape: &tape };
    let mut runner = TapedRunner { runner: &mut python, tape: &tape };
    let mut tools = Tools {
        workspace: &TapedWorkspace { workspace: &workspace, tape: &tape },
        approval: &mut approval,
        runner: &mut runner,
        maintenance: options.maintenance,
        lang,
    };
    let mut stand_in = StandIn::new(options.script.unwrap_or(Script::Standard), lang);
    let model: &mut dyn Model = match &mut live {
        Some(live) => live,
        None => &mut stand_in,
    };
    let mut model = TapedModel { model, tape: &tape };
    let question = question(lang);
    let notes = workspace_notes(&dir, MAX_READ_BYTES, lang);
    if options.json {
        for note in &notes {
            complain!("practice: {note}");
        }
    } else {
        labelled(lang.pick("工作区：", "Workspace: "), &dir.display().to_string());
        if stale_marker_removed {
            say!(
                "{}",
                lang.pick(
                    "（运行前先删除了之前留下的 ran.marker：只有本次运行生成的才是证据）",
                    "(A ran.marker left from an earlier run was removed before the run: only one this run makes is evidence)"
                )
            );
        }
        for note in &notes {
            say!("{note}");
        }
        if let Some(name) = &options.live {
            labelled(lang.pick("模型：真实模型 ", "Model: live, "), name);
        }
        say!("{}{question}", lang.pick("用户：", "User: "));
    }
    let result = if options.json {
        run_loop(&mut model, &mut tools, options.max_calls, options.reminder, question)
    } else {
        let mut narrated = Narrated { model: &mut model, lang, shown: 1 };
        let result =
            run_loop(&mut narrated, &mut tools, options.max_calls, options.reminder, question);
        if let Ok(outcome) = &result {
            print_messages(&outcome.history, narrated.shown, lang);
        }
        result
    };
    if let Some(path) = &options.record {
        let settings = RunSettings {
            lang,
            max_calls: options.max_calls,
            maintenance: options.maintenance,
            reminder: options.reminder,
        };
        let source = match &options.live {
            Some(name) => Source::Live { name: name.clone() },
            None => Source::StandIn { script: options.script.unwrap_or(Script::Standard) },
        };
        let run = tape.finish(source, Some(now()), settings, question, &result);
        if let Err(error) = write_run(path, &run) {
            complain!("practice: cannot write the run file {}: {error}", path.display());
            return ExitCode::FAILURE;
        }
    }
    let outcome = match result {
        Ok(outcome) => outcome,
        Err(error) => {
            complain!("practice: {}", error.message(lang));
            return ExitCode::FAILURE;
        }
    };
    let ran = marker_made(&dir);
    if options.json {
        let report = Report {
            outcome: outcome.json(),
            ran,
            workspace: dir.display().to_string(),
            stale_marker_removed,
        };
        match serde_json::to_string(&report) {
            // serde_json escapes C0 controls; json_shown escapes the rest a terminal acts on.
            Ok(json) => say!("{}", json_shown(&json)),
            Err(error) => {
                complain!("practice: {error}");
                return ExitCode::FAILURE;
            }
        }
    } else {
        let expected = read_inside(&dir, "expected.txt", MAX_READ_BYTES).ok();
        print_summary(&outcome, Some(ran), expected.as_deref(), lang);
    }
    ExitCode::SUCCESS
}
