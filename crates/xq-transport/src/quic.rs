//! `quic://`: QUIC (quinn) behind the common interface.

use std::net::SocketAddr;
use std::sync::{Arc, Mutex, PoisonError};
use std::task::{Context, Poll};

use async_trait::async_trait;
use xq_transport_quic::{
    ClientConfig, Closed, Error, Fingerprint, Identity, ServerConfig, TransportConfig,
};

use crate::{
    Connection, ConnectionStats, Listener, Options, Peer, TransportError, Verify, address,
};

fn transport(options: &Options) -> TransportConfig {
    let mut config = TransportConfig::default();
    config.max_frame_size = u32::try_from(options.max_frame_size).unwrap_or(u32::MAX);
    config.idle_timeout = options.idle_timeout;
    config.keep_alive = options.keep_alive();
    config
}

/// Maps the QUIC crate's errors onto the common meanings callers branch on.
fn map(err: Error) -> TransportError {
    match err {
        Error::ClosedByPeer => TransportError::Closed,
        Error::ClosedLocally => TransportError::ClosedLocally,
        Error::TimedOut | Error::PeerGone => TransportError::ConnectionLost,
        Error::FrameTooLarge { len, max } => TransportError::FrameTooLarge {
            len,
            max: max as usize,
        },
        Error::ListenerClosed => TransportError::ListenerClosed,
        Error::SendBufferFull => TransportError::Full,
        other => TransportError::Quic(other),
    }
}

pub(crate) struct QuicConnection(xq_transport_quic::Connection);

pub(crate) async fn connect(
    url: &str,
    addr: SocketAddr,
    host: String,
    verify: Verify,
    options: &Options,
) -> Result<QuicConnection, TransportError> {
    let config = client_config(url, host, verify, options)?;
    let conn = xq_transport_quic::connect(addr, config)
        .await
        .map_err(|err| match err {
            Error::TimedOut => TransportError::Unreachable,
            other => map(other),
        })?;
    Ok(QuicConnection(conn))
}

/// The client settings of `url`, a `quic://` URL naming `host` and `verify`.
pub(crate) fn client_config(
    url: &str,
    host: String,
    verify: Verify,
    options: &Options,
) -> Result<ClientConfig, TransportError> {
    let invalid = |reason: String| TransportError::InvalidUrl {
        url: url.to_string(),
        reason,
    };
    let verify = match verify {
        Verify::Fingerprint(hex) => xq_transport_quic::Verify::Fingerprint(
            hex.parse::<Fingerprint>()
                .map_err(|e| invalid(e.to_string()))?,
        ),
        Verify::CaFile(path) => xq_transport_quic::Verify::CaFile(path),
        Verify::Insecure => xq_transport_quic::Verify::Insecure,
        Verify::Unspecified => {
            return Err(invalid(
                "say how to trust the server: ?fp=<fingerprint>, ?ca=<file> or ?insecure".into(),
            ));
        }
    };
    let mut config = ClientConfig::new(verify, host);
    config.transport = transport(options);
    Ok(config)
}

#[async_trait]
impl Connection for QuicConnection {
    async fn send(&self, frame: Vec<u8>) -> Result<(), TransportError> {
        self.0.send(frame).await.map_err(map)
    }

    fn try_send(&self, frame: Vec<u8>) -> Result<(), TransportError> {
        self.0.try_send(frame).map_err(map)
    }

    fn poll_recv(&self, cx: &mut Context<'_>) -> Poll<Result<Vec<u8>, TransportError>> {
        self.0.poll_recv(cx).map_err(map)
    }

    async fn close(&self) {
        self.0.close().await;
    }

    fn peer(&self) -> Peer {
        Peer::Socket(self.0.peer_addr())
    }

    fn stats(&self) -> ConnectionStats {
        let s = self.0.stats();
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

/// A QUIC listener. Closing it lets go of the transport's listener, so that quinn closes the
/// socket once the connections it accepted are done with it too.
pub(crate) struct QuicListener {
    listener: Mutex<Option<Arc<xq_transport_quic::Listener>>>,
    local_url: String,
    socket: Closed,
}

/// Binds a QUIC listener with the certificate kept in [`Options::quic_identity_dir`] (made on
/// first start), or one made for it alone. A certificate made here is valid for `localhost`,
/// the host it listens on and the address its URL gives; one already kept keeps the names it
/// was made with (remove the directory's files to make a new one).
pub(crate) async fn listen(
    addr: SocketAddr,
    host: String,
    options: &Options,
) -> Result<QuicListener, TransportError> {
    // On every interface the URL gives the loopback address, which a client that checks the
    // certificate's names (`?ca=`) connects to and must find there.
    let reachable = address::reachable(addr).ip().to_string();
    let names = ["localhost", host.as_str(), reachable.as_str()];
    let identity = match &options.quic_identity_dir {
        Some(dir) => Identity::load_or_generate(dir, &names)?,
        None => Identity::ephemeral(&names)?,
    };
    let mut config = ServerConfig::new(identity);
    config.transport = transport(options);
    let listener = xq_transport_quic::Listener::bind(addr, config)
        .await
        .map_err(map)?;
    Ok(QuicListener {
        local_url: format!(
            "quic://{}?fp={}",
            address::reachable(listener.local_addr()),
            listener.fingerprint()
        ),
        socket: listener.closed(),
        listener: Mutex::new(Some(Arc::new(listener))),
    })
}

impl QuicListener {
    fn listener(&self) -> Option<Arc<xq_transport_quic::Listener>> {
        self.listener
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }
}

#[async_trait]
impl Listener for QuicListener {
    async fn accept(&self) -> Result<Arc<dyn Connection>, TransportError> {
        let listener = self.listener().ok_or(TransportError::ListenerClosed)?;
        let conn = listener.accept().await.map_err(map)?;
        Ok(Arc::new(QuicConnection(conn)))
    }

    fn local_url(&self) -> String {
        self.local_url.clone()
    }

    fn close(&self) {
        let listener = self
            .listener
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .take();
        // A pending `accept` holds a clone: closing wakes it, and it lets go.
        if let Some(listener) = listener {
            listener.close();
        }
    }

    async fn closed(&self) {
        self.socket.clone().wait().await;
    }
}
