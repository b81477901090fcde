//! `udp://`: xq's reliable UDP behind the common interface.

use std::net::{Ipv4Addr, Ipv6Addr, SocketAddr};
use std::sync::{Arc, Mutex, PoisonError};
use std::task::{Context, Poll};

use async_trait::async_trait;
use tokio::sync::watch;
use xq_transport_udp::proto::{ConnectionError, SendError};
use xq_transport_udp::{Closed, Config, Endpoint, Error};

use crate::{Connection, ConnectionStats, Listener, Options, Peer, TransportError, address};

fn config(options: &Options) -> Config {
    Config {
        max_frame_size: options.max_frame_size,
        idle_timeout: options.idle_timeout,
        keep_alive_interval: Some(options.keep_alive()),
        ..Config::default()
    }
}

/// Maps the UDP crate's errors onto the common meanings callers branch on.
fn map(err: Error) -> TransportError {
    match err {
        Error::Connection(ConnectionError::ClosedByPeer) => TransportError::Closed,
        Error::Connection(ConnectionError::LocallyClosed) | Error::Send(SendError::Closed) => {
            TransportError::ClosedLocally
        }
        Error::Connection(ConnectionError::TimedOut) => TransportError::ConnectionLost,
        Error::Send(SendError::QueueFull) => TransportError::Full,
        Error::Send(SendError::FrameTooLarge { size, max }) => {
            TransportError::FrameTooLarge { len: size, max }
        }
        other => TransportError::Udp(other),
    }
}

/// A UDP connection; a client's owns its endpoint (socket and driver).
pub(crate) struct UdpConnection {
    inner: xq_transport_udp::Connection,
    /// Boxed: a server holds thousands of connections, none of which owns an endpoint, and
    /// the box keeps each at 16 bytes where the endpoint inline would make it 48.
    _endpoint: Option<Box<Endpoint>>,
}

pub(crate) async fn connect(
    addr: SocketAddr,
    options: &Options,
) -> Result<UdpConnection, TransportError> {
    let local: SocketAddr = if addr.is_ipv4() {
        (Ipv4Addr::UNSPECIFIED, 0).into()
    } else {
        (Ipv6Addr::UNSPECIFIED, 0).into()
    };
    let endpoint = Endpoint::bind(local, config(options)).await.map_err(map)?;
    let inner = endpoint.connect(addr).await.map_err(|err| match err {
        Error::Connection(ConnectionError::TimedOut) => TransportError::Unreachable,
        other => map(other),
    })?;
    Ok(UdpConnection {
        inner,
        _endpoint: Some(Box::new(endpoint)),
    })
}

#[async_trait]
impl Connection for UdpConnection {
    async fn send(&self, frame: Vec<u8>) -> Result<(), TransportError> {
        self.inner.send(frame).await.map_err(map)
    }

    fn try_send(&self, frame: Vec<u8>) -> Result<(), TransportError> {
        self.inner.try_send(frame).map_err(map)
    }

    fn poll_recv(&self, cx: &mut Context<'_>) -> Poll<Result<Vec<u8>, TransportError>> {
        self.inner.poll_recv(cx).map_err(map)
    }

    async fn close(&self) {
        self.inner.close().await;
    }

    fn peer(&self) -> Peer {
        Peer::Socket(self.inner.peer_addr())
    }

    fn stats(&self) -> ConnectionStats {
        let s = self.inner.stats();
        ConnectionStats {
            rtt: Some(s.rtt),
            bytes_sent: s.bytes_sent,
            bytes_received: s.bytes_received,
            frames_sent: s.frames_sent,
            frames_received: s.frames_received,
            retransmits: s.retransmits,
        }
    }
}

/// A UDP listener: one endpoint serving every client.
///
/// The socket is shared with the accepted connections, so closing the listener only lets go of
/// the endpoint: once no `accept` holds it either, it stops accepting while its connections
/// carry on ([`Endpoint::close`] would end them all).
pub(crate) struct UdpListener {
    endpoint: Mutex<Option<Arc<Endpoint>>>,
    local_addr: SocketAddr,
    closed: watch::Sender<bool>,
    /// Waits for the endpoint's socket, which outlives the listener's endpoint handle.
    socket: Closed,
}

pub(crate) async fn listen(
    addr: SocketAddr,
    options: &Options,
) -> Result<UdpListener, TransportError> {
    let endpoint = Endpoint::bind(addr, config(options)).await.map_err(map)?;
    Ok(UdpListener {
        local_addr: endpoint.local_addr(),
        socket: endpoint.closed(),
        endpoint: Mutex::new(Some(Arc::new(endpoint))),
        closed: watch::Sender::new(false),
    })
}

impl UdpListener {
    fn endpoint(&self) -> Option<Arc<Endpoint>> {
        self.endpoint
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }
}

#[async_trait]
impl Listener for UdpListener {
    async fn accept(&self) -> Result<Arc<dyn Connection>, TransportError> {
        let mut closed = self.closed.subscribe();
        let endpoint = self.endpoint().ok_or(TransportError::ListenerClosed)?;
        let accepted = tokio::select! {
            accepted = endpoint.accept() => accepted,
            _ = closed.wait_for(|closed| *closed) => return Err(TransportError::ListenerClosed),
        };
        match accepted {
            Ok(inner) => Ok(Arc::new(UdpConnection {
                inner,
                _endpoint: None,
            })),
            Err(Error::EndpointClosed) => Err(TransportError::ListenerClosed),
            Err(other) => Err(map(other)),
        }
    }

    fn local_url(&self) -> String {
        format!("udp://{}", address::reachable(self.local_addr))
    }

    fn close(&self) {
        self.endpoint
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .take();
        self.closed.send_replace(true);
    }

    async fn closed(&self) {
        self.socket.clone().wait().await;
    }

    fn abort(&self) {
        self.socket.abort();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A short idle timeout must not outrun the keep-alives, or quiet live links would die.
    #[test]
    fn keep_alives_follow_the_idle_timeout() {
        for secs in [0.4, 8.0, 60.0] {
            let idle_timeout = std::time::Duration::from_secs_f64(secs);
            let options = Options {
                idle_timeout,
                ..Options::default()
            };
            let keep_alive = config(&options).keep_alive_interval.unwrap_or_default();
            assert!(
                !keep_alive.is_zero() && keep_alive * 3 <= idle_timeout,
                "a keep-alive every {keep_alive:?} for an idle timeout of {idle_timeout:?}"
            );
        }
    }

    #[test]
    fn a_server_connection_stays_small() {
        // A relay holds two per match; see `UdpConnection::_endpoint`.
        assert!(
            size_of::<UdpConnection>() <= 16,
            "{}",
            size_of::<UdpConnection>()
        );
    }
}
