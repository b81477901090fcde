//! The tokio side: tasks that move frames between transports and the core.
//!
//! One task owns the [`Relay`] and is the only one to touch it: it takes inputs from a
//! channel, carries out the outputs and sleeps until the core's next deadline. Each listener
//! has an accept task; each connection a reader task (frames into the channel) and a writer
//! task (frames from the connection's bounded queue onto the transport).
//!
//! With storage, the core's changes go through a [`Gate`] to the storage thread
//! ([`Committer`]) in batches, and every output waits until the changes before it are
//! committed. The core keeps handling input while a batch commits. A failed commit stops the
//! relay at once: what could not be committed is never sent.

use std::collections::HashMap;
use std::sync::Arc;
use std::time::Duration;

use tokio::sync::{mpsc, oneshot};
use tokio::task::AbortHandle;
use tokio::time::Instant;
use xq_session::Timestamp;
use xq_store::StoreError;
use xq_transport::{Connection, Listener, TransportError};

use crate::admission::Admission;
use crate::committer::Committer;
use crate::gate::Gate;
use crate::metrics::{LatencyHistogram, ServerMetrics};
use crate::{ConnId, Output, Relay};

/// Inputs waiting for the core, beyond which readers wait (back-pressure on the transports).
const INPUT_QUEUE: usize = 4096;
/// How many inputs the core takes at once before it looks at its timer again.
const INPUT_BATCH: usize = 64;
/// How long shutdown waits for connections to deliver their last frames and close.
const CLOSE_WAIT: Duration = Duration::from_secs(3);
/// How long an accept task rests after a failed accept, so a broken listener cannot spin.
const ACCEPT_BACKOFF: Duration = Duration::from_millis(50);

/// Something that happened on the IO side, for the core.
enum Input {
    Accepted {
        conn: Arc<dyn Connection>,
        transport: Arc<str>,
    },
    Frame(ConnId, Vec<u8>),
    Ended(ConnId),
}

/// The core's task: the relay, its clock, and a queue to each connection's writer.
pub(crate) struct Driver {
    relay: Relay,
    origin: Instant,
    listeners: Vec<Arc<dyn Listener>>,
    /// The accept tasks, stopped first at shutdown.
    acceptors: Vec<AbortHandle>,
    inputs: mpsc::Receiver<Input>,
    inputs_tx: mpsc::Sender<Input>,
    /// Each live connection's outgoing queue; dropping one makes its writer close it.
    writers: HashMap<ConnId, mpsc::Sender<Vec<u8>>>,
    /// A clone lives in every writer task: once all are dropped, every connection is closed.
    writers_alive: mpsc::Sender<()>,
    writers_done: mpsc::Receiver<()>,
    queue_frames: usize,
    next_id: u64,
    /// The storage thread; `None` runs the relay without storage, skipping its changes.
    committer: Option<Committer>,
    /// The outputs waiting for commits (unused without storage).
    gate: Gate,
    /// The connection caps.
    admission: Admission,
    /// Requests for [`ServerMetrics`].
    metrics: mpsc::Receiver<oneshot::Sender<ServerMetrics>>,
    refused_connections: u64,
    slow_consumers: u64,
    commits: LatencyHistogram,
}

/// What a [`Driver`] is built with, besides the core.
pub(crate) struct DriverSettings {
    pub(crate) listeners: Vec<(Arc<dyn Listener>, Arc<str>)>,
    pub(crate) queue_frames: usize,
    pub(crate) committer: Option<Committer>,
    pub(crate) admission: Admission,
    pub(crate) metrics: mpsc::Receiver<oneshot::Sender<ServerMetrics>>,
}

impl Driver {
    /// Starts accepting on every listener; the caller then runs [`Driver::run`]. The core's
    /// clock counts from `origin`.
    pub(crate) fn new(relay: Relay, origin: Instant, settings: DriverSettings) -> Self {
        let DriverSettings {
            listeners,
            queue_frames,
            committer,
            admission,
            metrics,
        } = settings;
        let (inputs_tx, inputs) = mpsc::channel(INPUT_QUEUE);
        let (writers_alive, writers_done) = mpsc::channel(1);
        let acceptors = listeners
            .iter()
            .map(|(listener, transport)| {
                let task = accept(
                    Arc::clone(listener),
                    Arc::clone(transport),
                    inputs_tx.clone(),
                );
                tokio::spawn(task).abort_handle()
            })
            .collect();
        Self {
            relay,
            origin,
            listeners: listeners
                .into_iter()
                .map(|(listener, _)| listener)
                .collect(),
            acceptors,
            inputs,
            inputs_tx,
            writers: HashMap::new(),
            writers_alive,
            writers_done,
            queue_frames: queue_frames.max(1),
            next_id: 0,
            committer,
            gate: Gate::default(),
            admission,
            metrics,
            refused_connections: 0,
            slow_consumers: 0,
            commits: LatencyHistogram::default(),
        }
    }

    /// Serves until `stop` fires (or its sender is dropped), then shuts down gracefully.
    ///
    /// # Errors
    ///
    /// The storage failed: the relay stopped serving at once, without sending anything that
    /// waited for the failed commit.
    pub(crate) async fn run(mut self, mut stop: oneshot::Receiver<()>) -> Result<(), StoreError> {
        // What the core did before serving (restoring rooms) is committed like the rest.
        self.flush();
        loop {
            self.submit();
            let deadline = self.relay.poll_timeout().map(|at| self.instant(at));
            let in_flight = self.gate.is_in_flight();
            tokio::select! {
                biased;
                _ = &mut stop => break,
                result = commit_done(&mut self.committer), if in_flight => match result {
                    Ok(elapsed) => {
                        self.commits.record(elapsed);
                        self.committed();
                    }
                    Err(err) => return Err(self.fail(err)),
                },
                Some(reply) = self.metrics.recv() => {
                    // A scraper that gave up waiting needs no answer.
                    let _ = reply.send(self.metrics());
                }
                input = self.inputs.recv() => {
                    // The driver holds a sender itself, so the channel never ends.
                    let Some(input) = input else { break };
                    self.handle(input);
                    for _ in 1..INPUT_BATCH {
                        match self.inputs.try_recv() {
                            Ok(input) => self.handle(input),
                            Err(_) => break,
                        }
                    }
                }
                () = sleep_until(deadline) => {
                    let now = self.now();
                    self.relay.handle_timeout(now);
                    self.flush();
                }
            }
        }
        self.shutdown().await
    }

    fn handle(&mut self, input: Input) {
        let now = self.now();
        match input {
            Input::Accepted { conn, transport } => {
                let id = ConnId(self.next_id);
                self.next_id += 1;
                tracing::debug!(conn = %id, peer = %conn.peer(), %transport, "accepted");
                let (tx, rx) = mpsc::channel(self.queue_frames);
                self.writers.insert(id, tx);
                tokio::spawn(write(Arc::clone(&conn), rx, self.writers_alive.clone()));
                match self.admission.admit(id, &conn.peer()) {
                    Ok(()) => {
                        tokio::spawn(read(id, conn, self.inputs_tx.clone()));
                        self.relay.handle_connect(now, id, &transport);
                    }
                    Err(why) => {
                        tracing::info!(conn = %id, peer = %conn.peer(), why, "refused");
                        self.refused_connections += 1;
                        self.relay.refuse_connect(id, why);
                    }
                }
            }
            Input::Frame(id, frame) => self.relay.handle_frame(now, id, &frame),
            Input::Ended(id) => {
                // A connection the core closed itself is already forgotten.
                if self.let_go(id) {
                    self.relay.handle_disconnect(now, id);
                }
            }
        }
        self.flush();
    }

    /// Takes the core's outputs, in order: changes go to the next batch, and the rest is
    /// carried out now or waits for the changes before it.
    fn flush(&mut self) {
        while let Some(output) = self.relay.poll_output() {
            let ready = match (&self.committer, output) {
                (Some(_), output) => self.gate.push(output),
                // No storage is configured: there is nothing to commit before the sends.
                (None, Output::Persist(_)) => None,
                (None, output) => Some(output),
            };
            if let Some(output) = ready {
                self.carry_out(output);
            }
        }
    }

    /// Hands the next batch of changes to the storage thread, if it is free.
    fn submit(&mut self) {
        if let Some(committer) = &self.committer
            && let Some(batch) = self.gate.next_batch()
        {
            committer.submit(batch);
        }
    }

    /// The batch in flight is committed: the outputs that waited for it go out.
    fn committed(&mut self) {
        self.gate.committed();
        while let Some(output) = self.gate.pop_released() {
            self.carry_out(output);
        }
        // Carrying them out may have cut off a slow connection, which the core answers.
        self.flush();
    }

    /// Sends a frame or closes a connection.
    fn carry_out(&mut self, output: Output) {
        match output {
            Output::Send { to, frame } => {
                let Some(writer) = self.writers.get(&to) else {
                    return;
                };
                if let Err(mpsc::error::TrySendError::Full(_)) = writer.try_send(frame) {
                    // A client that does not read its frames would hold them here forever: it
                    // is cut off, and the rest of the relay goes on. The core's answer is
                    // taken by the next flush.
                    tracing::warn!(conn = %to, "outgoing queue full: disconnecting");
                    self.slow_consumers += 1;
                    self.let_go(to);
                    let now = self.now();
                    self.relay.handle_disconnect(now, to);
                }
            }
            Output::Close { conn, reason } => {
                tracing::debug!(%conn, ?reason, "closing");
                self.let_go(conn);
            }
            // Changes never get here: `flush` gives them to the gate or skips them.
            Output::Persist(_) => {}
        }
    }

    /// Drops `conn`'s queue (its writer then closes it after the frames already queued) and
    /// frees its place under the caps; `false` if it was let go already.
    fn let_go(&mut self, conn: ConnId) -> bool {
        self.admission.release(conn);
        self.writers.remove(&conn).is_some()
    }

    /// The relay's counters and the driver's.
    fn metrics(&self) -> ServerMetrics {
        ServerMetrics {
            relay: self.relay.metrics(),
            refused_connections: self.refused_connections,
            slow_consumers: self.slow_consumers,
            commits: self.commits.clone(),
        }
    }

    /// Stops serving at once after a failed commit: no more accepting, nothing more sent.
    /// Connections close as their writers end; clients resume on a restarted relay.
    fn fail(self, err: StoreError) -> StoreError {
        tracing::error!(%err, "storage failed: the relay stops rather than send what it could not commit");
        for acceptor in &self.acceptors {
            acceptor.abort();
        }
        for listener in &self.listeners {
            listener.close();
        }
        err
    }

    /// Stops accepting, says goodbye to every client, waits (a little) for the goodbyes to be
    /// delivered, and closes the listeners.
    ///
    /// The clocks paused by the shutdown are committed before the goodbyes go out; if that
    /// fails, the goodbyes are not sent and the error is returned.
    async fn shutdown(mut self) -> Result<(), StoreError> {
        for acceptor in &self.acceptors {
            acceptor.abort();
        }
        let now = self.now();
        self.relay.shutdown(now);
        self.flush();
        loop {
            self.submit();
            if !self.gate.is_in_flight() {
                break;
            }
            match commit_done(&mut self.committer).await {
                Ok(elapsed) => self.commits.record(elapsed),
                Err(err) => return Err(self.fail(err)),
            }
            self.committed();
        }
        self.writers.clear();
        drop(self.writers_alive);
        let closed = tokio::time::timeout(CLOSE_WAIT, self.writers_done.recv()).await;
        if closed.is_err() {
            tracing::warn!("some connections did not close in time");
        }
        // Only now: closing a listener may close its connections too (UDP's does), which
        // would cut the goodbyes short.
        for listener in &self.listeners {
            listener.close();
        }
        tracing::info!("relay stopped");
        Ok(())
    }

    fn now(&self) -> Timestamp {
        let millis = self.origin.elapsed().as_millis();
        Timestamp::from_millis(u64::try_from(millis).unwrap_or(u64::MAX))
    }

    fn instant(&self, at: Timestamp) -> Instant {
        self.origin + Duration::from_millis(at.as_millis())
    }
}

/// Waits for the storage thread's verdict on the batch in flight (forever without storage,
/// where no batch is ever in flight).
async fn commit_done(committer: &mut Option<Committer>) -> Result<Duration, StoreError> {
    match committer {
        Some(committer) => committer.done().await,
        None => std::future::pending().await,
    }
}

/// Sleeps until `deadline`, or forever without one.
async fn sleep_until(deadline: Option<Instant>) {
    match deadline {
        Some(deadline) => tokio::time::sleep_until(deadline).await,
        None => std::future::pending().await,
    }
}

/// Accepts connections until the listener closes.
async fn accept(listener: Arc<dyn Listener>, transport: Arc<str>, inputs: mpsc::Sender<Input>) {
    loop {
        match listener.accept().await {
            Ok(conn) => {
                let transport = Arc::clone(&transport);
                if inputs
                    .send(Input::Accepted { conn, transport })
                    .await
                    .is_err()
                {
                    return;
                }
            }
            Err(TransportError::ListenerClosed) => return,
            Err(err) => {
                tracing::debug!(%transport, %err, "accept failed");
                tokio::time::sleep(ACCEPT_BACKOFF).await;
            }
        }
    }
}

/// Feeds a connection's frames to the core until it ends.
async fn read(id: ConnId, conn: Arc<dyn Connection>, inputs: mpsc::Sender<Input>) {
    loop {
        match conn.recv().await {
            Ok(frame) => {
                if inputs.send(Input::Frame(id, frame)).await.is_err() {
                    return;
                }
            }
            Err(err) => {
                tracing::debug!(conn = %id, %err, "connection ended");
                // The core may be gone already (shutting down); then nobody needs to know.
                let _ = inputs.send(Input::Ended(id)).await;
                return;
            }
        }
    }
}

/// Sends a connection's queued frames in order; when the core drops the queue, delivers what
/// is left and closes the connection gracefully.
async fn write(
    conn: Arc<dyn Connection>,
    mut frames: mpsc::Receiver<Vec<u8>>,
    _alive: mpsc::Sender<()>,
) {
    while let Some(frame) = frames.recv().await {
        if let Err(err) = conn.send(frame).await {
            tracing::debug!(peer = %conn.peer(), %err, "send failed");
            break;
        }
    }
    conn.close().await;
}

/// The label a listener's connections carry in the logs: its URL's scheme.
pub(crate) fn transport_label(url: &str) -> Arc<str> {
    Arc::from(url.split_once("://").map_or("?", |(scheme, _)| scheme))
}
