//! An established connection carrying frames on one bidirectional stream, and the client's way
//! to open one.

use std::future::Future;
use std::net::{Ipv4Addr, Ipv6Addr, SocketAddr};
use std::pin::pin;
use std::slice;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex as SyncMutex, MutexGuard, PoisonError};
use std::task::{Context, Poll, Waker, ready};
use std::time::Duration;

use bytes::Bytes;
use quinn::{Endpoint, RecvStream, SendStream, VarInt};
use tokio::sync::Mutex;
use tokio::time::timeout;

use crate::error::{CLOSE_DROPPED, CLOSE_GRACEFUL, CLOSE_PROTOCOL};
use crate::framing::{self, Decoder, Oversized, STREAM_HEADER};
use crate::{ClientConfig, Error, socket, tls};

/// How long [`Connection::close`] waits for the peer to acknowledge the last frames, and then for
/// the close itself to be delivered, before giving up on a peer that does not answer.
const CLOSE_LINGER: Duration = Duration::from_secs(1);

/// Connects to the server at `remote` and opens the frame stream.
///
/// Each client connection gets its own UDP socket, bound to an ephemeral port.
///
/// # Errors
///
/// Fails if the socket cannot be bound, the TLS configuration is invalid, the server is
/// unreachable within the idle timeout, or its certificate is not trusted under
/// [`ClientConfig::verify`]: a pin that does not match is reported as
/// [`Error::FingerprintMismatch`].
pub async fn connect(remote: SocketAddr, config: ClientConfig) -> Result<Connection, Error> {
    let endpoint = ClientEndpoint::bind(unspecified(remote))?;
    open(
        &endpoint.endpoint,
        remote,
        &config,
        Some(endpoint.endpoint.clone()),
    )
    .await
}

/// A client socket that carries many connections, for a program that opens many at once (a
/// load generator, a bot playing several games): one socket and one driver serve them all,
/// where [`connect`] gives each its own.
#[derive(Debug)]
pub struct ClientEndpoint {
    endpoint: Endpoint,
}

impl ClientEndpoint {
    /// Binds a client socket on `local` (port 0 picks a free port).
    ///
    /// # Errors
    ///
    /// [`Error::Bind`] if the socket cannot be bound.
    pub fn bind(local: SocketAddr) -> Result<Self, Error> {
        // A client's connections wait for its endpoint to go idle instead, when they own it
        // (see `Connection::close`).
        let (endpoint, _) = socket::endpoint(local, None).map_err(Error::Bind)?;
        Ok(Self { endpoint })
    }

    /// Connects to the server at `remote` over this socket and opens the frame stream.
    ///
    /// # Errors
    ///
    /// As [`connect`], but for binding.
    pub async fn connect(
        &self,
        remote: SocketAddr,
        config: &ClientConfig,
    ) -> Result<Connection, Error> {
        open(&self.endpoint, remote, config, None).await
    }
}

/// The unspecified address of `remote`'s family, any port.
fn unspecified(remote: SocketAddr) -> SocketAddr {
    match remote {
        SocketAddr::V4(_) => SocketAddr::from((Ipv4Addr::UNSPECIFIED, 0)),
        SocketAddr::V6(_) => SocketAddr::from((Ipv6Addr::UNSPECIFIED, 0)),
    }
}

/// Connects over `endpoint` and opens the frame stream; `own` is the endpoint the connection
/// owns, if it is its alone.
async fn open(
    endpoint: &Endpoint,
    remote: SocketAddr,
    config: &ClientConfig,
    own: Option<Endpoint>,
) -> Result<Connection, Error> {
    let (tls, pin_verifier) = tls::client(&config.verify)?;
    let mut quinn_config = quinn::ClientConfig::new(Arc::new(tls));
    quinn_config.transport_config(config.transport.to_quinn(0));
    let conn = endpoint
        .connect_with(quinn_config, remote, &config.server_name)?
        .await
        .map_err(|error| match pin_verifier.and_then(|v| v.rejected()) {
            Some(found) => Error::FingerprintMismatch { found },
            None => error.into(),
        })?;
    let (mut send, recv) = conn.open_bi().await?;
    // The server only sees the stream once data arrives on it: the header announces it.
    send.write_all(&STREAM_HEADER).await?;
    Ok(Connection::new(
        conn,
        send,
        recv,
        config.transport.max_frame_size,
        own,
    ))
}

/// A connection that carries whole frames, in order, or fails.
///
/// Clones share the connection, so one task can [`send`](Self::send) while another
/// [`recv`](Self::recv)s. Both are cancel-safe: a `recv` dropped before it completes loses no
/// data, and a `send` dropped before it completes either sends nothing or finishes its frame
/// before the next one.
///
/// Dropping the last clone closes the connection abruptly, and the peer sees
/// [`Error::PeerGone`]; call [`close`](Self::close) first so that the peer receives every frame
/// and sees [`Error::ClosedByPeer`].
#[derive(Debug, Clone)]
pub struct Connection {
    inner: Arc<Inner>,
    /// Shared by the clones only, so that it goes with the last of them.
    _close_on_drop: Arc<CloseOnDrop>,
}

/// Closes the connection abruptly once the last [`Connection`] clone is gone. Dropping `Inner`
/// would not do: a background flush started by [`Connection::try_send`] holds it, and would keep
/// an abandoned connection alive, keep-alives and all, for as long as the peer does not read.
#[derive(Debug)]
struct CloseOnDrop(quinn::Connection);

impl Drop for CloseOnDrop {
    fn drop(&mut self) {
        self.0.close(VarInt::from_u32(CLOSE_DROPPED), b"");
    }
}

#[derive(Debug)]
struct Inner {
    conn: quinn::Connection,
    send: Mutex<Sender>,
    /// Only ever held for one poll, never across an `await`.
    recv: SyncMutex<Receiver>,
    max_frame_size: u32,
    /// Set by [`Connection::close`]: from then on `send` and `try_send` fail at once (rather
    /// than wait for, or report as full, a buffer the close is draining), and frames received
    /// but not yet read are dropped with the connection, as the close promises, rather than
    /// handed out afterwards.
    closed: AtomicBool,
    frames_sent: AtomicU64,
    frames_received: AtomicU64,
    /// A client's own endpoint, waited on when closing so that the close reaches the peer before
    /// the socket goes away. Servers share their endpoint with the listener instead.
    endpoint: Option<Endpoint>,
}

impl Connection {
    /// Wraps an established connection whose stream header has already been exchanged.
    pub(crate) fn new(
        conn: quinn::Connection,
        send: SendStream,
        recv: RecvStream,
        max_frame_size: u32,
        endpoint: Option<Endpoint>,
    ) -> Self {
        Self {
            _close_on_drop: Arc::new(CloseOnDrop(conn.clone())),
            inner: Arc::new(Inner {
                conn,
                send: Mutex::new(Sender {
                    stream: send,
                    pending: Bytes::new(),
                }),
                recv: SyncMutex::new(Receiver {
                    stream: recv,
                    decoder: Decoder::new(max_frame_size),
                    chunk: Bytes::new(),
                }),
                max_frame_size,
                closed: AtomicBool::new(false),
                frames_sent: AtomicU64::new(0),
                frames_received: AtomicU64::new(0),
                endpoint,
            }),
        }
    }

    /// Queues one frame for sending.
    ///
    /// Returns once the frame is in quinn's send buffer, which writes many frames per packet and
    /// many packets per system call. It waits only when flow control says the peer is behind.
    ///
    /// # Errors
    ///
    /// [`Error::FrameTooLarge`] if the frame is over the maximum, in which case the connection is
    /// unaffected; otherwise the reason the connection failed or was closed.
    pub async fn send(&self, frame: Vec<u8>) -> Result<(), Error> {
        let encoded = self.encode(&frame)?;
        let mut sender = self.inner.send.lock().await;
        sender.flush().await?;
        sender.pending = encoded;
        sender.flush().await?;
        self.inner.frames_sent.fetch_add(1, Ordering::Relaxed);
        Ok(())
    }

    /// Queues one frame without waiting: for a sender that must not stall on one slow peer (a
    /// relay serving thousands), and decides itself what a full buffer means.
    ///
    /// The frame goes into quinn's send buffer at once. If flow control takes only part of
    /// it, the rest is written by a task in the background, and until it is, the buffer counts
    /// as full.
    ///
    /// # Errors
    ///
    /// [`Error::SendBufferFull`] while an earlier frame is still being written (nothing is
    /// queued), otherwise as [`send`](Self::send).
    pub fn try_send(&self, frame: Vec<u8>) -> Result<(), Error> {
        let encoded = self.encode(&frame)?;
        let mut sender = self
            .inner
            .send
            .try_lock()
            .map_err(|_| Error::SendBufferFull)?;
        if !sender.pending.is_empty() {
            return Err(Error::SendBufferFull);
        }
        sender.pending = encoded;
        // One poll: quinn takes what flow control allows now, and a write that does not
        // complete is cancel-safe (`flush` keeps the rest in `pending`).
        let poll = pin!(sender.flush()).poll(&mut Context::from_waker(Waker::noop()));
        match poll {
            Poll::Ready(Err(error)) => return Err(error),
            Poll::Ready(Ok(())) => {}
            Poll::Pending => {
                drop(sender);
                let inner = Arc::clone(&self.inner);
                // Without a `Connection`: dropping the last handle still closes the connection,
                // which fails this write and ends the task.
                tokio::spawn(async move {
                    // A failure ends the connection, which `recv` reports.
                    let _ = inner.send.lock().await.flush().await;
                });
            }
        }
        self.inner.frames_sent.fetch_add(1, Ordering::Relaxed);
        Ok(())
    }

    /// `frame` with its length prefix, if it is within the maximum and the connection is not
    /// closing.
    fn encode(&self, frame: &[u8]) -> Result<Bytes, Error> {
        if self.inner.closed.load(Ordering::Relaxed) {
            return Err(Error::ClosedLocally);
        }
        let max = self.inner.max_frame_size;
        if frame.len() > max as usize {
            return Err(Error::FrameTooLarge {
                len: frame.len(),
                max,
            });
        }
        Ok(framing::encode(frame))
    }

    /// Waits for the next frame. Receive from one task at a time: the stream wakes only the
    /// task that polled it last.
    ///
    /// # Errors
    ///
    /// [`Error::ClosedByPeer`] once the peer has closed gracefully and every frame it sent has
    /// been returned; [`Error::TimedOut`] if the peer went silent; [`Error::PeerGone`] if it
    /// dropped the connection without closing it; [`Error::ClosedLocally`] after
    /// [`close`](Self::close); [`Error::IncomingFrameTooLarge`] if the peer announced a frame
    /// over the maximum, which also closes the connection; otherwise why the connection failed.
    pub async fn recv(&self) -> Result<Vec<u8>, Error> {
        std::future::poll_fn(|cx| self.poll_recv(cx)).await
    }

    /// Polls for the next frame, as [`recv`](Self::recv) waits for it: for a task that
    /// receives on many connections and would otherwise keep a future alive for each.
    ///
    /// The stream wakes only the task that polled it last: receive from one task at a time.
    ///
    /// # Errors
    ///
    /// As [`recv`](Self::recv).
    pub fn poll_recv(&self, cx: &mut Context<'_>) -> Poll<Result<Vec<u8>, Error>> {
        if self.inner.closed.load(Ordering::Relaxed) {
            return Poll::Ready(Err(Error::ClosedLocally));
        }
        let result = ready!(lock(&self.inner.recv).poll_frame(cx));
        match &result {
            Ok(_) => {
                self.inner.frames_received.fetch_add(1, Ordering::Relaxed);
            }
            Err(Error::IncomingFrameTooLarge { .. }) => {
                self.inner
                    .conn
                    .close(VarInt::from_u32(CLOSE_PROTOCOL), b"frame too large");
            }
            Err(_) => {}
        }
        Poll::Ready(result)
    }

    /// Closes the connection gracefully.
    ///
    /// Finishes the stream and waits until the peer has acknowledged every frame, then closes the
    /// connection, so that the peer reads all frames and then [`Error::ClosedByPeer`]. A peer
    /// that does not answer is given up on after about a second. Later calls to `send` and `recv`
    /// fail with [`Error::ClosedLocally`].
    pub async fn close(&self) {
        self.inner.closed.store(true, Ordering::Relaxed);
        let drained = timeout(CLOSE_LINGER, async {
            let mut sender = self.inner.send.lock().await;
            sender.flush().await?;
            // Already finished by an earlier `close`, which is fine.
            let _ = sender.stream.finish();
            sender.stream.stopped().await.map_err(|error| match error {
                quinn::StoppedError::ConnectionLost(error) => Error::from(error),
                quinn::StoppedError::ZeroRttRejected => Error::ClosedLocally,
            })
        })
        .await;
        if !matches!(drained, Ok(Ok(_))) {
            tracing::debug!(
                ?drained,
                "closing without the peer acknowledging every frame"
            );
        }
        self.inner
            .conn
            .close(VarInt::from_u32(CLOSE_GRACEFUL), b"closed");
        if let Some(endpoint) = &self.inner.endpoint {
            let _ = timeout(CLOSE_LINGER, endpoint.wait_idle()).await;
        }
    }

    /// Closes the connection at once with `code`, waiting for nothing: for a connection that was
    /// never handed out, so has nothing to deliver.
    pub(crate) fn close_now(&self, code: u32, reason: &[u8]) {
        self.inner.conn.close(VarInt::from_u32(code), reason);
    }

    /// The peer's address. It can change if the peer migrates to another address.
    #[must_use]
    pub fn peer_addr(&self) -> SocketAddr {
        self.inner.conn.remote_address()
    }

    /// Current statistics.
    #[must_use]
    pub fn stats(&self) -> Stats {
        let quic = self.inner.conn.stats();
        Stats {
            rtt: quic.path.rtt,
            bytes_sent: quic.udp_tx.bytes,
            bytes_received: quic.udp_rx.bytes,
            frames_sent: self.inner.frames_sent.load(Ordering::Relaxed),
            frames_received: self.inner.frames_received.load(Ordering::Relaxed),
            retransmits: quic.path.lost_packets,
        }
    }
}

/// A snapshot of a connection's statistics.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct Stats {
    /// The current smoothed round-trip time.
    pub rtt: Duration,
    /// UDP payload bytes sent, including QUIC and TLS overhead.
    pub bytes_sent: u64,
    /// UDP payload bytes received, including QUIC and TLS overhead.
    pub bytes_received: u64,
    /// Frames handed to [`Connection::send`] and queued.
    pub frames_sent: u64,
    /// Frames returned by [`Connection::recv`].
    pub frames_received: u64,
    /// Packets declared lost, whose contents QUIC sent again.
    pub retransmits: u64,
}

/// The sending half: the stream, and the unwritten rest of a frame whose `send` was cancelled.
#[derive(Debug)]
struct Sender {
    stream: SendStream,
    pending: Bytes,
}

impl Sender {
    /// Writes what is left of the pending frame. Cancel-safe: each write that completes advances
    /// `pending`, and one that does not complete writes nothing.
    ///
    /// A failed write drops the rest: the stream is dead, and a frame left pending would make
    /// `try_send` report a full buffer forever instead of the failure.
    async fn flush(&mut self) -> Result<(), Error> {
        while !self.pending.is_empty() {
            let written = self
                .stream
                .write_chunks(slice::from_mut(&mut self.pending))
                .await;
            if let Err(error) = written {
                self.pending.clear();
                return Err(error.into());
            }
        }
        Ok(())
    }
}

/// Locks `receiver`. A panic while it was held left at worst a partial frame in the decoder,
/// which fails the stream like any truncation would, so poisoning is ignored.
fn lock(receiver: &SyncMutex<Receiver>) -> MutexGuard<'_, Receiver> {
    receiver.lock().unwrap_or_else(PoisonError::into_inner)
}

/// The receiving half: the stream, the decoder, and received bytes not decoded yet.
#[derive(Debug)]
struct Receiver {
    stream: RecvStream,
    decoder: Decoder,
    chunk: Bytes,
}

impl Receiver {
    /// Decodes buffered bytes, reading more from the stream until a frame is complete.
    /// Nothing is lost between polls: the decoder keeps a partial frame, and a chunk is only
    /// taken from the stream once it is ready.
    fn poll_frame(&mut self, cx: &mut Context<'_>) -> Poll<Result<Vec<u8>, Error>> {
        loop {
            let decoded = self
                .decoder
                .decode(&mut self.chunk)
                .map_err(|Oversized { len, max }| Error::IncomingFrameTooLarge { len, max })?;
            if let Some(frame) = decoded {
                return Poll::Ready(Ok(frame));
            }
            // Polled once and dropped: reading a chunk is cancel-safe, and a pending read
            // leaves this task's waker with the stream.
            let read = pin!(self.stream.read_chunk(usize::MAX, true)).poll(cx);
            match ready!(read)? {
                Some(chunk) => self.chunk = chunk.bytes,
                None if self.decoder.is_between_frames() => {
                    return Poll::Ready(Err(Error::ClosedByPeer));
                }
                None => return Poll::Ready(Err(Error::TruncatedFrame)),
            }
        }
    }
}
