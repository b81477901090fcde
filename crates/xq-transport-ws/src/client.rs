//! The client side: a TCP connection, TLS for `wss`, and the upgrade request.

use std::net::SocketAddr;
use std::sync::Arc;

use tokio::io::{AsyncRead, AsyncWrite};
use tokio::net::TcpStream;
use tokio::time::timeout;
use tokio_tungstenite::tungstenite::Error as WsError;
use tokio_tungstenite::tungstenite::client::IntoClientRequest;
use tokio_tungstenite::tungstenite::handshake::client::Request;

use crate::counted::{Counted, Counters};
use crate::{ClientConfig, Connection, Error, WS_PATH, tls};

/// Connects to the server at `remote` and upgrades to a WebSocket at
/// [`WS_PATH`](crate::WS_PATH), over TLS if [`ClientConfig::tls`] says how to trust the
/// server. A native client sends no `Origin`, so the server's origin check lets it in.
///
/// # Errors
///
/// [`Error::Connect`] if nothing listens at `remote`, [`Error::HandshakeTimeout`] if the
/// handshake takes longer than [`ClientConfig::handshake_timeout`], [`Error::TlsHandshake`]
/// if the server is not trusted, [`Error::Refused`] if it answers the upgrade with an HTTP
/// status (403 for a refused origin…), or a configuration error ([`Error::Pem`] for an
/// unreadable CA file, [`Error::ServerName`]).
pub async fn connect(remote: SocketAddr, config: &ClientConfig) -> Result<Connection, Error> {
    let limit = config.handshake_timeout;
    timeout(limit, open(remote, config))
        .await
        .unwrap_or(Err(Error::HandshakeTimeout(limit)))
}

async fn open(remote: SocketAddr, config: &ClientConfig) -> Result<Connection, Error> {
    // Settings are checked before anything is sent.
    let tls = match &config.tls {
        Some(verify) => Some((tls::client(verify)?, tls::server_name(&config.server_name)?)),
        None => None,
    };
    let request = request(remote, config)?;
    let stream = TcpStream::connect(remote).await.map_err(Error::Connect)?;
    // Frames are small and wanted at once.
    if let Err(error) = stream.set_nodelay(true) {
        tracing::debug!(%error, "cannot disable Nagle's algorithm");
    }
    let counters = Arc::new(Counters::default());
    let stream = Counted::new(stream, Arc::clone(&counters));
    match tls {
        None => upgrade(stream, request, remote, counters, config).await,
        Some((connector, name)) => {
            let stream = connector
                .connect(name, stream)
                .await
                .map_err(Error::TlsHandshake)?;
            upgrade(stream, request, remote, counters, config).await
        }
    }
}

/// The upgrade request for the endpoint at `remote`, named as the configuration names it.
fn request(remote: SocketAddr, config: &ClientConfig) -> Result<Request, Error> {
    let scheme = if config.tls.is_some() { "wss" } else { "ws" };
    let name = &config.server_name;
    // An IPv6 address goes in brackets in a URL's authority.
    let host = if name.contains(':') {
        format!("[{name}]")
    } else {
        name.clone()
    };
    let port = remote.port();
    format!("{scheme}://{host}:{port}{WS_PATH}")
        .into_client_request()
        .map_err(|_| Error::ServerName(name.clone()))
}

async fn upgrade<S>(
    stream: S,
    request: Request,
    remote: SocketAddr,
    counters: Arc<Counters>,
    config: &ClientConfig,
) -> Result<Connection, Error>
where
    S: AsyncRead + AsyncWrite + Unpin + Send + 'static,
{
    let websocket = Some(config.transport.websocket());
    let (ws, _) = tokio_tungstenite::client_async_with_config(request, stream, websocket)
        .await
        .map_err(|error| match error {
            WsError::Http(response) => Error::Refused {
                status: response.status(),
            },
            other => Error::Handshake(other),
        })?;
    Ok(Connection::start(ws, remote, counters, &config.transport))
}
