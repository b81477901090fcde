//! In-process connections over tokio channels, for tests and single-process play.
//!
//! Listeners live in a process-wide table of names, so `mem://name` works like a network
//! address inside one process. A listener's name is freed when it is closed or dropped.

use std::collections::HashMap;
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, LazyLock, Mutex, MutexGuard, PoisonError};
use std::task::{Context, Poll, Waker, ready};
use std::time::Duration;

use async_trait::async_trait;
use tokio::sync::{Mutex as AsyncMutex, mpsc, watch};
use tokio::time::{Instant, Sleep};

use crate::{Connection, ConnectionStats, Listener, Options, Peer, TransportError};

/// Frames a connection may queue before `send` waits for the receiver.
const QUEUE_FRAMES: usize = 1024;
/// How long `close` waits for a `send` that is itself waiting for room, as QUIC's close gives up
/// on a peer that does not read.
const CLOSE_LINGER: Duration = Duration::from_secs(1);
/// Connections a listener may queue before `connect` fails.
const BACKLOG: usize = 128;

type Registry = Mutex<HashMap<String, mpsc::Sender<MemConnection>>>;

static LISTENERS: LazyLock<Registry> = LazyLock::new(Registry::default);

fn registry() -> MutexGuard<'static, HashMap<String, mpsc::Sender<MemConnection>>> {
    // The map stays consistent even if a holder panicked: every operation is a single call.
    LISTENERS.lock().unwrap_or_else(PoisonError::into_inner)
}

/// What travels through a channel. The channel's end is the peer's close if it said goodbye
/// first, and a lost peer otherwise: a close needs no room in a full queue.
struct Frame {
    data: Vec<u8>,
    deliver_at: Instant,
}

#[derive(Default)]
struct Counters {
    frames: AtomicU64,
    bytes: AtomicU64,
}

/// One end of an in-memory connection.
pub struct MemConnection {
    peer: Peer,
    tx: AsyncMutex<Option<mpsc::Sender<Frame>>>,
    /// Set by `close` before the channel ends, for the peer to tell a close from a drop.
    goodbye: Arc<AtomicBool>,
    /// Only ever held for one poll, never across an `await`.
    inbox: Mutex<Inbox>,
    sent: Arc<Counters>,
    received: Arc<Counters>,
    latency: Duration,
    max_frame_size: usize,
}

impl MemConnection {
    /// A connected pair, as if `a` had connected to `b`.
    #[must_use]
    pub fn pair(options: &Options) -> (Self, Self) {
        let (tx_ab, rx_ab) = mpsc::channel(QUEUE_FRAMES);
        let (tx_ba, rx_ba) = mpsc::channel(QUEUE_FRAMES);
        let ab = Direction::default();
        let ba = Direction::default();
        let end = |peer: &str, tx, rx, sent: &Direction, received: &Direction| Self {
            peer: Peer::Memory(peer.into()),
            tx: AsyncMutex::new(Some(tx)),
            goodbye: Arc::clone(&sent.goodbye),
            inbox: Mutex::new(Inbox {
                rx,
                closed: false,
                peer_goodbye: Arc::clone(&received.goodbye),
                reader: None,
                delayed: None,
            }),
            sent: Arc::clone(&sent.counters),
            received: Arc::clone(&received.counters),
            latency: options.mem_latency,
            max_frame_size: options.max_frame_size,
        };
        (
            end("mem-server", tx_ab, rx_ba, &ab, &ba),
            end("mem-client", tx_ba, rx_ab, &ba, &ab),
        )
    }
}

/// What both ends share about one direction of a connection.
#[derive(Default)]
struct Direction {
    counters: Arc<Counters>,
    goodbye: Arc<AtomicBool>,
}

/// The receiving end of a connection.
struct Inbox {
    rx: mpsc::Receiver<Frame>,
    /// Set by `close`: nothing more is read.
    closed: bool,
    /// The peer's [`MemConnection::goodbye`].
    peer_goodbye: Arc<AtomicBool>,
    /// The task waiting for a frame, which `close` wakes.
    reader: Option<Waker>,
    /// A frame held back until the link's latency has passed.
    delayed: Option<(Vec<u8>, Pin<Box<Sleep>>)>,
}

impl Inbox {
    fn poll_next(&mut self, cx: &mut Context<'_>) -> Poll<Result<Vec<u8>, TransportError>> {
        if self.closed {
            return Poll::Ready(Err(TransportError::ClosedLocally));
        }
        match &mut self.reader {
            Some(reader) if reader.will_wake(cx.waker()) => {}
            reader => *reader = Some(cx.waker().clone()),
        }
        loop {
            if let Some((frame, until)) = &mut self.delayed {
                ready!(until.as_mut().poll(cx));
                let frame = std::mem::take(frame);
                self.delayed = None;
                return Poll::Ready(Ok(frame));
            }
            match ready!(self.rx.poll_recv(cx)) {
                // Only a conditioned link waits: the timer wheel's millisecond ticks would
                // otherwise add a millisecond to every frame.
                Some(Frame { data, deliver_at }) if deliver_at > Instant::now() => {
                    self.delayed = Some((data, Box::pin(tokio::time::sleep_until(deliver_at))));
                }
                Some(Frame { data, .. }) => return Poll::Ready(Ok(data)),
                None if self.peer_goodbye.load(Ordering::Acquire) => {
                    return Poll::Ready(Err(TransportError::Closed));
                }
                None => return Poll::Ready(Err(TransportError::ConnectionLost)),
            }
        }
    }
}

impl MemConnection {
    fn inbox(&self) -> MutexGuard<'_, Inbox> {
        // Every update of the inbox is a single step, so a panic cannot leave it half-done.
        self.inbox.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// `frame` ready for the channel, with its length, if it is not too large and the
    /// connection is not closing: a send during a close fails at once, rather than wait for
    /// the lock the close waits for, or report it as a full queue.
    fn item(&self, frame: Vec<u8>) -> Result<(Frame, u64), TransportError> {
        if self.goodbye.load(Ordering::Acquire) {
            return Err(TransportError::ClosedLocally);
        }
        if frame.len() > self.max_frame_size {
            return Err(TransportError::FrameTooLarge {
                len: frame.len(),
                max: self.max_frame_size,
            });
        }
        let len = frame.len() as u64;
        let item = Frame {
            data: frame,
            deliver_at: Instant::now() + self.latency,
        };
        Ok((item, len))
    }

    fn count_sent(&self, len: u64) {
        self.sent.frames.fetch_add(1, Ordering::Relaxed);
        self.sent.bytes.fetch_add(len, Ordering::Relaxed);
    }
}

#[async_trait]
impl Connection for MemConnection {
    async fn send(&self, frame: Vec<u8>) -> Result<(), TransportError> {
        let (item, len) = self.item(frame)?;
        let mut tx = self.tx.lock().await;
        let sent = tx
            .as_ref()
            .ok_or(TransportError::ClosedLocally)?
            .send(item)
            .await;
        if self.goodbye.load(Ordering::Acquire) {
            // Closed while this waited for room: the channel ends after its frame.
            tx.take();
        }
        sent.map_err(|_| TransportError::ConnectionLost)?;
        self.count_sent(len);
        Ok(())
    }

    fn try_send(&self, frame: Vec<u8>) -> Result<(), TransportError> {
        let (item, len) = self.item(frame)?;
        // A `send` holding the lock is waiting for room: the queue is full.
        let tx = self.tx.try_lock().map_err(|_| TransportError::Full)?;
        let tx = tx.as_ref().ok_or(TransportError::ClosedLocally)?;
        tx.try_send(item).map_err(|err| match err {
            mpsc::error::TrySendError::Full(_) => TransportError::Full,
            mpsc::error::TrySendError::Closed(_) => TransportError::ConnectionLost,
        })?;
        self.count_sent(len);
        Ok(())
    }

    fn poll_recv(&self, cx: &mut Context<'_>) -> Poll<Result<Vec<u8>, TransportError>> {
        self.inbox().poll_next(cx)
    }

    async fn close(&self) {
        {
            let mut inbox = self.inbox();
            inbox.closed = true;
            // Nothing more is read, so the peer's sends fail from now on rather than wait for
            // room that never comes.
            inbox.rx.close();
            if let Some(reader) = inbox.reader.take() {
                reader.wake();
            }
        }
        self.goodbye.store(true, Ordering::Release);
        // Ending the channel is the goodbye, read after the last frame. A `send` still waiting
        // for room holds the sender, and ends the channel itself once its frame is queued.
        if let Ok(mut tx) = tokio::time::timeout(CLOSE_LINGER, self.tx.lock()).await {
            tx.take();
        }
    }

    fn peer(&self) -> Peer {
        self.peer.clone()
    }

    fn stats(&self) -> ConnectionStats {
        ConnectionStats {
            rtt: Some(self.latency * 2),
            bytes_sent: self.sent.bytes.load(Ordering::Relaxed),
            bytes_received: self.received.bytes.load(Ordering::Relaxed),
            frames_sent: self.sent.frames.load(Ordering::Relaxed),
            frames_received: self.received.frames.load(Ordering::Relaxed),
            retransmits: 0,
        }
    }
}

/// A named in-memory listener. Closing or dropping it frees the name and ends the connections
/// it has not handed out yet: their clients see [`TransportError::ConnectionLost`].
pub struct MemListener {
    name: String,
    sender: mpsc::Sender<MemConnection>,
    incoming: AsyncMutex<mpsc::Receiver<MemConnection>>,
    closed: watch::Sender<bool>,
}

impl MemListener {
    /// Ends the queue and every connection waiting in it: dropping the listener's end is what
    /// tells a client that nobody will ever serve it.
    fn drop_queued(incoming: &mut mpsc::Receiver<MemConnection>) {
        incoming.close();
        while incoming.try_recv().is_ok() {}
    }

    fn unregister(&self) {
        let mut listeners = registry();
        if listeners
            .get(&self.name)
            .is_some_and(|tx| tx.same_channel(&self.sender))
        {
            listeners.remove(&self.name);
        }
    }
}

impl Drop for MemListener {
    fn drop(&mut self) {
        self.unregister();
    }
}

/// Registers a listener under `name`.
///
/// # Errors
///
/// [`TransportError::NameInUse`] if another listener has the name.
pub fn listen(name: &str, _options: &Options) -> Result<MemListener, TransportError> {
    let mut listeners = registry();
    if listeners.contains_key(name) {
        return Err(TransportError::NameInUse(name.to_string()));
    }
    let (sender, incoming) = mpsc::channel(BACKLOG);
    listeners.insert(name.to_string(), sender.clone());
    Ok(MemListener {
        name: name.to_string(),
        sender,
        incoming: AsyncMutex::new(incoming),
        closed: watch::Sender::new(false),
    })
}

/// Connects to the listener registered under `name`.
///
/// # Errors
///
/// [`TransportError::NoListener`] if there is none (or its backlog is full).
pub fn connect(name: &str, options: &Options) -> Result<MemConnection, TransportError> {
    let tx = registry()
        .get(name)
        .cloned()
        .ok_or_else(|| TransportError::NoListener(name.to_string()))?;
    let (client, server) = MemConnection::pair(options);
    tx.try_send(server)
        .map_err(|_| TransportError::NoListener(name.to_string()))?;
    Ok(client)
}

#[async_trait]
impl Listener for MemListener {
    async fn accept(&self) -> Result<Arc<dyn Connection>, TransportError> {
        let mut closed = self.closed.subscribe();
        let mut incoming = self.incoming.lock().await;
        if !*closed.borrow_and_update() {
            tokio::select! {
                Some(conn) = incoming.recv() => return Ok(Arc::new(conn)),
                _ = closed.changed() => {}
            }
        }
        // `close` could not drain the queue while this held it.
        Self::drop_queued(&mut incoming);
        Err(TransportError::ListenerClosed)
    }

    fn local_url(&self) -> String {
        format!("mem://{}", self.name)
    }

    fn close(&self) {
        self.unregister();
        self.closed.send_replace(true);
        // A pending `accept` holds the queue; it drains it itself once woken.
        if let Ok(mut incoming) = self.incoming.try_lock() {
            Self::drop_queued(&mut incoming);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test(start_paused = true)]
    async fn the_conditioner_delays_frames_and_keeps_their_order() {
        let options = Options {
            mem_latency: Duration::from_millis(50),
            ..Options::default()
        };
        let (a, b) = MemConnection::pair(&options);
        let start = Instant::now();
        for i in 0..3u8 {
            a.send(vec![i]).await.unwrap_or_else(|e| panic!("{e}"));
        }
        for i in 0..3u8 {
            assert_eq!(b.recv().await.unwrap_or_else(|e| panic!("{e}")), vec![i]);
        }
        assert_eq!(start.elapsed(), Duration::from_millis(50));
        assert_eq!(b.stats().frames_received, 3);
        assert_eq!(a.stats().bytes_sent, 3);
    }

    /// Closing ends a `recv` in progress, and the peer's sends then fail: nothing reads them
    /// any more, so they must not wait for room that never comes.
    #[tokio::test]
    async fn closing_ends_a_recv_in_progress_and_fails_the_peers_sends() {
        /// Counts its wake-ups.
        struct Counter(AtomicU64);
        impl std::task::Wake for Counter {
            fn wake(self: Arc<Self>) {
                self.0.fetch_add(1, Ordering::Relaxed);
            }
        }
        let (a, b) = MemConnection::pair(&Options::default());
        let woken = Arc::new(Counter(AtomicU64::new(0)));
        let waker = Waker::from(Arc::clone(&woken));
        let mut cx = Context::from_waker(&waker);
        // A receiver is waiting when the close comes.
        assert!(a.poll_recv(&mut cx).is_pending());
        a.close().await;
        assert_eq!(woken.0.load(Ordering::Relaxed), 1);
        let received = a.poll_recv(&mut cx);
        assert!(
            matches!(received, Poll::Ready(Err(TransportError::ClosedLocally))),
            "{received:?}"
        );
        assert!(matches!(
            b.send(vec![1]).await,
            Err(TransportError::ConnectionLost)
        ));
        assert!(matches!(b.recv().await, Err(TransportError::Closed)));
        let again = b.recv().await;
        assert!(
            matches!(again, Err(TransportError::Closed)),
            "a close read twice is still a close: {again:?}"
        );
    }

    /// Fills `a`'s queue towards its peer, returning how many frames it holds.
    fn fill(a: &MemConnection) -> usize {
        let mut queued = 0;
        while a.try_send(queued.to_string().into_bytes()).is_ok() {
            queued += 1;
        }
        queued
    }

    /// `b` reads frames `0..count`, as `fill` numbers them, then `a`'s close.
    async fn read_to_the_close(b: &MemConnection, count: usize) {
        for i in 0..count {
            let frame = b.recv().await.unwrap_or_else(|e| panic!("{i}: {e}"));
            assert_eq!(frame, i.to_string().into_bytes());
        }
        let end = b.recv().await;
        assert!(matches!(end, Err(TransportError::Closed)), "{end:?}");
    }

    /// A close needs no room in the peer's queue: it returns at once, and the peer still reads
    /// every frame, then the close.
    #[tokio::test(start_paused = true)]
    async fn closing_towards_a_full_queue_returns_at_once_and_loses_nothing() {
        let (a, b) = MemConnection::pair(&Options::default());
        let queued = fill(&a);
        let start = Instant::now();
        tokio::time::timeout(Duration::from_secs(60), a.close())
            .await
            .unwrap_or_else(|_| panic!("close waits for room in the peer's queue"));
        assert_eq!(start.elapsed(), Duration::ZERO);
        read_to_the_close(&b, queued).await;
    }

    /// A `send` still waiting for room when the connection closes delivers its frame before
    /// the close; `close` gives up waiting for it.
    #[tokio::test(start_paused = true)]
    async fn closing_during_a_waiting_send_delivers_its_frame_first() {
        let (a, b) = MemConnection::pair(&Options::default());
        let a = Arc::new(a);
        let queued = fill(&a);
        let sender = Arc::clone(&a);
        let waiting =
            tokio::spawn(async move { sender.send(queued.to_string().into_bytes()).await });
        tokio::task::yield_now().await;
        let start = Instant::now();
        tokio::time::timeout(Duration::from_secs(60), a.close())
            .await
            .unwrap_or_else(|_| panic!("close waits for the send"));
        assert_eq!(start.elapsed(), CLOSE_LINGER);
        read_to_the_close(&b, queued + 1).await;
        waiting
            .await
            .unwrap_or_else(|e| panic!("{e}"))
            .unwrap_or_else(|e| panic!("{e}"));
    }

    #[tokio::test(start_paused = true)]
    async fn closing_a_listener_ends_the_connections_it_never_handed_out() {
        let name = "mem-tests-queued-at-close";
        let listener = listen(name, &Options::default()).unwrap_or_else(|e| panic!("{e}"));
        let client = connect(name, &Options::default()).unwrap_or_else(|e| panic!("{e}"));
        listener.close();
        let ended = tokio::time::timeout(Duration::from_secs(1), client.recv())
            .await
            .unwrap_or_else(|_| panic!("the client still waits for the closed listener"));
        assert!(
            matches!(ended, Err(TransportError::ConnectionLost)),
            "{ended:?}"
        );
        assert!(matches!(
            listener.accept().await,
            Err(TransportError::ListenerClosed)
        ));
    }

    /// The listener's end names the client, and the client's end the listener.
    #[tokio::test]
    async fn each_end_names_the_other() {
        let name = "mem-tests-peer-names";
        let listener = listen(name, &Options::default()).unwrap_or_else(|e| panic!("{e}"));
        let client = connect(name, &Options::default()).unwrap_or_else(|e| panic!("{e}"));
        let server = listener.accept().await.unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(server.peer(), Peer::Memory("mem-client".into()));
        assert_eq!(client.peer(), Peer::Memory("mem-server".into()));
    }

    #[tokio::test]
    async fn dropping_one_end_is_a_lost_connection_not_a_close() {
        let (a, b) = MemConnection::pair(&Options::default());
        drop(a);
        assert!(matches!(
            b.recv().await,
            Err(TransportError::ConnectionLost)
        ));
        assert!(matches!(
            b.send(vec![1]).await,
            Err(TransportError::ConnectionLost)
        ));
    }
}
