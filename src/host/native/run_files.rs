//! Run files on disk for `practice --record` and `--replay`: the date a run was recorded, and reading a file the user named without trusting it.

use std::fs::{File, OpenOptions};
use std::io::Read;
use std::path::Path;
use std::time::SystemTime;

use crate::host::runs::file::MAX_BYTES;

/// Now, as a run file's `recorded` (RFC 3339, UTC, to the second).
pub fn now() -> String {
    humantime::format_rfc3339_seconds(SystemTime::now()).to_string()
}

/// The bytes of the run file at `path`: a regular file, read up to one byte past [`MAX_BYTES`]
/// (`runs::parse` checks the size and the UTF-8). A FIFO or a device is refused before anything
/// is read from it, so naming one never hangs the command.
pub fn read_run_file(path: &Path) -> std::io::Result<Vec<u8>> {
    let not = |why: &str| std::io::Error::new(std::io::ErrorKind::InvalidData, why.to_string());
    let mut options = OpenOptions::new();
    options.read(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        // Opening a FIFO for reading would wait for a writer.
        options.custom_flags(libc::O_NONBLOCK);
    }
    let file: File = options.open(path)?;
    let metadata = file.metadata()?;
    if !metadata.is_file() {
        return Err(not("not a regular file"));
    }
    let mut bytes = Vec::new();
    // A file that grows after the check is still read only up to one byte past the limit, so
    // `runs::parse` refuses it as too large.
    file.take(MAX_BYTES as u64 + 1).read_to_end(&mut bytes)?;
    Ok(bytes)
}
