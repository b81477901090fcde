//! The clients' connections to the relay: over xq's UDP or QUIC, many clients to a socket; over
//! WebSocket, a TCP connection each, as browsers have.

use std::net::{Ipv4Addr, Ipv6Addr, SocketAddr};
use std::sync::Arc;

use anyhow::{Context, Result};
use tokio::sync::Semaphore;
use xq_transport::{Connection, Options};
use xq_transport_quic::{ClientConfig, ClientEndpoint};
use xq_transport_udp::{Config as UdpConfig, Endpoint};

/// How a client reaches the relay: on a socket that other clients share.
#[derive(Clone)]
pub(crate) enum Dialer {
    /// Over xq's UDP.
    Udp {
        endpoint: Arc<Endpoint>,
        relay: SocketAddr,
    },
    /// Over QUIC.
    Quic {
        endpoint: Arc<ClientEndpoint>,
        relay: SocketAddr,
        config: Arc<ClientConfig>,
    },
    /// Over WebSocket (`ws://` or `wss://`), each client on a connection of its own.
    Ws {
        url: Arc<str>,
        /// Handshakes under way. The relay closes at once the connections one address holds
        /// that are not upgraded yet past a bound (16 by default), so the clients, who all
        /// come from one address, dial a few at a time.
        dialing: Arc<Semaphore>,
    },
}

impl Dialer {
    /// `sockets` sockets for UDP clients of the relay at `host:port`.
    pub(crate) async fn udp(host: &str, port: u16, sockets: usize) -> Result<Vec<Self>> {
        let relay = tokio::net::lookup_host((host, port))
            .await?
            .next()
            .with_context(|| format!("{host} has no address"))?;
        let mut dialers = Vec::new();
        for _ in 0..sockets {
            let endpoint = Endpoint::bind(unspecified(relay), UdpConfig::default()).await?;
            dialers.push(Self::Udp {
                endpoint: Arc::new(endpoint),
                relay,
            });
        }
        Ok(dialers)
    }

    /// `sockets` sockets for QUIC clients of the relay at `url`.
    pub(crate) async fn quic(url: &str, sockets: usize) -> Result<Vec<Self>> {
        let (relay, config) = xq_transport::quic_client(url, &Options::default()).await?;
        let config = Arc::new(config);
        let mut dialers = Vec::new();
        for _ in 0..sockets {
            dialers.push(Self::Quic {
                endpoint: Arc::new(ClientEndpoint::bind(unspecified(relay))?),
                relay,
                config: Arc::clone(&config),
            });
        }
        Ok(dialers)
    }

    /// A dialer of WebSocket clients of the relay at `url`.
    pub(crate) fn ws(url: &str) -> Vec<Self> {
        vec![Self::Ws {
            url: url.into(),
            dialing: Arc::new(Semaphore::new(WS_HANDSHAKES)),
        }]
    }

    /// Opens a connection to the relay.
    pub(crate) async fn connect(&self) -> Result<Link> {
        Ok(match self {
            Self::Udp { endpoint, relay } => {
                let conn = endpoint
                    .connect(*relay)
                    .await
                    .with_context(|| format!("connecting to udp://{relay}"))?;
                Link::Udp(conn)
            }
            Self::Quic {
                endpoint,
                relay,
                config,
            } => {
                let conn = endpoint
                    .connect(*relay, config)
                    .await
                    .with_context(|| format!("connecting to quic://{relay}"))?;
                Link::Quic(conn)
            }
            Self::Ws { url, dialing } => {
                let _turn = dialing.acquire().await?;
                let conn = xq_transport::connect(url, &Options::default())
                    .await
                    .with_context(|| format!("connecting to {url}"))?;
                Link::Ws(conn)
            }
        })
    }
}

/// How many WebSocket handshakes run at once: half the relay's default bound on connections
/// from one address that are not upgraded yet.
const WS_HANDSHAKES: usize = 8;

/// The unspecified address of `relay`'s family, any port.
fn unspecified(relay: SocketAddr) -> SocketAddr {
    if relay.is_ipv4() {
        (Ipv4Addr::UNSPECIFIED, 0).into()
    } else {
        (Ipv6Addr::UNSPECIFIED, 0).into()
    }
}

/// A client's connection, by any dialer: frames of bytes both ways.
pub(crate) enum Link {
    Udp(xq_transport_udp::Connection),
    Quic(xq_transport_quic::Connection),
    Ws(Arc<dyn Connection>),
}

impl Link {
    pub(crate) async fn send(&self, frame: Vec<u8>) -> Result<()> {
        match self {
            Self::Udp(conn) => conn.send(frame).await?,
            Self::Quic(conn) => conn.send(frame).await?,
            Self::Ws(conn) => conn.send(frame).await?,
        }
        Ok(())
    }

    pub(crate) async fn recv(&self) -> Result<Vec<u8>> {
        Ok(match self {
            Self::Udp(conn) => conn.recv().await?,
            Self::Quic(conn) => conn.recv().await?,
            Self::Ws(conn) => conn.recv().await?,
        })
    }

    pub(crate) async fn close(&self) {
        match self {
            Self::Udp(conn) => conn.close().await,
            Self::Quic(conn) => conn.close().await,
            Self::Ws(conn) => conn.close().await,
        }
    }
}
