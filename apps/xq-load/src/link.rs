//! The clients' connections to the relay: over xq's UDP or QUIC, many clients to a socket; over
//! WebSocket, a TCP connection each, as browsers have. A run against a relay cluster reaches
//! every node through the same sockets ([`Nodes`]), and a client the cluster redirects dials
//! the room's owner on its own socket ([`Dialer::redirect`]).

use std::net::{Ipv4Addr, Ipv6Addr, SocketAddr};
use std::sync::Arc;

use anyhow::{Context, Result, bail, ensure};
use tokio::sync::Semaphore;
use xq_client::Relays;
use xq_transport::{Address, Connection, Options};
use xq_transport_quic::{ClientConfig, ClientEndpoint};
use xq_transport_udp::{Config as UdpConfig, Endpoint};

/// The transport a run goes over. Every node of a run is reached over the same one, since
/// the clients share their sockets across the nodes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Transport {
    /// xq's reliable UDP.
    Udp,
    /// QUIC.
    Quic,
    /// WebSocket.
    Ws,
    /// WebSocket over TLS.
    Wss,
}

impl Transport {
    /// The transport of `url`.
    ///
    /// # Errors
    ///
    /// A URL that does not parse, or one that cannot reach a relay in another process.
    pub(crate) fn of(url: &str) -> Result<Self> {
        Ok(match url.parse::<Address>()? {
            Address::Udp { .. } => Self::Udp,
            Address::Quic { .. } => Self::Quic,
            Address::Ws { .. } => Self::Ws,
            Address::Wss { .. } => Self::Wss,
            Address::Mem { .. } => bail!(
                "mem:// reaches only listeners inside the same process: give the relay's udp://, \
                 quic:// or ws:// URL"
            ),
            _ => bail!("unsupported transport in {url}"),
        })
    }

    /// Its URL scheme, which the report names it by.
    pub(crate) const fn name(self) -> &'static str {
        match self {
            Self::Udp => "udp",
            Self::Quic => "quic",
            Self::Ws => "ws",
            Self::Wss => "wss",
        }
    }
}

/// How a client reaches one relay node: on a socket that other clients share.
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
        /// [`Transport::Ws`] or [`Transport::Wss`], as `url` says.
        transport: Transport,
        /// Handshakes under way. The relay closes at once the connections one address holds
        /// that are not upgraded yet past a bound (16 by default), so the clients, who all
        /// come from one address, dial a few at a time.
        dialing: Arc<Semaphore>,
    },
}

impl Dialer {
    /// Dialers of the relay at `url` on `sockets` new sockets (over WebSocket, one dialer:
    /// each connection is a socket of its own).
    pub(crate) async fn bind(url: &str, sockets: usize) -> Result<Vec<Self>> {
        Ok(match Transport::of(url)? {
            Transport::Udp => {
                let relay = udp_relay(url).await?;
                let mut dialers = Vec::new();
                for _ in 0..sockets {
                    let endpoint = Endpoint::bind(unspecified(relay), UdpConfig::default()).await?;
                    dialers.push(Self::Udp {
                        endpoint: Arc::new(endpoint),
                        relay,
                    });
                }
                dialers
            }
            Transport::Quic => {
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
                dialers
            }
            transport @ (Transport::Ws | Transport::Wss) => vec![Self::Ws {
                url: url.into(),
                transport,
                dialing: Arc::new(Semaphore::new(WS_HANDSHAKES)),
            }],
        })
    }

    /// The transport it dials over.
    pub(crate) const fn transport(&self) -> Transport {
        match self {
            Self::Udp { .. } => Transport::Udp,
            Self::Quic { .. } => Transport::Quic,
            Self::Ws { transport, .. } => *transport,
        }
    }

    /// A dialer of the relay at `url` on this dialer's socket.
    ///
    /// # Errors
    ///
    /// A URL of another transport than this dialer's, or one that does not resolve.
    pub(crate) async fn to(&self, url: &str) -> Result<Self> {
        let transport = Transport::of(url)?;
        ensure!(
            transport == self.transport(),
            "{url} is not a {}:// URL: the relays of a run share one transport",
            self.transport().name()
        );
        Ok(match self {
            Self::Udp { endpoint, .. } => Self::Udp {
                endpoint: Arc::clone(endpoint),
                relay: udp_relay(url).await?,
            },
            Self::Quic { endpoint, .. } => {
                let (relay, config) = xq_transport::quic_client(url, &Options::default()).await?;
                Self::Quic {
                    endpoint: Arc::clone(endpoint),
                    relay,
                    config: Arc::new(config),
                }
            }
            Self::Ws { dialing, .. } => Self::Ws {
                url: url.into(),
                transport,
                dialing: Arc::clone(dialing),
            },
        })
    }

    /// A dialer of the node a relay redirected a client to, on this dialer's socket: the
    /// first of the owner's `urls` over this dialer's transport (a node advertises a URL per
    /// listener, and the clients of a run share sockets of one transport).
    ///
    /// # Errors
    ///
    /// None of `urls` is over this dialer's transport, or the one that is does not resolve.
    pub(crate) async fn redirect(&self, urls: &[String]) -> Result<Self> {
        let transport = self.transport();
        let url = urls
            .iter()
            .find(|url| Transport::of(url).is_ok_and(|of| of == transport))
            .with_context(|| {
                format!(
                    "redirected to {urls:?}, none of them over {}",
                    transport.name()
                )
            })?;
        self.to(url).await
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
            Self::Ws { url, dialing, .. } => {
                let _turn = dialing.acquire().await?;
                let conn = xq_transport::connect(url, &Options::default())
                    .await
                    .with_context(|| format!("connecting to {url}"))?;
                Link::Ws(conn)
            }
        })
    }
}

/// The relay nodes of a run, each reached through every shared socket.
pub(crate) struct Nodes {
    /// `dialers[node][socket]`: every node has a dialer on each socket, in the same order.
    dialers: Vec<Vec<Dialer>>,
}

impl Nodes {
    /// Binds `sockets` sockets (one dialer over WebSocket) to reach every relay of `relays`.
    ///
    /// # Errors
    ///
    /// A URL that cannot reach a relay in another process, relays over different transports,
    /// and sockets that cannot be bound.
    pub(crate) async fn bind(relays: &Relays, sockets: usize) -> Result<Self> {
        let mut urls = relays.iter();
        let first = urls.next().context("no relay URL given")?;
        let mut dialers = vec![Dialer::bind(first, sockets).await?];
        for url in urls {
            let mut node = Vec::with_capacity(dialers[0].len());
            for dialer in &dialers[0] {
                node.push(dialer.to(url).await?);
            }
            dialers.push(node);
        }
        Ok(Self { dialers })
    }

    /// The transport of every node.
    pub(crate) fn transport(&self) -> Transport {
        self.dialers[0][0].transport()
    }

    /// How many nodes there are (at least one).
    pub(crate) fn len(&self) -> usize {
        self.dialers.len()
    }

    /// The dialers of the two clients of match `index` of `matches`: the creator's reaches
    /// node `index mod n` and the joiner's the next node, round the list, so that in a
    /// cluster every join is asked of a node that does not own the room, and redirected.
    /// Clients 2·index and 2·index + 1 are neighbours and share a socket, whatever their node.
    pub(crate) fn seat(&self, index: usize, matches: usize) -> [Dialer; 2] {
        let nodes = self.len();
        let sockets = self.dialers[0].len();
        let socket = |client: usize| client * sockets / (2 * matches);
        let [creator, joiner] = seat_nodes(index, nodes);
        [
            self.dialers[creator][socket(2 * index)].clone(),
            self.dialers[joiner][socket(2 * index + 1)].clone(),
        ]
    }
}

/// The nodes, of `nodes`, that the creator and the joiner of match `index` connect to: see
/// [`Nodes::seat`].
fn seat_nodes(index: usize, nodes: usize) -> [usize; 2] {
    [index % nodes, (index + 1) % nodes]
}

/// How many WebSocket handshakes run at once: half the relay's default bound on connections
/// from one address that are not upgraded yet.
const WS_HANDSHAKES: usize = 8;

/// The socket address of the `udp://` relay at `url`.
async fn udp_relay(url: &str) -> Result<SocketAddr> {
    let Address::Udp { host, port } = url.parse::<Address>()? else {
        bail!("{url} is not a udp:// URL");
    };
    tokio::net::lookup_host((host.as_str(), port))
        .await?
        .next()
        .with_context(|| format!("{host} has no address"))
}

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

#[cfg(test)]
mod tests {
    use super::*;

    /// One node takes both clients of every match; with several, the joiner is always on
    /// another node than the creator (so every join is redirected), and the creators are
    /// spread evenly.
    #[test]
    fn matches_are_split_across_the_nodes() {
        assert!((0..10).all(|index| seat_nodes(index, 1) == [0, 0]));
        for nodes in 2..5 {
            let mut creators = vec![0; nodes];
            for index in 0..nodes * 10 {
                let [creator, joiner] = seat_nodes(index, nodes);
                assert_ne!(creator, joiner, "{nodes} nodes, match {index}");
                assert!(joiner < nodes);
                creators[creator] += 1;
            }
            assert_eq!(creators, vec![10; nodes]);
        }
    }

    #[test]
    fn names_the_transport_of_a_url() -> Result<()> {
        assert_eq!(Transport::of("udp://127.0.0.1:1")?, Transport::Udp);
        assert_eq!(Transport::of("ws://127.0.0.1:1")?, Transport::Ws);
        let Err(err) = Transport::of("mem://relay") else {
            panic!("mem:// was accepted");
        };
        assert!(err.to_string().contains("same process"), "{err}");
        Ok(())
    }

    /// A redirect is followed over the client's own transport, on its own socket: the first
    /// of the owner's URLs that goes over it.
    #[tokio::test]
    async fn a_redirect_takes_the_first_url_of_the_same_transport() -> Result<()> {
        let [dialer] = &Dialer::bind("udp://127.0.0.1:7000", 1).await?[..] else {
            panic!("one socket, one dialer");
        };
        let Dialer::Udp {
            endpoint: socket, ..
        } = dialer
        else {
            panic!("a udp:// URL makes a udp dialer");
        };
        let urls = [
            "quic://127.0.0.1:7001?fp=00".to_string(),
            "udp://127.0.0.1:7002".to_string(),
            "udp://127.0.0.1:7003".to_string(),
        ];
        let Dialer::Udp { endpoint, relay } = dialer.redirect(&urls).await? else {
            panic!("a udp dialer redirects over udp");
        };
        assert_eq!(relay, "127.0.0.1:7002".parse()?);
        assert!(Arc::ptr_eq(&endpoint, socket), "the same socket");
        assert!(dialer.redirect(&urls[..1]).await.is_err());
        assert!(dialer.to("ws://127.0.0.1:7004").await.is_err());
        Ok(())
    }
}
