//! The runner: `python3 main.py` in the folder, in a process group of its own, with a time limit and an output cap.

use std::borrow::Cow;
use std::io::Read;
use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::sync::{Arc, Mutex};
use std::thread;
use std::time::{Duration, Instant};

use super::contain::{own_group, wait_or_kill};
use super::files::open_inside;
use super::{MAX_READ_BYTES, OUTPUT_CAP, TIME_LIMIT};
use crate::lesson::agent_types::{exit_line, output_header, Process, ReadError, RunResult, Runner};
use crate::lesson::types::Lang;

/// Runs `python3 main.py` in the folder, with a time limit and an output cap.
pub struct Python {
    pub dir: PathBuf,
    pub time_limit: Duration,
    pub output_cap: usize,
}

impl Python {
    pub fn new(dir: PathBuf) -> Python {
        Python { dir, time_limit: TIME_LIMIT, output_cap: OUTPUT_CAP }
    }
}

/// One output stream, read on its own thread so a full pipe never stalls the program.
#[derive(Default)]
struct Captured {
    bytes: Vec<u8>,
    cut: bool,
    done: bool,
}

fn capture(stream: Option<impl Read + Send + 'static>, cap: usize) -> Arc<Mutex<Captured>> {
    let shared = Arc::new(Mutex::new(Captured::default()));
    let Some(mut stream) = stream else {
        shared.lock().unwrap_or_else(|p| p.into_inner()).done = true;
        return shared;
    };
    let writer = Arc::clone(&shared);
    thread::spawn(move || {
        let mut chunk = [0u8; 8192];
        loop {
            let read = stream.read(&mut chunk).unwrap_or(0);
            let mut captured = writer.lock().unwrap_or_else(|p| p.into_inner());
            if read == 0 {
                captured.done = true;
                return;
            }
            let room = cap.saturating_sub(captured.bytes.len());
            captured.cut |= read > room;
            captured.bytes.extend_from_slice(&chunk[..read.min(room)]);
        }
    });
    shared
}

/// What a stream held; a process out of our reach still holding the pipe open is not waited on
/// for long.
fn collected(captured: &Arc<Mutex<Captured>>) -> (String, bool) {
    let deadline = Instant::now() + Duration::from_millis(500);
    loop {
        let captured = captured.lock().unwrap_or_else(|p| p.into_inner());
        if captured.done || Instant::now() >= deadline {
            return (String::from_utf8_lossy(&captured.bytes).into_owned(), captured.cut);
        }
        drop(captured);
        thread::sleep(Duration::from_millis(5));
    }
}

/// Why `main.py` is not run: it is not a regular file inside the folder. Python is never shown
/// such a file, so nothing of a link's target (say `/etc/passwd`) reaches its error message.
fn refused(error: ReadError, lang: Lang) -> RunResult {
    let text = match (error, lang) {
        (ReadError::Missing, Lang::Zh) => "未运行：工作区里没有 main.py。".to_string(),
        (ReadError::Missing, Lang::En) => {
            "Not run: there is no main.py in the workspace.".to_string()
        }
        (ReadError::Outside, Lang::Zh) => "未运行：main.py 指向工作区之外。".to_string(),
        (ReadError::Outside, Lang::En) => {
            "Not run: main.py points outside the workspace.".to_string()
        }
        (ReadError::Failed(why), Lang::Zh) => format!("未运行：main.py 不可用（{why}）。"),
        (ReadError::Failed(why), Lang::En) => format!("Not run: main.py cannot be used ({why})."),
    };
    RunResult::not_run(text)
}

impl Runner for Python {
    fn run(&mut self, lang: Lang) -> RunResult {
        // Checked as `read_file` checks it: a regular file inside the folder, within the cap.
        if let Err(error) = open_inside(&self.dir, "main.py", MAX_READ_BYTES) {
            return refused(error, lang);
        }
        let mut command = Command::new("python3");
        command
            .arg("main.py")
            .current_dir(&self.dir)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        own_group(&mut command);
        let mut child = match command.spawn() {
            Ok(child) => child,
            Err(error) if error.kind() == std::io::ErrorKind::NotFound => {
                let text = lang.pick(
                    "未运行：这台机器上找不到 python3（./build.sh setup 会安装它）。",
                    "Not run: python3 was not found on this machine (./build.sh setup installs it).",
                );
                return RunResult::not_run(text);
            }
            Err(error) => {
                let text = match lang {
                    Lang::Zh => format!("未运行：无法启动 python3：{error}"),
                    Lang::En => format!("Not run: python3 could not be started: {error}"),
                };
                return RunResult::not_run(text);
            }
        };
        let stdout = capture(child.stdout.take(), self.output_cap);
        let stderr = capture(child.stderr.take(), self.output_cap);
        let waited = wait_or_kill(&mut child, self.time_limit);
        let (output, output_cut) = collected(&stdout);
        let (errors, errors_cut) = collected(&stderr);
        let seconds = self.time_limit.as_secs_f64();
        let process = Process {
            exit_code: waited.as_ref().ok().and_then(|status| status.and_then(|s| s.code())),
            output: output.clone(),
            timed_out: matches!(waited, Ok(None)),
        };
        let (first, ok) = match waited {
            Ok(Some(status)) => match status.code() {
                Some(code) => (exit_line(code, lang), status.success()),
                None => (lang.pick("被信号终止", "killed by a signal").to_string(), false),
            },
            Ok(None) => {
                let text = match lang {
                    Lang::Zh => format!("已停止：main.py 在 {seconds} 秒的时间限制内没有结束，已被终止。"),
                    Lang::En => format!("Stopped: main.py did not finish within the time limit of {seconds} s and was killed."),
                };
                (text, false)
            }
            Err(error) => (error.to_string(), false),
        };
        let mut text = first;
        if output_cut || errors_cut {
            let cap = self.output_cap;
            text += &match lang {
                Lang::Zh => format!("（输出超过 {cap} 字节，只保留了开头）"),
                Lang::En => format!(" (output over {cap} bytes; only its start is kept)"),
            };
        }
        if !errors.is_empty() {
            text += &format!("\nstderr:\n{}", errors.trim_end());
        }
        text += &format!("\n{}\n{output}", output_header(lang));
        RunResult { text, ok, process: Some(process) }
    }

    fn describe(&self) -> Cow<'_, str> {
        Cow::Owned(format!(
            "python3 main.py in {} (time limit {} s)",
            self.dir.display(),
            self.time_limit.as_secs_f64()
        ))
    }
}
