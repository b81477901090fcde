//! The tokio side: the task that moves frames between transports and the core.
//!
//! One task owns the [`Relay`] and is the only one to touch it. It waits on every
//! connection's next frame at once, hands what arrives to the core, queues the core's frames
//! on the transports without waiting ([`Connection::try_send`]: a full buffer means a client
//! too slow to keep, never a stalled relay) and sleeps until the core's next deadline. Only
//! accepting (a task per listener) and closing (a task per connection being closed) happen
//! elsewhere. Past the transports' own drivers, no frame is handed from one task to another.
//!
//! With storage, the core's changes go through a [`Gate`] to the storage thread
//! ([`Committer`]) in batches, and every output waits until the changes before it are
//! committed. The core keeps handling input while a batch commits. A failed commit stops the
//! relay at once: what could not be committed is never sent.

use std::collections::HashMap;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::task::{Context, Poll};
use std::time::Duration;

use futures_util::FutureExt;
use futures_util::future::join_all;
use futures_util::stream::{FuturesUnordered, StreamExt};
use tokio::sync::{mpsc, oneshot};
use tokio::task::AbortHandle;
use tokio::time::Instant;
use xq_protocol::{Request, RoomCode};
use xq_session::Timestamp;
use xq_store::OpenRoom;
use xq_store::StoreError;
use xq_transport::{Connection, Listener, TransportError};

use crate::admission::Admission;
use crate::committer::{Commit, Committer};
use crate::gate::Gate;
use crate::metrics::{LatencyHistogram, ServerMetrics};
use crate::{ConnId, Directory, Located, Lookup, Output, Relay};

/// Accepted connections waiting for the core, beyond which the accept tasks wait.
const ACCEPT_QUEUE: usize = 64;
/// How many frames the core takes at once before it looks at its timer again.
const INPUT_BATCH: usize = 64;
/// How long shutdown waits for connections to deliver their last frames and close.
const CLOSE_WAIT: Duration = Duration::from_secs(3);
/// How long an accept task rests after a failed accept, so a broken listener cannot spin.
const ACCEPT_BACKOFF: Duration = Duration::from_millis(50);
/// How long a claim that could not reach the cluster waits before the core asks again.
const CLAIM_BACKOFF: Duration = Duration::from_millis(500);

/// Waits (a little) until every listener has let go of its socket; says whether they did.
async fn sockets_released(listeners: &[Arc<dyn Listener>]) -> bool {
    let released = join_all(listeners.iter().map(|listener| listener.closed()));
    tokio::time::timeout(CLOSE_WAIT, released).await.is_ok()
}

/// A connection a listener accepted, for the core.
struct Accepted {
    conn: Arc<dyn Connection>,
    transport: Arc<str>,
}

/// A connection's next frame, or why it has none; the connection comes back with it so that
/// the core can wait for the one after.
struct Read {
    id: ConnId,
    conn: Arc<dyn Connection>,
    frame: Result<Vec<u8>, TransportError>,
}

/// What the core waits on for each live connection: its next frame, polled straight from the
/// transport ([`Connection::poll_recv`]), so that an idle connection costs no boxed future.
struct NextFrame {
    id: ConnId,
    /// Taken when the frame is ready.
    conn: Option<Arc<dyn Connection>>,
}

impl NextFrame {
    fn new(id: ConnId, conn: Arc<dyn Connection>) -> Self {
        Self {
            id,
            conn: Some(conn),
        }
    }
}

impl Future for NextFrame {
    type Output = Read;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Read> {
        // `None` only once completed, after which FuturesUnordered never polls it again.
        let Some(conn) = self.conn.take() else {
            return Poll::Pending;
        };
        match conn.poll_recv(cx) {
            Poll::Ready(frame) => Poll::Ready(Read {
                id: self.id,
                conn,
                frame,
            }),
            Poll::Pending => {
                self.conn = Some(conn);
                Poll::Pending
            }
        }
    }
}

/// What the cluster answered a task the driver gave it.
enum Answer {
    Claimed(RoomCode, bool),
    Located {
        conn: ConnId,
        request: Request,
        located: Located,
    },
    /// A room nobody owned, taken over by the sweep.
    Adopted(Box<OpenRoom>),
}

/// The driver's link to its cluster, if it is in one.
struct Cluster {
    directory: Arc<dyn Directory>,
    /// The answers of the tasks given to the cluster.
    answers: mpsc::UnboundedReceiver<Answer>,
    answer: mpsc::UnboundedSender<Answer>,
    lost: mpsc::UnboundedReceiver<RoomCode>,
    sweep: tokio::time::Interval,
    /// Whether a sweep is still going: a slow cluster does not get a second one at once.
    sweeping: Arc<AtomicBool>,
}

impl Cluster {
    fn new(directory: Arc<dyn Directory>) -> Self {
        let (answer, answers) = mpsc::unbounded_channel();
        let lost = directory.lost_rooms();
        let mut sweep = tokio::time::interval(directory.sweep_interval());
        sweep.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        Self {
            directory,
            answers,
            answer,
            lost,
            sweep,
            sweeping: Arc::new(AtomicBool::new(false)),
        }
    }

    /// Has the cluster carry out `task` in the background; its answer comes back through
    /// [`Cluster::answers`].
    fn spawn<F>(&self, task: impl FnOnce(Arc<dyn Directory>) -> F)
    where
        F: Future<Output = Answer> + Send + 'static,
    {
        let answer = self.answer.clone();
        let task = task(Arc::clone(&self.directory));
        tokio::spawn(async move {
            // The driver is gone if this fails: nobody waits for the answer.
            let _ = answer.send(task.await);
        });
    }

    fn claim(&self, code: RoomCode) {
        self.spawn(move |directory| async move {
            let won = match directory.claim(code).await {
                Ok(won) => won,
                Err(err) => {
                    tracing::warn!(room = %code, %err, "cannot claim a room code");
                    tokio::time::sleep(CLAIM_BACKOFF).await;
                    false
                }
            };
            Answer::Claimed(code, won)
        });
    }

    fn locate(&self, conn: ConnId, request: Request, lookup: Lookup) {
        self.spawn(move |directory| async move {
            let located = directory.locate(lookup).await;
            Answer::Located {
                conn,
                request,
                located,
            }
        });
    }

    /// Takes over, one by one, the rooms that nobody owns, unless the last sweep is still
    /// at it.
    fn sweep(&self) {
        if self.sweeping.swap(true, Ordering::AcqRel) {
            return;
        }
        let answer = self.answer.clone();
        let directory = Arc::clone(&self.directory);
        let sweeping = Arc::clone(&self.sweeping);
        tokio::spawn(async move {
            match directory.orphans().await {
                Ok(orphans) => {
                    for code in orphans {
                        if let Located::Here(room) = directory.locate(Lookup::Room(code)).await {
                            tracing::info!(room = %code, "took over a room without an owner");
                            if answer.send(Answer::Adopted(room)).is_err() {
                                break;
                            }
                        }
                    }
                }
                Err(err) => tracing::warn!(%err, "cannot look for rooms without an owner"),
            }
            sweeping.store(false, Ordering::Release);
        });
    }
}

/// Something the cluster has for the core.
enum FromCluster {
    Answer(Answer),
    /// A room whose ownership this node lost.
    Lost(RoomCode),
    /// Time to look for rooms without an owner.
    Sweep,
}

/// Waits for what the cluster has next, forever without a cluster.
async fn from_cluster(cluster: &mut Option<Cluster>) -> FromCluster {
    let Some(cluster) = cluster else {
        return std::future::pending().await;
    };
    tokio::select! {
        // The driver holds a sender: answers never end.
        Some(answer) = cluster.answers.recv() => FromCluster::Answer(answer),
        Some(code) = cluster.lost.recv() => FromCluster::Lost(code),
        _ = cluster.sweep.tick() => FromCluster::Sweep,
    }
}

/// The core's task: the relay, its clock and its connections.
pub(crate) struct Driver {
    relay: Relay,
    origin: Instant,
    listeners: Vec<Arc<dyn Listener>>,
    /// The accept tasks, stopped first at shutdown.
    acceptors: Vec<AbortHandle>,
    accepted: mpsc::Receiver<Accepted>,
    /// Each live connection; dropping one from here (see [`Driver::let_go`]) closes it.
    conns: HashMap<ConnId, Arc<dyn Connection>>,
    /// Every live connection's next frame.
    reads: FuturesUnordered<NextFrame>,
    /// A clone lives in every closing task: once all are dropped, every connection is closed.
    closers_alive: mpsc::Sender<()>,
    closers_done: mpsc::Receiver<()>,
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
    cluster: Option<Cluster>,
}

/// What a [`Driver`] is built with, besides the core.
pub(crate) struct DriverSettings {
    pub(crate) listeners: Vec<(Arc<dyn Listener>, Arc<str>)>,
    pub(crate) committer: Option<Committer>,
    pub(crate) admission: Admission,
    pub(crate) metrics: mpsc::Receiver<oneshot::Sender<ServerMetrics>>,
    pub(crate) directory: Option<Arc<dyn Directory>>,
}

impl Driver {
    /// Starts accepting on every listener; the caller then runs [`Driver::run`]. The core's
    /// clock counts from `origin`.
    pub(crate) fn new(relay: Relay, origin: Instant, settings: DriverSettings) -> Self {
        let DriverSettings {
            listeners,
            committer,
            admission,
            metrics,
            directory,
        } = settings;
        let (accepted_tx, accepted) = mpsc::channel(ACCEPT_QUEUE);
        let (closers_alive, closers_done) = mpsc::channel(1);
        let acceptors = listeners
            .iter()
            .map(|(listener, transport)| {
                let task = accept(
                    Arc::clone(listener),
                    Arc::clone(transport),
                    accepted_tx.clone(),
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
            accepted,
            conns: HashMap::new(),
            reads: FuturesUnordered::new(),
            closers_alive,
            closers_done,
            next_id: 0,
            committer,
            gate: Gate::default(),
            admission,
            metrics,
            refused_connections: 0,
            slow_consumers: 0,
            commits: LatencyHistogram::default(),
            cluster: directory.map(Cluster::new),
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
        // One timer, moved only when the core's deadline moves: most inputs leave it be.
        let timer = tokio::time::sleep(Duration::ZERO);
        tokio::pin!(timer);
        let mut armed = None;
        loop {
            self.submit();
            let deadline = self.relay.poll_timeout().map(|at| self.instant(at));
            if deadline != armed {
                if let Some(deadline) = deadline {
                    timer.as_mut().reset(deadline);
                }
                armed = deadline;
            }
            let in_flight = self.gate.is_in_flight();
            tokio::select! {
                biased;
                _ = &mut stop => break,
                result = commit_done(&mut self.committer), if in_flight => match result {
                    Ok(commit) => self.committed(commit),
                    Err(err) => return Err(self.fail(err)),
                },
                event = from_cluster(&mut self.cluster) => match event {
                    FromCluster::Answer(answer) => self.answered(answer),
                    FromCluster::Lost(code) => {
                        tracing::warn!(room = %code, "lost the ownership of a room");
                        self.evict(code);
                    }
                    FromCluster::Sweep => {
                        if let Some(cluster) = &self.cluster {
                            cluster.sweep();
                        }
                    }
                },
                Some(reply) = self.metrics.recv() => {
                    // A scraper that gave up waiting needs no answer.
                    let _ = reply.send(self.metrics());
                }
                Some(accepted) = self.accepted.recv() => self.accept(accepted),
                Some(read) = self.reads.next(), if !self.reads.is_empty() => {
                    self.read(read);
                    // Frames that are already there are taken now; the next `select!` waits
                    // for more with this task's own waker again.
                    for _ in 1..INPUT_BATCH {
                        match self.reads.next().now_or_never() {
                            Some(Some(read)) => self.read(read),
                            _ => break,
                        }
                    }
                }
                () = &mut timer, if armed.is_some() => {
                    // Armed afresh next time round, even at the same deadline.
                    armed = None;
                    let now = self.now();
                    self.relay.handle_timeout(now);
                    self.flush();
                }
            }
        }
        self.shutdown().await
    }

    /// Admits a new connection under the caps, or has the core refuse it.
    fn accept(&mut self, Accepted { conn, transport }: Accepted) {
        let now = self.now();
        let id = ConnId(self.next_id);
        self.next_id += 1;
        let peer = conn.peer();
        tracing::debug!(conn = %id, %peer, %transport, "accepted");
        self.conns.insert(id, Arc::clone(&conn));
        match self.admission.admit(id, &peer) {
            Ok(()) => {
                self.reads.push(NextFrame::new(id, conn));
                self.relay.handle_connect(now, id, transport, &peer);
            }
            Err(why) => {
                tracing::info!(conn = %id, %peer, why, "refused");
                self.refused_connections += 1;
                self.relay.refuse_connect(id, why);
            }
        }
        self.flush();
    }

    /// Hands a connection's frame to the core and waits for its next, or reports its end.
    fn read(&mut self, Read { id, conn, frame }: Read) {
        // A connection the core let go of is being closed: what it still sends is not read.
        if !self.conns.contains_key(&id) {
            return;
        }
        let now = self.now();
        match frame {
            Ok(frame) => {
                self.relay.handle_frame(now, id, &frame);
                self.reads.push(NextFrame::new(id, conn));
            }
            Err(err) => {
                tracing::debug!(conn = %id, %err, "connection ended");
                self.let_go(id);
                self.relay.handle_disconnect(now, id);
            }
        }
        self.flush();
    }

    /// Takes the core's outputs, in order: changes go to the next batch, and the rest is
    /// carried out now or waits for the changes before it.
    fn flush(&mut self) {
        while let Some(output) = self.relay.poll_output() {
            let output = match output {
                Output::Claim(code) => {
                    match &self.cluster {
                        Some(cluster) => cluster.claim(code),
                        None => self.relay.handle_claim(code, false),
                    }
                    continue;
                }
                Output::Locate {
                    conn,
                    request,
                    lookup,
                } => {
                    match &self.cluster {
                        Some(cluster) => cluster.locate(conn, request, lookup),
                        None => {
                            let now = self.now();
                            self.relay
                                .handle_located(now, conn, request, Located::Nowhere);
                        }
                    }
                    continue;
                }
                output => output,
            };
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

    /// The batch in flight is committed: the outputs that waited for it go out, but those
    /// for the rooms the storage refused, which are given up.
    fn committed(&mut self, Commit { elapsed, committed }: Commit) {
        self.commits.record(elapsed);
        self.gate.committed();
        for code in committed.refused {
            tracing::warn!(room = %code, "the storage refused the room's changes");
            self.evict(code);
        }
        self.release();
    }

    /// Carries out what the gate lets go.
    fn release(&mut self) {
        while let Some(output) = self.gate.pop_released() {
            self.carry_out(output);
        }
        // Carrying them out may have cut off a slow connection, which the core answers.
        self.flush();
    }

    /// Gives room `code` up to the node that owns it now: what its connections were still
    /// to be sent is dropped (it waited for changes this node may not make), and they are
    /// told to resume elsewhere.
    fn evict(&mut self, code: RoomCode) {
        let now = self.now();
        let conns = self.relay.evict(now, code);
        self.gate.cut(&conns);
        self.flush();
    }

    /// Carries out what the cluster answered.
    fn answered(&mut self, answer: Answer) {
        let now = self.now();
        match answer {
            Answer::Claimed(code, won) => self.relay.handle_claim(code, won),
            Answer::Located {
                conn,
                request,
                located,
            } => self.relay.handle_located(now, conn, request, located),
            Answer::Adopted(room) => self.relay.take_over(now, *room),
        }
        self.flush();
    }

    /// Sends a frame or closes a connection.
    fn carry_out(&mut self, output: Output) {
        match output {
            Output::Send { to, frame } => {
                let Some(conn) = self.conns.get(&to) else {
                    return;
                };
                match conn.try_send(frame) {
                    Ok(()) => {}
                    Err(TransportError::Full) => {
                        // A client that does not read its frames would hold them in the
                        // transport forever: it is cut off, and the rest of the relay goes
                        // on. The core's answer is taken by the next flush.
                        tracing::warn!(conn = %to, "send buffer full: disconnecting");
                        self.slow_consumers += 1;
                        self.let_go(to);
                        let now = self.now();
                        self.relay.handle_disconnect(now, to);
                    }
                    // The connection failed: its next read says so, and the core hears of it.
                    Err(err) => tracing::debug!(conn = %to, %err, "send failed"),
                }
            }
            Output::Close { conn, reason } => {
                tracing::debug!(%conn, ?reason, "closing");
                self.let_go(conn);
            }
            // Changes never get here: `flush` gives them to the gate or skips them, and hands
            // the cluster what is its to do.
            Output::Persist(_) | Output::Claim(_) | Output::Locate { .. } => {}
        }
    }

    /// Closes `conn` in the background (after the frames already queued) and frees its place
    /// under the caps; nothing if it was let go already.
    fn let_go(&mut self, conn: ConnId) {
        self.admission.release(conn);
        let Some(conn) = self.conns.remove(&conn) else {
            return;
        };
        let alive = self.closers_alive.clone();
        tokio::spawn(async move {
            conn.close().await;
            drop(alive);
        });
    }

    /// The relay's counters and the driver's.
    fn metrics(&self) -> ServerMetrics {
        ServerMetrics {
            relay: self.relay.metrics(),
            refused_connections: self.refused_connections,
            slow_consumers: self.slow_consumers,
            commits: self.commits.clone(),
            cluster: self
                .cluster
                .as_ref()
                .map(|cluster| cluster.directory.counters()),
        }
    }

    /// Stops serving at once after a failed commit: no more accepting, nothing more sent.
    /// Connections are dropped with the driver; clients resume on a restarted relay.
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
    /// delivered, and closes the listeners, waiting (a little) for their sockets to close.
    ///
    /// The clocks paused by the shutdown are committed before the goodbyes go out; if that
    /// fails, the goodbyes are not sent and the error is returned. A node of a cluster gives
    /// its leases up before the goodbyes too: a client that resumes at once through another
    /// node finds its room free to take over there, not still this node's.
    async fn shutdown(mut self) -> Result<(), StoreError> {
        for acceptor in &self.acceptors {
            acceptor.abort();
        }
        // Connections accepted but not yet handed to the core are told goodbye with the rest:
        // left in the queue, they would hold the listeners' sockets past the shutdown.
        self.accepted.close();
        while let Ok(accepted) = self.accepted.try_recv() {
            self.accept(accepted);
        }
        if self.cluster.is_some() {
            self.gate.hold();
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
                Ok(commit) => self.committed(commit),
                Err(err) => return Err(self.fail(err)),
            }
        }
        // Every change is committed: the other nodes may take the rooms over at once, and
        // the goodbyes held meanwhile go out.
        if let Some(cluster) = &self.cluster {
            cluster.directory.close().await;
            self.gate.let_go();
            self.release();
        }
        // Nothing more is read; a read in progress could hold up its connection's close.
        self.reads.clear();
        let ids: Vec<_> = self.conns.keys().copied().collect();
        for id in ids {
            self.let_go(id);
        }
        drop(self.closers_alive);
        let all_closed = tokio::time::timeout(CLOSE_WAIT, self.closers_done.recv())
            .await
            .is_ok();
        if !all_closed {
            tracing::warn!("some connections did not close in time");
        }
        // Only now: closing a listener may close its connections too (UDP's does), which
        // would cut the goodbyes short.
        for listener in &self.listeners {
            listener.close();
        }
        // A UDP or QUIC socket outlives its listener until the connections closed above are
        // done draining: a relay restarted on the same port right after would not bind it.
        // Peers that did not answer the goodbyes in time are not waited for again.
        if !all_closed || !sockets_released(&self.listeners).await {
            for listener in &self.listeners {
                listener.abort();
            }
            if !sockets_released(&self.listeners).await {
                tracing::warn!("some listening sockets were not released in time");
            }
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
async fn commit_done(committer: &mut Option<Committer>) -> Result<Commit, StoreError> {
    match committer {
        Some(committer) => committer.done().await,
        None => std::future::pending().await,
    }
}

/// Accepts connections until the listener closes.
async fn accept(
    listener: Arc<dyn Listener>,
    transport: Arc<str>,
    accepted: mpsc::Sender<Accepted>,
) {
    loop {
        match listener.accept().await {
            Ok(conn) => {
                let transport = Arc::clone(&transport);
                if accepted.send(Accepted { conn, transport }).await.is_err() {
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

/// The label a listener's connections carry in the logs: its URL's scheme.
pub(crate) fn transport_label(url: &str) -> Arc<str> {
    Arc::from(url.split_once("://").map_or("?", |(scheme, _)| scheme))
}

#[cfg(test)]
mod tests {
    use xq_transport::Options;

    use super::*;
    use crate::Config;

    /// Shutdown lets go of the listening socket even when a connection was accepted just
    /// before the stop and waits, queued for the core, without having been served: under a
    /// burst of connections that queue holds up to [`ACCEPT_QUEUE`] of them. Here the core
    /// has not taken it yet when the stop comes.
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn shutdown_frees_the_port_of_a_connection_still_queued_for_the_core() {
        let options = Options::default();
        let listener: Arc<dyn Listener> = Arc::from(
            xq_transport::listen("udp://127.0.0.1:0", &options)
                .await
                .unwrap_or_else(|e| panic!("{e}")),
        );
        let url = listener.local_url();
        let (_requests, metrics) = mpsc::channel(1);
        let driver = Driver::new(
            Relay::new(Config::default(), [7; 32]),
            Instant::now(),
            DriverSettings {
                listeners: vec![(listener, transport_label(&url))],
                committer: None,
                admission: Admission::new(16, 16),
                metrics,
                directory: None,
            },
        );
        // The acceptor queues the connection; the core's task has not run yet.
        let _client = xq_transport::connect(&url, &options)
            .await
            .unwrap_or_else(|e| panic!("connect {url}: {e}"));
        while driver.accepted.is_empty() {
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
        let (stop, stopped) = oneshot::channel();
        let _ = stop.send(());
        let started = Instant::now();
        driver.run(stopped).await.unwrap_or_else(|e| panic!("{e}"));
        let took = started.elapsed();
        let address = url.trim_start_matches("udp://");
        let rebound = std::net::UdpSocket::bind(address);
        assert!(
            rebound.is_ok(),
            "the port is still taken after shutdown ({took:?}): {rebound:?}"
        );
        assert!(
            took < CLOSE_WAIT,
            "shutdown waited {took:?} for a socket the driver itself held"
        );
    }
}
