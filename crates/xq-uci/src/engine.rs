//! The driver over a child process, on tokio.

use std::io;
use std::process::Stdio;
use std::time::Duration;

use tokio::io::{AsyncBufRead, AsyncBufReadExt, AsyncWriteExt, BufReader};
use tokio::process::{Child, ChildStdin, ChildStdout};
use tokio::time::Instant;
use xq_rules::{Move, Position};

use crate::{
    CoreEvent, Dialect, DriverError, DriverOptions, EngineCommand, EngineCore, Go, OptionDecl,
    Reply,
};

/// A line longer than this is cut there: an engine that prints without end cannot make the
/// driver hold it all.
const MAX_LINE: usize = 1 << 20;

/// An external UCI engine in a child process, driven by an [`EngineCore`].
///
/// The engine's standard error goes to `tracing` at debug level, read as it comes so that a
/// full pipe never blocks the engine. Dropping an `Engine` kills the process.
///
/// # Examples
///
/// ```no_run
/// # async fn play() -> Result<(), Box<dyn std::error::Error>> {
/// use std::time::Duration;
/// use xq_rules::Position;
/// use xq_uci::{DriverOptions, Engine, Go};
///
/// let command = "/usr/games/fairy-stockfish".parse()?;
/// let mut engine = Engine::spawn(&command, DriverOptions::default()).await?;
/// engine.new_game().await?;
/// let go = Go { depth: Some(6), ..Go::default() };
/// let reply = engine.go(&Position::startpos(), &[], &go, Duration::from_secs(5)).await?;
/// println!("{} plays {}", engine.name(), reply.best);
/// engine.quit().await?;
/// # Ok(())
/// # }
/// ```
#[derive(Debug)]
pub struct Engine {
    core: EngineCore,
    child: Child,
    stdin: ChildStdin,
    stdout: LineReader<BufReader<ChildStdout>>,
    /// The core's time origin.
    origin: Instant,
    program: String,
    grace: Duration,
}

impl Engine {
    /// Starts the engine and does the handshake: `uci` … `uciok`, the dialect (see
    /// [`DriverOptions::dialect`]), the options, then `isready` … `readyok`.
    ///
    /// # Errors
    ///
    /// [`DriverError::Spawn`] if the program does not start; [`DriverError::Hung`] if it does
    /// not answer within [`DriverOptions::handshake_timeout`] (it is killed);
    /// [`DriverError::Exited`] if it exits; [`DriverError::NoXiangqi`] for an engine of other
    /// games.
    pub async fn spawn(
        command: &EngineCommand,
        options: DriverOptions,
    ) -> Result<Self, DriverError> {
        let program = command.program.display().to_string();
        let mut child = tokio::process::Command::new(&command.program)
            .args(&command.args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .kill_on_drop(true)
            .spawn()
            .map_err(|source| DriverError::Spawn {
                program: program.clone(),
                source,
            })?;
        let missing = || io::Error::other("a standard stream of the engine is not piped");
        let stdin = child.stdin.take().ok_or_else(missing)?;
        let stdout = child.stdout.take().ok_or_else(missing)?;
        let stderr = child.stderr.take().ok_or_else(missing)?;
        tokio::spawn(forward_stderr(
            LineReader::new(BufReader::new(stderr)),
            program.clone(),
        ));
        let grace = options.grace;
        let mut engine = Self {
            core: EngineCore::new(Duration::ZERO, options),
            child,
            stdin,
            stdout: LineReader::new(BufReader::new(stdout)),
            origin: Instant::now(),
            program,
            grace,
        };
        while !matches!(engine.run().await?, CoreEvent::Ready) {}
        Ok(engine)
    }

    /// The engine's `id name`, or the program if it gave none.
    #[must_use]
    pub fn name(&self) -> &str {
        self.core.name().unwrap_or(&self.program)
    }

    /// The engine's `id author`.
    #[must_use]
    pub fn author(&self) -> Option<&str> {
        self.core.author()
    }

    /// The dialect the engine speaks.
    #[must_use]
    pub const fn dialect(&self) -> Dialect {
        self.core.dialect()
    }

    /// The options the engine declared.
    #[must_use]
    pub fn declared(&self) -> &[OptionDecl] {
        self.core.declared()
    }

    /// Tells the engine a new game starts (`ucinewgame`) and waits for `readyok`.
    ///
    /// # Errors
    ///
    /// As for [`Engine::go`], less the move's.
    pub async fn new_game(&mut self) -> Result<(), DriverError> {
        self.core.new_game(self.now())?;
        while !matches!(self.run().await?, CoreEvent::Ready) {}
        Ok(())
    }

    /// Searches the position reached from `start` by `moves` and returns the engine's move,
    /// checked to be legal. After `deadline` the engine is told to `stop`; if it has not
    /// answered [`DriverOptions::grace`] later, it is killed.
    ///
    /// # Errors
    ///
    /// [`DriverError::IllegalMove`] if the engine's move is not legal (logged; the engine
    /// forfeits but keeps running), [`DriverError::Hung`], [`DriverError::Exited`],
    /// [`DriverError::Closed`] after one of those, and the request's own errors
    /// ([`DriverError::BadHistory`], [`DriverError::NoLegalMoves`]).
    pub async fn go(
        &mut self,
        start: &Position,
        moves: &[Move],
        go: &Go,
        deadline: Duration,
    ) -> Result<Reply, DriverError> {
        self.core.go(self.now(), start, moves, go, deadline)?;
        loop {
            if let CoreEvent::BestMove(reply) = self.run().await? {
                return Ok(reply);
            }
        }
    }

    /// Tells the engine to `quit` and waits up to [`DriverOptions::grace`] for it to exit,
    /// then kills it.
    ///
    /// # Errors
    ///
    /// [`DriverError::Io`] if the process could not be killed.
    pub async fn quit(mut self) -> Result<(), DriverError> {
        self.core.quit();
        // An engine that is already gone cannot read it; it is reaped below all the same.
        let _ = self.flush().await;
        self.reap().await;
        Ok(())
    }

    /// Runs the core until its next event; a hung engine is killed.
    async fn run(&mut self) -> Result<CoreEvent, DriverError> {
        loop {
            if self.flush().await.is_err() {
                // A broken pipe: the engine is gone.
                let status = self.reap().await;
                self.core.handle_exit(status);
            }
            match self.core.poll_event() {
                Some(CoreEvent::Failed(err)) => {
                    if matches!(err, DriverError::Hung { .. }) {
                        self.kill().await;
                    }
                    return Err(err);
                }
                Some(event) => return Ok(event),
                None => {}
            }
            let read = self.stdout.next_line();
            let line = match self.core.poll_timeout() {
                Some(at) => match tokio::time::timeout_at(self.origin + at, read).await {
                    Ok(line) => line,
                    Err(_elapsed) => {
                        self.core.handle_timeout(self.now());
                        continue;
                    }
                },
                None => read.await,
            };
            match line {
                Ok(Some(line)) => self.core.handle_line(self.now(), &line),
                Ok(None) | Err(_) => {
                    let status = self.reap().await;
                    self.core.handle_exit(status);
                }
            }
        }
    }

    /// Writes every line the core has for the engine.
    async fn flush(&mut self) -> io::Result<()> {
        let mut written = false;
        while let Some(mut line) = self.core.poll_transmit() {
            line.push('\n');
            self.stdin.write_all(line.as_bytes()).await?;
            written = true;
        }
        if written {
            self.stdin.flush().await?;
        }
        Ok(())
    }

    /// Waits a grace period for the process to exit, then kills it; its exit code, if it
    /// exited with one.
    async fn reap(&mut self) -> Option<i32> {
        match tokio::time::timeout(self.grace, self.child.wait()).await {
            Ok(Ok(status)) => status.code(),
            Ok(Err(_)) | Err(_) => {
                self.kill().await;
                None
            }
        }
    }

    async fn kill(&mut self) {
        if let Err(err) = self.child.kill().await {
            tracing::warn!(engine = %self.program, "cannot kill the engine: {err}");
        }
    }

    fn now(&self) -> Duration {
        self.origin.elapsed()
    }
}

/// Lines from a byte stream, lossily decoded: engines print junk, and junk is no reason to
/// stop reading. [`LineReader::next_line`] is cancel-safe: a partial line stays in the
/// buffer for the next call.
#[derive(Debug)]
struct LineReader<R> {
    reader: R,
    line: Vec<u8>,
}

impl<R: AsyncBufRead + Unpin> LineReader<R> {
    const fn new(reader: R) -> Self {
        Self {
            reader,
            line: Vec::new(),
        }
    }

    /// The next line without its ending, or `None` at the end of the stream.
    async fn next_line(&mut self) -> io::Result<Option<String>> {
        loop {
            let chunk = self.reader.fill_buf().await?;
            if chunk.is_empty() {
                return Ok((!self.line.is_empty()).then(|| self.take()));
            }
            let (used, done) = match chunk.iter().position(|&b| b == b'\n') {
                Some(end) => {
                    self.line.extend_from_slice(&chunk[..end]);
                    (end + 1, true)
                }
                None => {
                    self.line.extend_from_slice(chunk);
                    (chunk.len(), self.line.len() >= MAX_LINE)
                }
            };
            self.reader.consume(used);
            if done {
                return Ok(Some(self.take()));
            }
        }
    }

    fn take(&mut self) -> String {
        let line = String::from_utf8_lossy(&self.line).into_owned();
        self.line.clear();
        line
    }
}

async fn forward_stderr<R: AsyncBufRead + Unpin>(mut lines: LineReader<R>, program: String) {
    while let Ok(Some(line)) = lines.next_line().await {
        tracing::debug!(engine = %program, "stderr: {line}");
    }
}
