//! Creating the endpoint's UDP socket with enlarged kernel buffers.

use std::io;
use std::net::{SocketAddr, UdpSocket};
use std::sync::Arc;

use quinn::udp::{UdpSockRef, UdpSocketState};
use quinn::{Endpoint, EndpointConfig, ServerConfig, TokioRuntime};

/// Send and receive buffer size requested for every endpoint's socket. The kernel may cap it
/// (`net.core.rmem_max` / `wmem_max` on Linux), which is not an error.
const SOCKET_BUFFER_SIZE: usize = 4 * 1024 * 1024;

/// Binds `addr` and starts a quinn endpoint on it: a server if `server` is given.
pub(crate) fn endpoint(addr: SocketAddr, server: Option<ServerConfig>) -> io::Result<Endpoint> {
    Endpoint::new(
        EndpointConfig::default(),
        server,
        bind(addr)?,
        Arc::new(TokioRuntime),
    )
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
