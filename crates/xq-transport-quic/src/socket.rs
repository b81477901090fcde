//! Creating the endpoint's UDP socket with enlarged kernel buffers, and telling when it closes.

use std::io::{self, IoSliceMut};
use std::net::{SocketAddr, UdpSocket};
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};

use quinn::udp::{RecvMeta, Transmit, UdpSockRef, UdpSocketState};
use quinn::{
    AsyncUdpSocket, Endpoint, EndpointConfig, Runtime, ServerConfig, TokioRuntime, UdpPoller,
};
use tokio::sync::watch;

/// Send and receive buffer size requested for every endpoint's socket. The kernel may cap it
/// (`net.core.rmem_max` / `wmem_max` on Linux), which is not an error.
const SOCKET_BUFFER_SIZE: usize = 4 * 1024 * 1024;

/// Waits until a [`Listener`](crate::Listener)'s socket is closed, without holding the
/// listener: see [`Listener::closed`](crate::Listener::closed). Clones wait for the same
/// socket.
#[derive(Debug, Clone)]
pub struct Closed(watch::Receiver<()>);

impl Closed {
    /// Returns once the socket is closed (at once if it is already).
    pub async fn wait(mut self) {
        // Nothing is ever sent: the socket's wrapper drops the sender, after the socket.
        while self.0.changed().await.is_ok() {}
    }
}

/// Binds `addr` and starts a quinn endpoint on it: a server if `server` is given. The
/// [`Closed`] handle tells when quinn has let go of the socket.
pub(crate) fn endpoint(
    addr: SocketAddr,
    server: Option<ServerConfig>,
) -> io::Result<(Endpoint, Closed)> {
    let runtime = Arc::new(TokioRuntime);
    let (open, closed) = watch::channel(());
    let socket = Arc::new(Socket {
        inner: runtime.wrap_udp_socket(bind(addr)?)?,
        _open: open,
    });
    let endpoint =
        Endpoint::new_with_abstract_socket(EndpointConfig::default(), server, socket, runtime)?;
    Ok((endpoint, Closed(closed)))
}

/// Binds a UDP socket with buffers of [`SOCKET_BUFFER_SIZE`].
///
/// A server's one socket receives from every client. The default buffers (about 200 KB on
/// Linux) overflow under a thousand busy connections, and every datagram the kernel drops
/// costs its connection a loss-recovery timeout, which backs off to seconds.
fn bind(addr: SocketAddr) -> io::Result<UdpSocket> {
    let socket = UdpSocket::bind(addr)?;
    let state = UdpSocketState::new(UdpSockRef::from(&socket))?;
    state.set_recv_buffer_size(UdpSockRef::from(&socket), SOCKET_BUFFER_SIZE)?;
    state.set_send_buffer_size(UdpSockRef::from(&socket), SOCKET_BUFFER_SIZE)?;
    Ok(socket)
}

/// quinn's socket, which tells [`Closed`] when it is gone.
///
/// quinn shares the socket between the endpoint's driver and every connection, and closes
/// it when the last of them lets go, well after the endpoint's handles are dropped: a closed
/// connection drains for a few round trips first. Only the socket's own drop says when its
/// address is free.
#[derive(Debug)]
struct Socket {
    /// Declared first, so dropped first: the socket is closed before `_open` tells anyone.
    inner: Arc<dyn AsyncUdpSocket>,
    _open: watch::Sender<()>,
}

impl AsyncUdpSocket for Socket {
    fn create_io_poller(self: Arc<Self>) -> Pin<Box<dyn UdpPoller>> {
        Box::pin(Poller {
            inner: Arc::clone(&self.inner).create_io_poller(),
            _socket: self,
        })
    }

    fn try_send(&self, transmit: &Transmit<'_>) -> io::Result<()> {
        self.inner.try_send(transmit)
    }

    fn poll_recv(
        &self,
        cx: &mut Context<'_>,
        bufs: &mut [IoSliceMut<'_>],
        meta: &mut [RecvMeta],
    ) -> Poll<io::Result<usize>> {
        self.inner.poll_recv(cx, bufs, meta)
    }

    fn local_addr(&self) -> io::Result<SocketAddr> {
        self.inner.local_addr()
    }

    fn max_transmit_segments(&self) -> usize {
        self.inner.max_transmit_segments()
    }

    fn max_receive_segments(&self) -> usize {
        self.inner.max_receive_segments()
    }

    fn may_fragment(&self) -> bool {
        self.inner.may_fragment()
    }
}

/// quinn's writability poller for [`Socket`], which keeps the wrapper alive as long as the
/// socket it polls.
#[derive(Debug)]
struct Poller {
    /// Declared first, so dropped first: it holds the socket itself, which must go before
    /// the wrapper can tell that it has.
    inner: Pin<Box<dyn UdpPoller>>,
    _socket: Arc<Socket>,
}

impl UdpPoller for Poller {
    fn poll_writable(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        self.get_mut().inner.as_mut().poll_writable(cx)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn buffers_are_enlarged() -> io::Result<()> {
        let addr = SocketAddr::from(([127, 0, 0, 1], 0));
        let sizes = |socket: &UdpSocket| -> io::Result<(usize, usize)> {
            let state = UdpSocketState::new(UdpSockRef::from(socket))?;
            Ok((
                state.recv_buffer_size(UdpSockRef::from(socket))?,
                state.send_buffer_size(UdpSockRef::from(socket))?,
            ))
        };
        let (recv, send) = sizes(&bind(addr)?)?;
        let (default_recv, default_send) = sizes(&UdpSocket::bind(addr)?)?;
        // Linux doubles the request and caps it at rmem_max / wmem_max; whatever the cap, the
        // buffers are at least as large as a default socket's.
        assert!(recv >= default_recv && send >= default_send);
        Ok(())
    }
}
