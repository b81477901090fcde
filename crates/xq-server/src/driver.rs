//! The tokio side: tasks that move frames between transports and the core.
//!
//! One task owns the [`Relay`] and is the only one to touch it: it takes inputs from a
//! channel, carries out the outputs and sleeps until the core's next deadline. Each listener
//! has an accept task; each connection a reader task (frames into the channel) and a writer
//! task (frames from the connection's bounded queue onto the transport).

use std::collections::HashMap;
use std::sync::Arc;
use std::time::Duration;

use tokio::sync::{mpsc, oneshot};
use tokio::task::AbortHandle;
use tokio::time::Instant;
use xq_session::Timestamp;
use xq_transport::{Connection, Listener, TransportError};

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
}

impl Driver {
    /// Starts accepting on every listener; the caller then runs [`Driver::run`].
    pub(crate) fn new(
        relay: Relay,
        listeners: Vec<(Arc<dyn Listener>, Arc<str>)>,
        queue_frames: usize,
    ) -> Self {
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
            origin: Instant::now(),
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
        }
    }

    /// Serves until `stop` fires (or its sender is dropped), then shuts down gracefully.
    pub(crate) async fn run(mut self, mut stop: oneshot::Receiver<()>) {
        loop {
            let deadline = self.relay.poll_timeout().map(|at| self.instant(at));
            tokio::select! {
                biased;
                _ = &mut stop => break,
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
        self.shutdown().await;
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
                tokio::spawn(read(id, conn, self.inputs_tx.clone()));
                self.relay.handle_connect(now, id, &transport);
            }
            Input::Frame(id, frame) => self.relay.handle_frame(now, id, &frame),
            Input::Ended(id) => {
                // A connection the core closed itself is already forgotten.
                if self.writers.remove(&id).is_some() {
                    self.relay.handle_disconnect(now, id);
                }
            }
        }
        self.flush();
    }

    /// Carries out the core's outputs, in order.
    fn flush(&mut self) {
        while let Some(output) = self.relay.poll_output() {
            match output {
                Output::Send { to, frame } => {
                    let Some(writer) = self.writers.get(&to) else {
                        continue;
                    };
                    if let Err(mpsc::error::TrySendError::Full(_)) = writer.try_send(frame) {
                        // A client that does not read its frames would hold them here
                        // forever: it is cut off, and the rest of the relay goes on.
                        tracing::warn!(conn = %to, "outgoing queue full: disconnecting");
                        self.writers.remove(&to);
                        let now = self.now();
                        self.relay.handle_disconnect(now, to);
                    }
                }
                Output::Close { conn, reason } => {
                    tracing::debug!(%conn, ?reason, "closing");
                    self.writers.remove(&conn);
                }
                // No storage is configured: there is nothing to commit before the sends.
                Output::Persist(_) => {}
            }
        }
    }

    /// Stops accepting, says goodbye to every client, waits (a little) for the goodbyes to be
    /// delivered, and closes the listeners.
    async fn shutdown(mut self) {
        for acceptor in &self.acceptors {
            acceptor.abort();
        }
        let now = self.now();
        self.relay.shutdown(now);
        self.flush();
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
    }

    fn now(&self) -> Timestamp {
        let millis = self.origin.elapsed().as_millis();
        Timestamp::from_millis(u64::try_from(millis).unwrap_or(u64::MAX))
    }

    fn instant(&self, at: Timestamp) -> Instant {
        self.origin + Duration::from_millis(at.as_millis())
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
