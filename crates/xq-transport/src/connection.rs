//! The interface every transport implements.

use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::Duration;

use async_trait::async_trait;

use crate::{Peer, TransportError};

/// A message-oriented connection: frames arrive whole, once and in order, or the connection
/// fails. Methods take `&self` so one task can receive while others send (share it in an `Arc`).
#[async_trait]
pub trait Connection: Send + Sync {
    /// Sends one frame. It may wait while the transport's send buffer is full.
    ///
    /// # Errors
    ///
    /// [`TransportError::FrameTooLarge`] (nothing is sent), or the connection's failure.
    async fn send(&self, frame: Vec<u8>) -> Result<(), TransportError>;

    /// Queues one frame without waiting, for a sender that must not stall on one slow peer
    /// (a relay serving thousands) and decides itself what a full buffer means.
    ///
    /// Frames queued this way and with [`send`](Self::send) keep their order.
    ///
    /// # Errors
    ///
    /// [`TransportError::Full`] while the send buffer is full (nothing is queued),
    /// [`TransportError::FrameTooLarge`], or the connection's failure.
    fn try_send(&self, frame: Vec<u8>) -> Result<(), TransportError>;

    /// Receives the next frame. Receive from one task at a time: this waits through
    /// [`poll_recv`](Self::poll_recv), which may wake only the latest task.
    ///
    /// # Errors
    ///
    /// [`TransportError::Closed`] once the peer has closed gracefully and every frame it sent
    /// has been received; otherwise why the connection failed.
    async fn recv(&self) -> Result<Vec<u8>, TransportError> {
        std::future::poll_fn(|cx| self.poll_recv(cx)).await
    }

    /// Polls for the next frame, as [`recv`](Self::recv) waits for it. A task that receives
    /// on many connections (a relay serving thousands) polls them through this instead of
    /// keeping a boxed `recv` future alive for each.
    ///
    /// Only the task of the latest poll is woken: receive from one task at a time.
    ///
    /// # Errors
    ///
    /// As [`recv`](Self::recv).
    fn poll_recv(&self, cx: &mut Context<'_>) -> Poll<Result<Vec<u8>, TransportError>>;

    /// Closes gracefully: frames already sent are delivered first, then the peer sees
    /// [`TransportError::Closed`]. From the moment the close begins, sends fail at once with
    /// [`TransportError::ClosedLocally`].
    async fn close(&self);

    /// Who is at the other end: a socket address, or a mem connection's name.
    fn peer(&self) -> Peer;

    /// Counters for monitoring.
    fn stats(&self) -> ConnectionStats;
}

/// Accepts incoming connections.
#[async_trait]
pub trait Listener: Send + Sync {
    /// Waits for the next connection.
    ///
    /// # Errors
    ///
    /// [`TransportError::ListenerClosed`] once closed, or a transport failure.
    async fn accept(&self) -> Result<Arc<dyn Connection>, TransportError>;

    /// A URL clients can pass to [`crate::connect`]: the bound address (with the real port when
    /// 0 was asked for) and, for QUIC, the certificate fingerprint to pin, or for `wss`, the
    /// certificate file to trust (`?ca=`, readable on this machine). A listener bound to
    /// every interface (`0.0.0.0`, `::`) gives the loopback address, which works from this
    /// machine; clients elsewhere use this machine's name or address with the same port.
    fn local_url(&self) -> String;

    /// Stops accepting. Connections already accepted stay open.
    fn close(&self);

    /// Waits until the listener, once [closed](Self::close), has let go of its address, so
    /// that binding it again succeeds. A listener on a socket shares it with the connections
    /// it accepted, so this also waits until those are dropped and done closing (a graceful
    /// close lingers for a few round trips). Returns at once for a listener with no socket
    /// (`mem`, whose name is free again as soon as it is closed).
    async fn closed(&self) {}

    /// Ends at once the connections that still hold the listener's socket, without waiting
    /// for their peers: for after [`close`](Self::close), once the caller has waited long
    /// enough (a UDP connection closing towards a vanished peer holds the socket until its
    /// idle timeout). Does nothing where a close never waits on the peer that long: mem,
    /// and QUIC, whose closed connections drain for a few round trips only.
    fn abort(&self) {}
}

/// Connection counters, the same for every transport (zero where one does not apply).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ConnectionStats {
    /// The current round-trip time estimate, if the transport measures one.
    pub rtt: Option<Duration>,
    /// Bytes written to the network (or channel), headers included.
    pub bytes_sent: u64,
    /// Bytes read from the network (or channel), headers included.
    pub bytes_received: u64,
    /// Frames sent.
    pub frames_sent: u64,
    /// Frames received.
    pub frames_received: u64,
    /// Packets or datagrams sent again after a loss.
    pub retransmits: u64,
}
