//! The loop's host on the command line (`practice`): real files in a folder, a real question, a real `python3` process.
//!
//! Only the `practice` binary uses this module; the wasm API never reaches it, so none of it is
//! linked into the page's module.

use std::borrow::Cow;
use std::fs;
use std::io::{BufRead, IsTerminal, Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::thread;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use crate::host::loop_scenarios::FILES;
use crate::lesson::agent_types::{
    exit_line, inside, output_header, Approval, Decision, ReadError, RunResult, Runner, Workspace,
};
use crate::lesson::types::Lang;

/// A file larger than this is not read (the workspace may be any folder the user names).
pub const MAX_READ_BYTES: u64 = 64 * 1024;
/// How long `main.py` may run before it is killed.
pub const TIME_LIMIT: Duration = Duration::from_secs(10);
/// How much of each output stream is kept; the rest is read and dropped.
pub const OUTPUT_CAP: usize = 64 * 1024;

/// A fresh, empty folder under the system's temporary directory.
pub fn fresh_folder() -> std::io::Result<PathBuf> {
    static COUNT: AtomicUsize = AtomicUsize::new(0);
    let nanos = SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, |d| d.as_nanos());
    let mut attempt = 0;
    loop {
        let n = COUNT.fetch_add(1, Ordering::Relaxed);
        let name = format!("todo-trace-practice-{}-{nanos}-{n}", std::process::id());
        let dir = std::env::temp_dir().join(name);
        // create_dir (not create_dir_all) fails if the folder exists, so it is ours alone.
        match fs::create_dir(&dir) {
            Ok(()) => return Ok(dir),
            Err(error) if error.kind() == std::io::ErrorKind::AlreadyExists && attempt < 100 => {
                attempt += 1;
            }
            Err(error) => return Err(error),
        }
    }
}

/// Writes `main.py` and `expected.txt` into `dir`.
pub fn write_workspace(dir: &Path) -> std::io::Result<()> {
    for (name, text) in FILES {
        fs::write(dir.join(name), text)?;
    }
    Ok(())
}

/// A workspace that is a real folder.
pub struct Folder {
    pub root: PathBuf,
}

impl Workspace for Folder {
    fn read(&self, path: &str) -> Result<String, ReadError> {
        let parts = inside(path).ok_or(ReadError::Outside)?;
        let full = parts.iter().fold(self.root.clone(), |dir, part| dir.join(part));
        let failed = |error: std::io::Error| match error.kind() {
            std::io::ErrorKind::NotFound => ReadError::Missing,
            _ => ReadError::Failed(error.to_string()),
        };
        // Resolving links first: a link inside the folder may still point out of it.
        let real = full.canonicalize().map_err(failed)?;
        let root = self.root.canonicalize().map_err(failed)?;
        if !real.starts_with(&root) {
            return Err(ReadError::Outside);
        }
        if fs::metadata(&real).map_err(failed)?.len() > MAX_READ_BYTES {
            return Err(ReadError::Failed(format!("larger than {MAX_READ_BYTES} bytes")));
        }
        let bytes = fs::read(&real).map_err(failed)?;
        String::from_utf8(bytes).map_err(|_| ReadError::Failed("not UTF-8 text".to_string()))
    }

    fn describe(&self) -> Cow<'_, str> {
        Cow::Owned(format!("folder {}", self.root.display()))
    }
}

/// Asks on the terminal before each run; without a terminal to ask on, the answer is deny.
pub struct Terminal {
    pub dir: PathBuf,
    pub asked: usize,
}

impl Approval for Terminal {
    fn decide(&mut self, lang: Lang) -> Decision {
        self.asked += 1;
        let stdin = std::io::stdin();
        if !stdin.is_terminal() {
            return Decision::Deny;
        }
        let dir = self.dir.display();
        let prompt = match lang {
            Lang::Zh => format!("模型请求在 {dir} 里运行 python3 main.py。允许吗？[y/N] "),
            Lang::En => format!("The model asks to run python3 main.py in {dir}. Allow? [y/N] "),
        };
        // The question goes to stderr, so `--json` output on stdout stays one JSON object.
        eprint!("{prompt}");
        let _ = std::io::stderr().flush();
        let mut line = String::new();
        if stdin.lock().read_line(&mut line).is_err() {
            return Decision::Deny;
        }
        match line.trim().to_lowercase().as_str() {
            "y" | "yes" | "是" | "允许" => Decision::Allow,
            _ => Decision::Deny,
        }
    }

    fn describe(&self) -> Cow<'_, str> {
        Cow::Borrowed("asks on the terminal (deny when not interactive)")
    }
}

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

/// Waits for the program, killing it at the deadline; `None` when it was killed.
fn wait_or_kill(
    child: &mut Child,
    limit: Duration,
) -> std::io::Result<Option<std::process::ExitStatus>> {
    let started = Instant::now();
    loop {
        if let Some(status) = child.try_wait()? {
            return Ok(Some(status));
        }
        if started.elapsed() >= limit {
            child.kill()?;
            child.wait()?;
            return Ok(None);
        }
        thread::sleep(Duration::from_millis(5));
    }
}

/// What a stream held; a grandchild still holding the pipe open is not waited on for long.
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

impl Runner for Python {
    fn run(&mut self, lang: Lang) -> RunResult {
        let spawned = Command::new("python3")
            .arg("main.py")
            .current_dir(&self.dir)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn();
        let mut child = match spawned {
            Ok(child) => child,
            Err(error) if error.kind() == std::io::ErrorKind::NotFound => {
                let text = lang.pick(
                    "未运行：这台机器上找不到 python3（./build.sh setup 会安装它）。",
                    "Not run: python3 was not found on this machine (./build.sh setup installs it).",
                );
                return RunResult { text: text.to_string(), ok: false };
            }
            Err(error) => {
                let text = match lang {
                    Lang::Zh => format!("未运行：无法启动 python3：{error}"),
                    Lang::En => format!("Not run: python3 could not be started: {error}"),
                };
                return RunResult { text, ok: false };
            }
        };
        let stdout = capture(child.stdout.take(), self.output_cap);
        let stderr = capture(child.stderr.take(), self.output_cap);
        let waited = wait_or_kill(&mut child, self.time_limit);
        let (output, output_cut) = collected(&stdout);
        let (errors, errors_cut) = collected(&stderr);
        let seconds = self.time_limit.as_secs_f64();
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
        RunResult { text, ok }
    }

    fn describe(&self) -> Cow<'_, str> {
        Cow::Owned(format!(
            "python3 main.py in {} (time limit {} s)",
            self.dir.display(),
            self.time_limit.as_secs_f64()
        ))
    }
}
