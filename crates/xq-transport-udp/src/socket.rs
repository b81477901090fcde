//! The UDP socket: created with enlarged kernel buffers, and sent to in batches.

use std::io;
use std::net::SocketAddr;

use socket2::{Domain, Protocol, Socket, Type};
use tokio::net::UdpSocket;

use crate::proto::Transmit;

/// The most datagrams handed to the kernel at once.
pub(crate) const SEND_BATCH: usize = 32;

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

/// Sends the first datagrams of `batch` (at most [`SEND_BATCH`]) without waiting, and says
/// how many went. An error is the first datagram's: it was not sent.
///
/// A relay under load sends tens of datagrams per wake-up, and on a virtual machine each
/// system call costs about as much as the kernel's work for a small datagram: on Linux one
/// `sendmmsg` carries the whole batch.
pub(crate) fn try_send(socket: &UdpSocket, batch: &[Transmit]) -> io::Result<usize> {
    send_many(socket, &batch[..batch.len().min(SEND_BATCH)])
}

#[cfg(target_os = "linux")]
fn send_many(socket: &UdpSocket, batch: &[Transmit]) -> io::Result<usize> {
    use std::io::IoSlice;

    use rustix::net::addr::SocketAddrArg;
    use rustix::net::{MMsgHdr, SendAncillaryBuffer, SendFlags, SocketAddrAny};
    use tokio::io::Interest;

    let addrs: Vec<SocketAddrAny> = batch.iter().map(|t| t.destination.as_any()).collect();
    let slices: Vec<[IoSlice<'_>; 1]> = batch.iter().map(|t| [IoSlice::new(&t.contents)]).collect();
    // Datagrams carry no ancillary data; each message borrows an empty buffer of its own.
    let mut controls: Vec<SendAncillaryBuffer<'_, '_, '_>> = batch
        .iter()
        .map(|_| SendAncillaryBuffer::default())
        .collect();
    let mut messages: Vec<MMsgHdr<'_>> = addrs
        .iter()
        .zip(&slices)
        .zip(&mut controls)
        .map(|((addr, slice), control)| MMsgHdr::new_with_addr(addr, slice, control))
        .collect();
    // Through tokio, so that a full buffer clears the socket's readiness and the driver
    // waits for it to be writable.
    socket.try_io(Interest::WRITABLE, || {
        rustix::net::sendmmsg(socket, &mut messages, SendFlags::empty()).map_err(io::Error::from)
    })
}

#[cfg(not(target_os = "linux"))]
fn send_many(socket: &UdpSocket, batch: &[Transmit]) -> io::Result<usize> {
    let mut sent = 0;
    for transmit in batch {
        match socket.try_send_to(&transmit.contents, transmit.destination) {
            Ok(_) => sent += 1,
            Err(error) if sent == 0 => return Err(error),
            Err(_) => break,
        }
    }
    Ok(sent)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn transmit(destination: SocketAddr, byte: u8) -> Transmit {
        Transmit {
            destination,
            contents: vec![byte; 3],
        }
    }

    fn local() -> SocketAddr {
        SocketAddr::from(([127, 0, 0, 1], 0))
    }

    #[tokio::test]
    async fn a_batch_goes_out_whole_and_in_order() -> io::Result<()> {
        let sender = bind(local(), 1 << 20)?;
        let receivers = [bind(local(), 1 << 20)?, bind(local(), 1 << 20)?];
        let addrs = [receivers[0].local_addr()?, receivers[1].local_addr()?];
        // Like every `try_` call, it needs the socket known to be writable.
        sender.writable().await?;
        let batch: Vec<Transmit> = (0..40u8)
            .map(|i| transmit(addrs[usize::from(i % 2)], i))
            .collect();
        assert_eq!(try_send(&sender, &batch)?, SEND_BATCH);
        assert_eq!(try_send(&sender, &batch[SEND_BATCH..])?, 40 - SEND_BATCH);
        let mut buf = [0; 16];
        for i in 0..40u8 {
            let (len, from) = receivers[usize::from(i % 2)].recv_from(&mut buf).await?;
            assert_eq!((&buf[..len], from), (&[i; 3][..], sender.local_addr()?));
        }
        Ok(())
    }

    #[tokio::test]
    async fn only_the_first_datagram_fails_the_call() -> io::Result<()> {
        let sender = bind(local(), 1 << 20)?;
        let receiver = bind(local(), 1 << 20)?;
        let good = receiver.local_addr()?;
        // An IPv6 destination cannot be reached from an IPv4 socket.
        let bad = SocketAddr::from((std::net::Ipv6Addr::LOCALHOST, good.port()));
        sender.writable().await?;
        assert!(try_send(&sender, &[transmit(bad, 1), transmit(good, 2)]).is_err());
        let batch = [transmit(good, 3), transmit(bad, 4), transmit(good, 5)];
        assert_eq!(try_send(&sender, &batch)?, 1);
        let mut buf = [0; 16];
        let (len, _) = receiver.recv_from(&mut buf).await?;
        assert_eq!(&buf[..len], [3; 3]);
        Ok(())
    }

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
