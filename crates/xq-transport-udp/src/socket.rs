//! Creating the UDP socket with enlarged kernel buffers.

use std::io;
use std::net::SocketAddr;

use socket2::{Domain, Protocol, Socket, Type};
use tokio::net::UdpSocket;

/// Binds a non-blocking UDP socket with send and receive buffers of `buffer_size` bytes.
///
/// Bursts of datagrams overflow the default buffers (a few hundred KB on Linux) and the kernel
/// drops them silently; larger buffers keep retransmissions for real losses. The kernel may cap
/// the size, which is not an error.
pub(crate) fn bind(addr: SocketAddr, buffer_size: usize) -> io::Result<UdpSocket> {
    let socket = Socket::new(Domain::for_address(addr), Type::DGRAM, Some(Protocol::UDP))?;
    socket.set_recv_buffer_size(buffer_size)?;
    socket.set_send_buffer_size(buffer_size)?;
    socket.set_nonblocking(true)?;
    socket.bind(&addr.into())?;
    UdpSocket::from_std(socket.into())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn buffers_are_enlarged() -> io::Result<()> {
        let size = 4 * 1024 * 1024;
        let socket = Socket::from(bind(SocketAddr::from(([127, 0, 0, 1], 0)), size)?.into_std()?);
        let default = Socket::new(Domain::IPV4, Type::DGRAM, None)?;
        // Linux doubles the request and caps it at rmem_max / wmem_max; whatever the cap, the
        // buffers are at least as large as a default socket's.
        assert!(socket.recv_buffer_size()? >= default.recv_buffer_size()?);
        assert!(socket.send_buffer_size()? >= default.send_buffer_size()?);
        Ok(())
    }
}
