//! "Host a game": a relay inside the GUI process, for two players on a local network.

use std::net::{IpAddr, Ipv4Addr, SocketAddr, UdpSocket};
use std::path::PathBuf;
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::mpsc::SendError;

use tokio::task::JoinHandle;
use xq_server::{Server, StartError};
use xq_transport::{Address, Options, Verify};

use crate::{Network, Pending};

/// Tells the in-process listeners of several hosted relays apart.
static HOSTED: AtomicU32 = AtomicU32::new(0);

/// Where a hosted relay listens, and where it keeps its QUIC certificate.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HostConfig {
    /// The address to bind: every interface by default, so the opponent can reach it.
    pub ip: IpAddr,
    /// The UDP port (0: any free port).
    pub udp_port: u16,
    /// The QUIC port (0: any free port).
    pub quic_port: u16,
    /// Where the QUIC certificate is kept, so its fingerprint stays the same between runs.
    pub identity_dir: PathBuf,
}

/// A relay served from this process: UDP and QUIC for the opponent, and an in-process
/// listener through which this screen plays as a client like any other. Dropping it shuts
/// the relay down in the background; the [`Lobby`](crate::Lobby) instead waits for that
/// before it hosts again, as the old relay holds its ports until it is done.
#[derive(Debug)]
pub struct Host {
    server: Server,
    /// The in-process listener's URL.
    own: String,
    /// What the opponent connects to, the wildcard address replaced by this machine's.
    public: Vec<String>,
}

impl Default for HostConfig {
    /// The ports `xq-relay` uses, on every interface; the certificate in the system's
    /// temporary directory.
    fn default() -> Self {
        Self {
            ip: IpAddr::V4(Ipv4Addr::UNSPECIFIED),
            udp_port: 7878,
            quic_port: 7879,
            identity_dir: std::env::temp_dir().join("xq-gui-identity"),
        }
    }
}

/// A relay being started: its result arrives through `pending`. The task ends once the relay
/// is delivered or, when `pending` is gone, once it has shut down again.
pub(crate) struct Launch {
    pub(crate) pending: Pending<Result<Host, StartError>>,
    task: JoinHandle<()>,
}

impl Launch {
    /// Gives the relay being started up: it shuts down once it is up, and the task ends when
    /// its ports are free.
    pub(crate) fn stop(self, network: &Network) -> JoinHandle<()> {
        let Self { pending, task } = self;
        network.run(async move {
            // The result waits here until the launch is over, whenever it was delivered.
            let _ = task.await;
            if let Some(Ok(host)) = pending.poll() {
                host.server.shutdown().await;
            }
        })
    }
}

impl Host {
    /// Starts a relay as `config` says, in the background.
    pub fn start(network: &Network, config: HostConfig) -> Pending<Result<Self, StartError>> {
        Self::launch(network, config, None).pending
    }

    /// Starts a relay as `config` says once `after` (a relay that held the ports) has ended.
    pub(crate) fn launch(
        network: &Network,
        config: HostConfig,
        after: Option<JoinHandle<()>>,
    ) -> Launch {
        let n = HOSTED.fetch_add(1, Ordering::Relaxed);
        let every_interface = config.ip.is_unspecified();
        let transport = Options {
            quic_identity_dir: Some(config.identity_dir),
            ..Options::default()
        };
        let builder = Server::builder()
            .transport(transport)
            .listen(format!("mem://xq-gui-host-{}-{n}", std::process::id()))
            .listen(format!(
                "udp://{}",
                SocketAddr::new(config.ip, config.udp_port)
            ))
            .listen(format!(
                "quic://{}",
                SocketAddr::new(config.ip, config.quic_port)
            ));
        let (pending, deliver) = Pending::channel();
        let task = network.run(async move {
            if let Some(previous) = after {
                // Its outcome is the old relay's business; what matters is that it is over.
                let _ = previous.await;
            }
            let started = builder.start().await.map(|server| {
                let lan = every_interface.then(lan_ip).flatten();
                // One URL per listener, in the order given: in-process first.
                let mut urls = server.local_urls().iter();
                let own = urls.next().cloned().unwrap_or_default();
                let public = urls.map(|url| reachable(url, lan)).collect();
                Self {
                    server,
                    own,
                    public,
                }
            });
            if let Err(SendError(Ok(host))) = deliver.send(started) {
                host.server.shutdown().await;
            }
        });
        Launch { pending, task }
    }

    /// Shuts the relay down in the background (its games end for every player); the task
    /// ends once its ports are free.
    pub(crate) fn stop(self, network: &Network) -> JoinHandle<()> {
        network.run(self.server.shutdown())
    }

    /// The URL this screen's own client connects to: in-process, never through the network.
    #[must_use]
    pub fn own_url(&self) -> &str {
        &self.own
    }

    /// The URLs to give the opponent: UDP, then QUIC with its fingerprint.
    #[must_use]
    pub fn urls(&self) -> &[String] {
        &self.public
    }

    /// The QUIC certificate's fingerprint, for an opponent who types the address by hand.
    #[must_use]
    pub fn fingerprint(&self) -> Option<String> {
        self.public.iter().find_map(|url| match url.parse() {
            Ok(Address::Quic {
                verify: Verify::Fingerprint(hex),
                ..
            }) => Some(hex),
            _ => None,
        })
    }
}

/// `url` with the loopback host, which a listener on every interface gives, replaced by
/// `lan`, this machine's address on the local network (when it listens on every interface).
fn reachable(url: &str, lan: Option<IpAddr>) -> String {
    let Some(lan) = lan else {
        return url.to_owned();
    };
    // A listener on `::` takes IPv4 too, so the LAN's IPv4 address serves either.
    let lan = match lan {
        IpAddr::V4(ip) => ip.to_string(),
        IpAddr::V6(ip) => format!("[{ip}]"),
    };
    ["://127.0.0.1:", "://[::1]:"]
        .into_iter()
        .find(|loopback| url.contains(loopback))
        .map_or_else(
            || url.to_owned(),
            |loopback| url.replacen(loopback, &format!("://{lan}:"), 1),
        )
}

/// This machine's address on the local network: the one the system would send from to a
/// public address. Connecting a UDP socket sends nothing; it only picks the route.
fn lan_ip() -> Option<IpAddr> {
    let socket = UdpSocket::bind((Ipv4Addr::UNSPECIFIED, 0)).ok()?;
    socket.connect((Ipv4Addr::new(192, 0, 2, 1), 9)).ok()?;
    let ip = socket.local_addr().ok()?.ip();
    (!ip.is_unspecified()).then_some(ip)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn loopback_hosts_become_the_lan_address() {
        let lan = Some(IpAddr::V4(Ipv4Addr::new(192, 168, 1, 20)));
        assert_eq!(
            reachable("quic://127.0.0.1:7879?fp=ab", lan),
            "quic://192.168.1.20:7879?fp=ab"
        );
        assert_eq!(
            reachable("udp://127.0.0.1:7878", None),
            "udp://127.0.0.1:7878"
        );
        assert_eq!(reachable("udp://10.0.0.5:7878", lan), "udp://10.0.0.5:7878");
    }

    /// A host on every interface of IPv6 (`::`, dual-stack) gives `[::1]` URLs, which reach
    /// only this machine: the opponent needs the LAN address there too.
    #[test]
    fn ipv6_loopback_hosts_become_the_lan_address() {
        let lan = Some(IpAddr::V4(Ipv4Addr::new(192, 168, 1, 20)));
        assert_eq!(
            reachable("quic://[::1]:7879?fp=ab", lan),
            "quic://192.168.1.20:7879?fp=ab"
        );
        assert_eq!(
            reachable("udp://[::1]:7878", lan),
            "udp://192.168.1.20:7878"
        );
    }
}
