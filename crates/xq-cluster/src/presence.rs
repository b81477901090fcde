//! Whether a node's process is still on NATS: every node answers requests on a subject of
//! its own process, so that another node can tell a room's dead owner from a live one at
//! once instead of waiting for the lease to expire, and does not send clients to a node
//! that is gone.

use std::time::Duration;

use async_nats::{Client, RequestErrorKind, Subscriber};
use futures_util::StreamExt as _;
use tokio::sync::watch;

use crate::lease::LeaseValue;
use crate::{ClusterError, names};

/// How long a node waits for another's answer. A live node answers within milliseconds;
/// one that does not answer in time (paused, or swamped) counts as there, and keeps its
/// rooms until its leases expire.
const ASK_TIMEOUT: Duration = Duration::from_secs(1);

/// Subscribes to this process's subject, and makes sure the server has the subscription
/// before anyone may ask: until then this node would look gone.
pub(crate) async fn subscribe(
    client: &Client,
    node: &str,
    incarnation: u64,
) -> Result<Subscriber, ClusterError> {
    let subscriber = client
        .subscribe(names::presence_subject(node, incarnation))
        .await
        .map_err(|err| ClusterError::nats("subscribe to this node's presence", err))?;
    client
        .flush()
        .await
        .map_err(|err| ClusterError::nats("subscribe to this node's presence", err))?;
    Ok(subscriber)
}

/// Answers every request on `subscriber` until `stop` is set or dropped (the node closed, or
/// is gone): then the subscription ends with it, and other nodes find this one gone.
pub(crate) async fn answer(
    client: Client,
    mut subscriber: Subscriber,
    mut stop: watch::Receiver<bool>,
) {
    loop {
        tokio::select! {
            message = subscriber.next() => {
                let Some(message) = message else { return };
                if let Some(reply) = message.reply {
                    // A lost answer only makes this node look paused: it keeps its rooms.
                    let _ = client.publish(reply, Default::default()).await;
                }
            }
            changed = stop.changed() => {
                if changed.is_err() || *stop.borrow() {
                    return;
                }
            }
        }
    }
}

/// Whether the process that holds `lease` has left NATS: nobody subscribes to its subject
/// any more (its connection closed, or it closed its cluster). Any other outcome, an
/// answer, a timeout or a failure to ask, counts as there.
pub(crate) async fn is_gone(client: &Client, lease: &LeaseValue) -> bool {
    let ask = client.request(
        names::presence_subject(&lease.node, lease.incarnation),
        Default::default(),
    );
    match tokio::time::timeout(ASK_TIMEOUT, ask).await {
        Ok(Err(err)) => err.kind() == RequestErrorKind::NoResponders,
        Ok(Ok(_)) | Err(_) => false,
    }
}
