//! The loop's host on the command line (`practice`): real files in a folder, a real question, a real `python3` process.
//!
//! Only the `practice` binary uses this module; the wasm API never reaches it, so none of it is
//! linked into the page's module. The folder is not trusted: its files may be links out of it,
//! FIFOs or huge (`files.rs`), `main.py` may start processes that try to outlive the run
//! (`contain.rs`), and anything it prints may hold terminal escapes (`shown.rs`). With `--live`
//! the model is a real one over HTTPS (`live.rs`), and its words are as untrusted as the folder.

mod contain;
mod evidence;
mod files;
// ureq and its TLS stack do not build for wasm32, and the page never asks a live model.
#[cfg(all(not(target_arch = "wasm32"), feature = "live"))]
pub mod live;
mod python;
// humantime, like ureq, is a native-only dependency.
#[cfg(not(target_arch = "wasm32"))]
mod run_files;
mod shown;
mod terminal;

use std::borrow::Cow;
use std::fs;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use crate::host::loop_scenarios::FILES;
use crate::lesson::agent_types::{ReadError, Workspace};

pub use contain::adopt_orphans;
pub use evidence::{claims_of, table_lines};
pub use files::{open_inside, read_inside, workspace_notes, NOT_REGULAR};
pub use python::Python;
#[cfg(not(target_arch = "wasm32"))]
pub use run_files::{now, read_run_file};
pub use shown::{json_shown, shown};
pub use terminal::Terminal;

/// A file larger than this is not read or run (the workspace may be any folder the user names).
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
        read_inside(&self.root, path, MAX_READ_BYTES)
    }

    fn describe(&self) -> Cow<'_, str> {
        Cow::Owned(format!("folder {}", self.root.display()))
    }
}
