//! Folders for the `practice` tests: each removed when its test ends, pass or fail.

use std::fs;
use std::path::PathBuf;

use todo_trace::host::native::{fresh_folder, write_workspace};

/// A folder removed when the test ends, pass or fail.
pub struct TempDir(pub PathBuf);

impl TempDir {
    /// A fresh, empty folder.
    pub fn new() -> TempDir {
        TempDir(fresh_folder().unwrap())
    }

    /// The path of `name` in the folder, as an argument.
    pub fn file(&self, name: &str) -> String {
        self.0.join(name).to_str().unwrap().to_string()
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = fs::remove_dir_all(&self.0);
    }
}

/// A fresh workspace with the lesson's two files.
pub fn workspace() -> TempDir {
    let dir = TempDir::new();
    write_workspace(&dir.0).unwrap();
    dir
}
