//! Keeping `main.py` and everything it starts inside the run: its own process group, the time limit applied to the whole group, and every leftover process killed.
//!
//! What is contained, on Linux:
//! - `main.py` leads a process group of its own. When it exits, or at the time limit, the whole
//!   group is killed before `main.py` itself is reaped (so the group's id cannot have been
//!   reused): a child left running in the background does not outlive the run.
//! - A child that calls `setsid` leaves the group, and nothing a process group offers can reach
//!   it. So the `practice` binary makes itself a child subreaper ([`adopt_orphans`]): a process
//!   orphaned below it is re-parented to it, not to init. After each run every process below
//!   `practice` is killed (it has no children but runs). Out of reach: a process that `main.py`
//!   had started by something outside the tree (a system service, `at`, a user's systemd).
//!
//! Without [`adopt_orphans`] (a test calling [`super::Python`] directly in a process that has
//! other children) only the group is killed: a `setsid` child may then outlive the run.
//! Elsewhere than Linux, the group is killed at the time limit only.

use std::io;
use std::process::{Child, Command, ExitStatus};
#[cfg(target_os = "linux")]
use std::sync::atomic::{AtomicBool, Ordering};
use std::thread;
use std::time::{Duration, Instant};

/// Set once this process adopts its orphaned descendants; from then on a run ends by killing
/// every process below this one.
#[cfg(target_os = "linux")]
static ADOPTING: AtomicBool = AtomicBool::new(false);

/// Makes this process the reaper of its orphaned descendants, so that none of `main.py`'s
/// children can escape the run by `setsid` and a parent's exit. Call it only in a process whose
/// children are all runs (the `practice` binary): after each run, every descendant is killed.
/// Whether it took effect (Linux only).
pub fn adopt_orphans() -> bool {
    #[cfg(target_os = "linux")]
    {
        // SAFETY: prctl with PR_SET_CHILD_SUBREAPER takes one integer argument and touches no memory.
        let done = unsafe { libc::prctl(libc::PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) } == 0;
        ADOPTING.store(done, Ordering::SeqCst);
        done
    }
    #[cfg(not(target_os = "linux"))]
    false
}

/// Starts the program as the leader of a new process group.
pub(super) fn own_group(command: &mut Command) {
    #[cfg(unix)]
    {
        use std::os::unix::process::CommandExt;
        command.process_group(0);
    }
    #[cfg(not(unix))]
    let _ = command;
}

/// Waits for the program, killing it (and what it left behind) at the deadline; `None` when it
/// was killed at the time limit.
pub(super) fn wait_or_kill(child: &mut Child, limit: Duration) -> io::Result<Option<ExitStatus>> {
    let started = Instant::now();
    loop {
        let ended = match ended_unreaped(child) {
            Ok(ended) => ended,
            Err(error) => {
                end_group(child);
                let _ = child.wait();
                return Err(error);
            }
        };
        let late = started.elapsed() >= limit;
        if ended || late {
            // Off Linux the program was reaped to learn that it ended, so its group's id may
            // already be another's: there only a program still running is killed, with its group.
            if late || cfg!(target_os = "linux") {
                end_group(child);
            }
            let status = child.wait()?;
            sweep();
            return Ok((!late || ended).then_some(status));
        }
        thread::sleep(Duration::from_millis(5));
    }
}

/// Whether the program has ended, without reaping it: while it is an unreaped zombie its pid,
/// and so its process group's id, cannot be taken by another process.
#[cfg(target_os = "linux")]
fn ended_unreaped(child: &mut Child) -> io::Result<bool> {
    let pid = child.id() as libc::id_t;
    // SAFETY: an all-zero siginfo_t is valid, and waitid writes only into it.
    let mut info: libc::siginfo_t = unsafe { std::mem::zeroed() };
    let flags = libc::WEXITED | libc::WNOHANG | libc::WNOWAIT;
    // SAFETY: `info` is a valid siginfo_t for waitid to fill.
    if unsafe { libc::waitid(libc::P_PID, pid, &mut info, flags) } == -1 {
        let error = io::Error::last_os_error();
        return if error.kind() == io::ErrorKind::Interrupted { Ok(false) } else { Err(error) };
    }
    // SAFETY: waitid succeeded, so si_pid is set: the pid when it ended, 0 when it runs on.
    Ok(unsafe { info.si_pid() } != 0)
}

/// Whether the program has ended; off Linux this reaps it.
#[cfg(not(target_os = "linux"))]
fn ended_unreaped(child: &mut Child) -> io::Result<bool> {
    Ok(child.try_wait()?.is_some())
}

/// Kills the program's whole process group (the program too, if it still runs).
fn end_group(child: &mut Child) {
    #[cfg(unix)]
    {
        let group = child.id() as libc::pid_t;
        // SAFETY: kill takes plain integers. The group's id is the program's pid, still ours
        // (alive or an unreaped zombie). ESRCH (the group is already empty) is fine.
        unsafe { libc::kill(-group, libc::SIGKILL) };
    }
    let _ = child.kill();
}

/// One process of `/proc`: its pid, its parent, whether it is a zombie.
#[cfg(target_os = "linux")]
#[derive(Clone, Copy)]
struct Process {
    pid: libc::pid_t,
    parent: libc::pid_t,
    zombie: bool,
}

/// Every process below `root` in the process tree.
#[cfg(target_os = "linux")]
fn descendants(root: libc::pid_t) -> Vec<Process> {
    let Ok(entries) = std::fs::read_dir("/proc") else { return Vec::new() };
    let all: Vec<Process> = entries
        .filter_map(|entry| {
            let pid: libc::pid_t = entry.ok()?.file_name().to_str()?.parse().ok()?;
            let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
            // `pid (name) state ppid ...`; the name may hold anything, so it ends at the last ')'.
            let mut fields = stat.rsplit_once(')')?.1.split_whitespace();
            let zombie = fields.next()? == "Z";
            let parent = fields.next()?.parse().ok()?;
            Some(Process { pid, parent, zombie })
        })
        .collect();
    let mut found = Vec::new();
    let mut parents = vec![root];
    while let Some(parent) = parents.pop() {
        for process in all.iter().filter(|process| process.parent == parent) {
            parents.push(process.pid);
            found.push(*process);
        }
    }
    found
}

/// Once adopting ([`adopt_orphans`]): kills every process below this one and reaps those
/// re-parented to it, until none is left (or two seconds, for one stuck in the kernel).
fn sweep() {
    #[cfg(target_os = "linux")]
    {
        if !ADOPTING.load(Ordering::SeqCst) {
            return;
        }
        let me = std::process::id() as libc::pid_t;
        let deadline = Instant::now() + Duration::from_secs(2);
        loop {
            let left = descendants(me);
            if left.is_empty() || Instant::now() >= deadline {
                return;
            }
            for process in left {
                if !process.zombie {
                    // SAFETY: kill takes plain integers; the process is below us, so ours to end.
                    unsafe { libc::kill(process.pid, libc::SIGKILL) };
                }
                if process.parent == me {
                    // SAFETY: a null status pointer is allowed; WNOHANG never blocks.
                    unsafe { libc::waitpid(process.pid, std::ptr::null_mut(), libc::WNOHANG) };
                }
            }
            thread::sleep(Duration::from_millis(2));
        }
    }
}
