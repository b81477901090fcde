//! How to reach the NATS servers and how this node takes part in the cluster.

use std::path::PathBuf;
use std::time::Duration;

/// How a relay node joins its cluster: the NATS servers, its own name and client URLs, and
/// the lease and replication settings every node of the cluster must agree on.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ClusterOptions {
    /// The NATS servers, as `nats://127.0.0.1:4222` or `tls://nats.example:4222`; the client
    /// tries them in turn and learns the rest of the NATS cluster from them.
    pub servers: Vec<String>,
    /// This node's name, unique in the cluster: letters, digits, `-` and `_`. A node started
    /// again under its name takes over the leases its previous process left at once.
    pub node: String,
    /// The URLs this node serves clients on, which other nodes send in their redirects.
    /// [`Cluster::set_advertise`](crate::Cluster::set_advertise) can set them once the
    /// node's listeners are bound.
    pub advertise: Vec<String>,
    /// How many NATS servers keep a copy of every stream and bucket. `None`: 3 when the NATS
    /// server is part of a cluster, else 1. The count of servers is not used: a cluster
    /// whose routes are still forming tells fewer than it has.
    pub replicas: Option<usize>,
    /// How long a room's owner may go without renewing its lease before another node may
    /// take the room over. Every node of a cluster must use the same value (the leases'
    /// bucket expires them after it).
    pub lease_ttl: Duration,
    /// How long [`Cluster::connect`](crate::Cluster::connect) may take before it fails.
    pub connect_timeout: Duration,
    /// A NATS `.creds` file (a user JWT and its nkey seed), for servers that want one.
    pub credentials: Option<PathBuf>,
    /// TLS settings beyond the system's roots, for `tls://` servers.
    pub tls: Option<ClusterTls>,
}

/// TLS settings for the NATS connection (rustls).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ClusterTls {
    /// A PEM file of CA certificates to trust besides the system's.
    pub ca: Option<PathBuf>,
    /// A client certificate chain and its private key, both PEM, for servers that verify
    /// clients.
    pub client: Option<ClientCert>,
}

/// A client certificate for mutual TLS.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ClientCert {
    /// The certificate chain, PEM.
    pub cert: PathBuf,
    /// Its private key, PEM.
    pub key: PathBuf,
}

impl Default for ClusterOptions {
    fn default() -> Self {
        Self {
            servers: Vec::new(),
            node: String::new(),
            advertise: Vec::new(),
            replicas: None,
            lease_ttl: Duration::from_secs(10),
            connect_timeout: Duration::from_secs(5),
            credentials: None,
            tls: None,
        }
    }
}

impl ClusterOptions {
    /// Options for node `node` of the cluster on `servers`, with the default settings.
    #[must_use]
    pub fn new(
        servers: impl IntoIterator<Item = impl Into<String>>,
        node: impl Into<String>,
    ) -> Self {
        Self {
            servers: servers.into_iter().map(Into::into).collect(),
            node: node.into(),
            ..Self::default()
        }
    }
}
