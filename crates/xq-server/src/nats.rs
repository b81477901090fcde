//! The NATS JetStream cluster of `xq-cluster` as the driver's [`Directory`].

use std::time::Duration;

use tokio::sync::mpsc;
use xq_cluster::{Cluster, Location};
use xq_protocol::RoomCode;

use crate::{ClusterCounters, Directory, Located, Lookup};

#[async_trait::async_trait]
impl Directory for Cluster {
    async fn claim(&self, code: RoomCode) -> Result<bool, String> {
        Self::claim(self, code).await.map_err(|err| err.to_string())
    }

    async fn locate(&self, lookup: Lookup) -> Located {
        let lookup = match lookup {
            Lookup::Room(code) => xq_cluster::Lookup::Room(code),
            Lookup::Token(token) => xq_cluster::Lookup::Token(token),
        };
        match Self::locate(self, lookup).await {
            Ok(Location::Owner { urls, .. }) => Located::Elsewhere(urls),
            Ok(Location::Taken(room)) => Located::Here(room),
            Ok(Location::Nowhere) => Located::Nowhere,
            Ok(Location::Settling) => Located::Settling,
            Err(err) => {
                tracing::warn!(%err, "cannot look a room up in the cluster");
                Located::Unreachable
            }
        }
    }

    async fn orphans(&self) -> Result<Vec<RoomCode>, String> {
        Self::orphans(self).await.map_err(|err| err.to_string())
    }

    async fn close(&self) {
        Self::close(self).await;
    }

    fn lost_rooms(&self) -> mpsc::UnboundedReceiver<RoomCode> {
        Self::lost_rooms(self)
    }

    fn listening_on(&self, urls: &[String]) {
        // The operator's URLs, if any, are what clients elsewhere can reach.
        if Self::advertised(self).is_empty() {
            Self::set_advertise(self, urls.to_vec());
        }
    }

    fn sweep_interval(&self) -> Duration {
        Self::lease_ttl(self)
    }

    fn counters(&self) -> ClusterCounters {
        let metrics = Self::metrics(self);
        ClusterCounters {
            lease_renewals: metrics.lease_renewals,
            lease_losses: metrics.lease_losses,
            claims_won: metrics.claims_won,
            claims_lost: metrics.claims_lost,
            refused_appends: metrics.refused_appends,
        }
    }
}
