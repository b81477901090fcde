//! What the core asks its driver to do, and the queue it collects that in.

use std::collections::VecDeque;

use xq_protocol::{DisconnectReason, Request, RoomCode, ServerMsg, codec};
use xq_store::Persist;

use crate::{ConnId, Lookup};

/// Something the driver must do, in the order [`crate::Relay::poll_output`] yields them.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Output {
    /// Send a frame (an encoded [`ServerMsg`]) to a connection. Frames to one connection must
    /// leave in order.
    Send {
        /// The connection.
        to: ConnId,
        /// The encoded message, ready for the transport.
        frame: Vec<u8>,
    },
    /// Close a connection once the frames already queued for it are sent. The core has
    /// forgotten it already: a later [`crate::Relay::handle_disconnect`] for it is ignored.
    Close {
        /// The connection.
        conn: ConnId,
        /// Why (the client was told in a [`ServerMsg::Disconnect`] just before).
        reason: DisconnectReason,
    },
    /// A change that must survive a crash. **Durability contract**: a driver with storage
    /// commits every `Persist` before it carries out any output that follows it, so no client
    /// ever sees an event that a restarted relay would not have. A driver without storage
    /// skips them.
    Persist(Persist),
    /// In a cluster ([`crate::Config::cluster`]): claim `code` for a new room, unique across
    /// the nodes, and answer with [`crate::Relay::handle_claim`]. Needs no commit first.
    Claim(RoomCode),
    /// In a cluster: find the room `lookup` names on the other nodes (taking it over if
    /// nobody owns it) and answer with [`crate::Relay::handle_located`], handing `request`
    /// back. The request of `conn` waits meanwhile, and nothing changed yet. Needs no commit
    /// first.
    Locate {
        /// The connection whose request waits.
        conn: ConnId,
        /// The request, to hand back.
        request: Request,
        /// What to find.
        lookup: Lookup,
    },
}

/// The queue of outputs, with the encoding done once per message however many receive it.
#[derive(Debug, Default)]
pub(crate) struct Outbox {
    queue: VecDeque<Output>,
}

impl Outbox {
    pub(crate) fn pop(&mut self) -> Option<Output> {
        self.queue.pop_front()
    }

    /// Sends `msg` to one connection.
    pub(crate) fn send(&mut self, to: ConnId, msg: &ServerMsg) {
        self.send_all([to], msg);
    }

    /// Sends `msg` to every connection of `to`, encoding it once.
    pub(crate) fn send_all(&mut self, to: impl IntoIterator<Item = ConnId>, msg: &ServerMsg) {
        let mut to = to.into_iter();
        let Some(mut conn) = to.next() else {
            return;
        };
        let frame = match codec::to_frame(msg) {
            Ok(frame) => frame,
            Err(err) => {
                // Only a snapshot could outgrow a frame, and games end long before that; the
                // message is dropped rather than the relay.
                tracing::error!(%err, "cannot encode a message");
                return;
            }
        };
        for next in to {
            let copy = frame.clone();
            self.queue.push_back(Output::Send {
                to: conn,
                frame: copy,
            });
            conn = next;
        }
        // The last receiver takes the original: no copy for the common single send.
        self.queue.push_back(Output::Send { to: conn, frame });
    }

    /// Tells a connection why it is closed, then closes it.
    pub(crate) fn disconnect(&mut self, conn: ConnId, reason: DisconnectReason, message: &str) {
        let msg = ServerMsg::Disconnect {
            reason,
            message: message.to_string(),
        };
        self.send(conn, &msg);
        self.close(conn, reason);
    }

    pub(crate) fn persist(&mut self, change: Persist) {
        self.queue.push_back(Output::Persist(change));
    }

    /// Closes a connection (after the frames queued for it), telling it nothing more: the
    /// last frame it was sent says why.
    pub(crate) fn close(&mut self, conn: ConnId, reason: DisconnectReason) {
        self.queue.push_back(Output::Close { conn, reason });
    }

    /// Asks the driver something of the cluster.
    pub(crate) fn ask(&mut self, output: Output) {
        self.queue.push_back(output);
    }
}
