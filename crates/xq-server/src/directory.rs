//! The cluster as the driver sees it: the asynchronous half of [`crate::ClusterMode`].

use std::time::Duration;

use tokio::sync::mpsc;
use xq_protocol::RoomCode;

use crate::{ClusterCounters, Located, Lookup};

/// The shared state of a cluster of relay nodes, where the driver claims room codes, looks up
/// the rooms other nodes own and finds the rooms nobody owns any more. Its storage half is a
/// [`xq_store::Storage`] of its own, given to [`crate::Builder::storage`] beside it.
///
/// `xq-cluster`'s NATS JetStream cluster implements it (the `cluster` feature).
#[async_trait::async_trait]
pub trait Directory: Send + Sync + std::fmt::Debug + 'static {
    /// Claims `code` for a new room of this node: `Ok(true)` if it is this node's now, unique
    /// across the cluster, `Ok(false)` if another node has it.
    ///
    /// # Errors
    ///
    /// A message for the logs if the cluster could not be asked.
    async fn claim(&self, code: RoomCode) -> Result<bool, String>;

    /// Finds the room `lookup` names: another node's, or taken over by this node if nobody
    /// owns it (its lease expired), or nowhere ([`Located::Unreachable`] if the cluster
    /// could not be asked).
    async fn locate(&self, lookup: Lookup) -> Located;

    /// The rooms that have a journal and no owner: a node that died left them. The driver
    /// takes each over with [`locate`](Self::locate), so that their games go on (or end by
    /// the grace period) even if nobody comes back.
    ///
    /// # Errors
    ///
    /// A message for the logs if the cluster could not be asked.
    async fn orphans(&self) -> Result<Vec<RoomCode>, String>;

    /// Stops renewing this node's ownerships (its rooms' and the codes it claimed) and gives
    /// them up, for the other nodes to take over at once: the node is stopping, its rooms'
    /// last changes committed.
    async fn close(&self);

    /// The rooms whose ownership this node lost (it could not renew it in time, or another
    /// node holds it): each is given up ([`crate::Relay::evict`]). Called once, at start.
    fn lost_rooms(&self) -> mpsc::UnboundedReceiver<RoomCode>;

    /// Tells the cluster the URLs this node serves clients on, for the redirects other nodes
    /// send, unless its operator named them already. Called once, at start.
    fn listening_on(&self, urls: &[String]);

    /// How often to look for [`orphans`](Self::orphans).
    fn sweep_interval(&self) -> Duration;

    /// Its counters now.
    fn counters(&self) -> ClusterCounters;
}
