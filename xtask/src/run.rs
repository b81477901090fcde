//! Running the tools a task needs, and saying what failed.

use std::process::{Command, Stdio};

/// Why a task stopped, for the person who ran it.
#[derive(Debug)]
pub(crate) struct Failure(pub(crate) String);

/// The cargo that runs this task (`CARGO`), or `cargo` on `PATH`.
pub(crate) fn cargo() -> Command {
    Command::new(std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into()))
}

/// Runs `command` to its end, echoing it; fails unless it succeeds.
pub(crate) fn status(command: &mut Command) -> Result<(), Failure> {
    eprintln!("xtask: running {command:?}");
    let status = command
        .status()
        .map_err(|error| Failure(format!("cannot run {command:?}: {error}")))?;
    if status.success() {
        Ok(())
    } else {
        Err(Failure(format!("{command:?} failed: {status}")))
    }
}

/// What `command` prints, as text, if it runs and succeeds.
pub(crate) fn output(command: &mut Command) -> Option<String> {
    bytes(command).map(|bytes| String::from_utf8_lossy(&bytes).into_owned())
}

/// What `command` prints, if it runs and succeeds.
pub(crate) fn bytes(command: &mut Command) -> Option<Vec<u8>> {
    let output = command.stderr(Stdio::null()).output().ok()?;
    output.status.success().then_some(output.stdout)
}

/// Whether `program` is on `PATH`.
pub(crate) fn on_path(program: &str) -> bool {
    std::env::var_os("PATH")
        .is_some_and(|path| std::env::split_paths(&path).any(|dir| dir.join(program).is_file()))
}
