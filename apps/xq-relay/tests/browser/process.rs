//! Child processes that cannot outlive the test: each runs in a process group of its own, and
//! the whole group is killed when its guard is dropped, on every path out of the test, a panic
//! or a timeout included. chromedriver's browsers are in its group, so they go with it.

use std::process::Stdio;
use std::time::Duration;

use tokio::io::{AsyncBufReadExt, BufReader, Lines};
use tokio::process::{Child, ChildStdout, Command};

/// A running child process, its group killed on drop.
pub(crate) struct Guarded {
    /// What it is, for messages.
    name: &'static str,
    child: Child,
    /// Its standard output, line by line, kept open so the child never writes into a closed
    /// pipe.
    stdout: Lines<BufReader<ChildStdout>>,
}

impl Guarded {
    /// Starts `command` as `name` in a new process group, its standard output piped.
    ///
    /// # Panics
    ///
    /// When it cannot be started, with `hint` (what to install, what to build) in the message.
    pub(crate) fn spawn(name: &'static str, mut command: Command, hint: &str) -> Self {
        command
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .process_group(0)
            .kill_on_drop(true);
        let mut child = command
            .spawn()
            .unwrap_or_else(|err| panic!("cannot start {name}: {err} ({hint})"));
        let stdout = child
            .stdout
            .take()
            .unwrap_or_else(|| panic!("{name}'s standard output is piped"));
        Self {
            name,
            child,
            stdout: BufReader::new(stdout).lines(),
        }
    }

    /// The first line of standard output that `pick` makes something of, within `limit`.
    ///
    /// # Panics
    ///
    /// When the child closes its output (exits) first, or `limit` passes: the message has the
    /// lines it printed.
    pub(crate) async fn read_until<T>(
        &mut self,
        what: &str,
        limit: Duration,
        mut pick: impl FnMut(&str) -> Option<T>,
    ) -> T {
        let name = self.name;
        let mut seen = Vec::new();
        let found = tokio::time::timeout(limit, async {
            while let Some(line) = self
                .stdout
                .next_line()
                .await
                .unwrap_or_else(|err| panic!("cannot read {name}'s output: {err}"))
            {
                match pick(&line) {
                    Some(value) => return Some(value),
                    None => seen.push(line),
                }
            }
            None
        })
        .await;
        match found {
            Ok(Some(value)) => value,
            Ok(None) => panic!("{name} exited before printing {what}; it printed {seen:?}"),
            Err(_) => panic!("waited {limit:?} for {name} to print {what}; it printed {seen:?}"),
        }
    }

    /// Sends SIGTERM and waits at most `limit` for the child to exit; whether it exited
    /// successfully.
    ///
    /// # Panics
    ///
    /// When the signal cannot be sent or the child outlives `limit`.
    pub(crate) async fn terminate(&mut self, limit: Duration) -> bool {
        let pid = self
            .child
            .id()
            .unwrap_or_else(|| panic!("{} already exited", self.name));
        let sent = std::process::Command::new("kill")
            .args(["-TERM", &pid.to_string()])
            .status()
            .unwrap_or_else(|err| panic!("cannot run kill: {err}"));
        assert!(sent.success(), "kill -TERM {pid} ({}) failed", self.name);
        let status = tokio::time::timeout(limit, self.child.wait())
            .await
            .unwrap_or_else(|_| panic!("{} still runs {limit:?} after SIGTERM", self.name))
            .unwrap_or_else(|err| panic!("cannot wait for {}: {err}", self.name));
        status.success()
    }
}

impl Drop for Guarded {
    fn drop(&mut self) {
        // `id` is `None` once the child has been waited for: its group is gone then, and the
        // number may be someone else's.
        if let Some(pid) = self.child.id() {
            // The group's id is the leader's pid (`process_group(0)`); `kill -- -PGID` reaches
            // every process in it, the browsers chromedriver started included.
            let _ = std::process::Command::new("kill")
                .args(["-KILL", "--", &format!("-{pid}")])
                .stderr(Stdio::null())
                .status();
            let _ = self.child.start_kill();
        }
    }
}
