//! A folder workspace's files: only a regular file inside the folder is read or run, opened without blocking and read up to a cap.
//!
//! A workspace may be any folder the user names, and its contents are not trusted: a link may
//! point out of it, `expected.txt` may be a FIFO (opening one for reading waits for a writer,
//! forever), a device or a huge file. So a file is resolved, checked to be inside, opened with
//! `O_NONBLOCK | O_NOFOLLOW`, checked again on the open handle, and only then read.

use std::fs::{self, File, OpenOptions};
use std::io::Read;
use std::path::{Path, PathBuf};

use crate::lesson::agent_types::{inside, ReadError};
use crate::lesson::types::Lang;

/// The reason given for a FIFO, a device, a socket or a folder.
pub const NOT_REGULAR: &str = "not a regular file";

fn failed(error: std::io::Error) -> ReadError {
    match error.kind() {
        std::io::ErrorKind::NotFound => ReadError::Missing,
        _ => ReadError::Failed(error.to_string()),
    }
}

/// `path` (relative to `root`) resolved through every link, when it stays inside `root`.
pub fn resolve_inside(root: &Path, path: &str) -> Result<PathBuf, ReadError> {
    let parts = inside(path).ok_or(ReadError::Outside)?;
    let full = parts.iter().fold(root.to_path_buf(), |dir, part| dir.join(part));
    // Resolving links first: a link inside the folder may still point out of it.
    let real = full.canonicalize().map_err(failed)?;
    let root = root.canonicalize().map_err(failed)?;
    if !real.starts_with(&root) {
        return Err(ReadError::Outside);
    }
    Ok(real)
}

/// Opens `path` for reading when it is a regular file inside `root` of at most `cap` bytes.
pub fn open_inside(root: &Path, path: &str, cap: u64) -> Result<File, ReadError> {
    let real = resolve_inside(root, path)?;
    // Checked before opening, because opening a device may itself do something.
    if !fs::symlink_metadata(&real).map_err(failed)?.is_file() {
        return Err(ReadError::Failed(NOT_REGULAR.to_string()));
    }
    let mut options = OpenOptions::new();
    options.read(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        // Should the file have been swapped for a FIFO or a link since the check, the open
        // neither waits for a writer nor follows the link.
        options.custom_flags(libc::O_NONBLOCK | libc::O_NOFOLLOW);
    }
    let file = options.open(&real).map_err(failed)?;
    // Checked again on the handle itself: this is the file that will be read.
    let metadata = file.metadata().map_err(failed)?;
    if !metadata.is_file() {
        return Err(ReadError::Failed(NOT_REGULAR.to_string()));
    }
    if metadata.len() > cap {
        return Err(ReadError::Failed(format!("larger than {cap} bytes")));
    }
    Ok(file)
}

/// The text of a regular file inside `root`, of at most `cap` bytes.
pub fn read_inside(root: &Path, path: &str, cap: u64) -> Result<String, ReadError> {
    let file = open_inside(root, path, cap)?;
    let mut bytes = Vec::new();
    // A file that grows after the check is still read only up to the cap.
    file.take(cap + 1).read_to_end(&mut bytes).map_err(failed)?;
    if bytes.len() as u64 > cap {
        return Err(ReadError::Failed(format!("larger than {cap} bytes")));
    }
    String::from_utf8(bytes).map_err(|_| ReadError::Failed("not UTF-8 text".to_string()))
}

/// What is wrong with the workspace's `main.py` and `expected.txt`, said before the run starts,
/// so a learner is not left to find it out from the model's tool results.
pub fn workspace_notes(root: &Path, cap: u64, lang: Lang) -> Vec<String> {
    ["main.py", "expected.txt"]
        .into_iter()
        .filter_map(|name| {
            let error = open_inside(root, name, cap).err()?;
            let what = match (name, lang) {
                ("main.py", Lang::Zh) => "read_file 读不到它，run_main 也不会运行它",
                ("main.py", Lang::En) => "read_file cannot read it and run_main will not run it",
                (_, Lang::Zh) => "read_file 读不到它，输出就没有可核对的依据",
                (_, Lang::En) => {
                    "read_file cannot read it, so there is nothing to check the output against"
                }
            };
            Some(match (error, lang) {
                (ReadError::Missing, Lang::Zh) => format!("注意：工作区里没有 {name}；{what}。"),
                (ReadError::Missing, Lang::En) => {
                    format!("Note: the workspace has no {name}; {what}.")
                }
                (ReadError::Outside, Lang::Zh) => {
                    format!("注意：{name} 指向工作区之外；{what}。")
                }
                (ReadError::Outside, Lang::En) => {
                    format!("Note: {name} points outside the workspace; {what}.")
                }
                (ReadError::Failed(why), Lang::Zh) => {
                    format!("注意：{name} 不可用（{why}）；{what}。")
                }
                (ReadError::Failed(why), Lang::En) => {
                    format!("Note: {name} cannot be used ({why}); {what}.")
                }
            })
        })
        .collect()
}
