//! `ws://` and `wss://`: WebSocket behind the common interface.

use std::net::SocketAddr;
use std::task::{Context, Poll};

use async_trait::async_trait;
use xq_transport_ws::{ClientConfig, Error, ServerConfig, ServerTls, TransportConfig};

use crate::{
    Connection, ConnectionStats, Listener, Options, Peer, TransportError, Verify, address,
};

fn transport(options: &Options) -> TransportConfig {
    let mut config = TransportConfig::default();
    config.max_frame_size = options.max_frame_size;
    config.idle_timeout = options.idle_timeout;
    config.keep_alive = options.keep_alive();
    config
}

/// Maps the WebSocket crate's errors onto the common meanings callers branch on.
fn map(err: Error) -> TransportError {
    match err {
        Error::ClosedByPeer => TransportError::Closed,
        Error::ClosedLocally => TransportError::ClosedLocally,
        Error::TimedOut | Error::ConnectionLost => TransportError::ConnectionLost,
        Error::FrameTooLarge { len, max } => TransportError::FrameTooLarge { len, max },
        Error::ListenerClosed => TransportError::ListenerClosed,
        Error::SendBufferFull => TransportError::Full,
        other => TransportError::Ws(other),
    }
}

pub(crate) struct WsConnection(xq_transport_ws::Connection);

/// Connects to `addr`, the address of `host`; `tls` says how to trust a `wss` server, and
/// is `None` for `ws`.
pub(crate) async fn connect(
    url: &str,
    addr: SocketAddr,
    host: String,
    tls: Option<Verify>,
    options: &Options,
) -> Result<WsConnection, TransportError> {
    let mut config = ClientConfig::new(host);
    config.transport = transport(options);
    // As the other transports give up on a silent server after the idle timeout.
    config.handshake_timeout = options.idle_timeout;
    config.tls = match tls {
        None => None,
        Some(Verify::Unspecified) => Some(xq_transport_ws::Verify::WebPkiRoots),
        Some(Verify::CaFile(path)) => Some(xq_transport_ws::Verify::CaFile(path)),
        Some(Verify::Insecure) => Some(xq_transport_ws::Verify::Insecure),
        Some(Verify::Fingerprint(_)) => {
            return Err(TransportError::InvalidUrl {
                url: url.to_string(),
                reason: "a wss:// server is trusted with ?ca=<file> or ?insecure".to_string(),
            });
        }
    };
    let conn = xq_transport_ws::connect(addr, &config)
        .await
        .map_err(|err| match err {
            Error::Connect(_) | Error::HandshakeTimeout(_) => TransportError::Unreachable,
            other => map(other),
        })?;
    Ok(WsConnection(conn))
}

#[async_trait]
impl Connection for WsConnection {
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
            rtt: s.rtt,
            bytes_sent: s.bytes_sent,
            bytes_received: s.bytes_received,
            frames_sent: s.frames_sent,
            frames_received: s.frames_received,
            retransmits: 0,
        }
    }
}

/// A WebSocket listener, and the URL it gives clients.
pub(crate) struct WsListener {
    listener: xq_transport_ws::Listener,
    local_url: String,
}

/// Binds a WebSocket listener with [`Options::ws`]: for `wss` (`tls`), the certificate in
/// its PEM files, whose path the listener's URL gives clients on this machine to trust.
pub(crate) async fn listen(
    url: &str,
    addr: SocketAddr,
    tls: bool,
    options: &Options,
) -> Result<WsListener, TransportError> {
    let mut config = ServerConfig::new();
    config.transport = transport(options);
    config
        .allowed_origins
        .clone_from(&options.ws.allowed_origins);
    config.site.clone_from(&options.ws.site);
    let mut trust = String::new();
    if tls {
        let Some(files) = &options.ws.tls else {
            return Err(TransportError::InvalidUrl {
                url: url.to_string(),
                reason: "a wss:// listener needs a certificate and key (Options::ws.tls)"
                    .to_string(),
            });
        };
        config.tls = Some(ServerTls::from_pem_files(&files.cert, &files.key)?);
        let cert = std::path::absolute(&files.cert).unwrap_or_else(|_| files.cert.clone());
        let cert = cert.to_string_lossy();
        trust = format!(
            "?ca={}",
            url::form_urlencoded::byte_serialize(cert.as_bytes()).collect::<String>()
        );
    }
    let listener = xq_transport_ws::Listener::bind(addr, config)
        .await
        .map_err(map)?;
    let scheme = if tls { "wss" } else { "ws" };
    let local_url = format!(
        "{scheme}://{}{trust}",
        address::reachable(listener.local_addr())
    );
    Ok(WsListener {
        listener,
        local_url,
    })
}

#[async_trait]
impl Listener for WsListener {
    async fn accept(&self) -> Result<std::sync::Arc<dyn Connection>, TransportError> {
        let conn = self.listener.accept().await.map_err(map)?;
        Ok(std::sync::Arc::new(WsConnection(conn)))
    }

    fn local_url(&self) -> String {
        self.local_url.clone()
    }

    fn close(&self) {
        self.listener.close();
    }

    async fn closed(&self) {
        self.listener.closed().await;
    }
}
