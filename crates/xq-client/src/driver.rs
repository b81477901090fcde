//! The background task behind a client: reads the relay's messages, keeps the mirror in step,
//! reports events, and restores the connection when it fails.

use std::sync::Arc;

use tokio::sync::{mpsc, watch};
use tokio::time::{Instant, timeout_at};
use xq_protocol::ServerMsg;
use xq_transport::Connection;

use crate::reconnect::{Rejoin, reconnect};
use crate::state::{Entry, EntryKind, Leaving, Link, Seating, Shared};
use crate::{Applied, ClientError, ClientEvent, ClientOptions, Mirror, Room, link};

/// The connection's reader. It makes no game decisions: it applies what the relay says.
pub(crate) struct Driver {
    shared: Arc<Shared>,
    /// The owner's event stream; it ends when the driver does.
    events: mpsc::UnboundedSender<ClientEvent>,
    url: String,
    options: ClientOptions,
    /// The connection being read; `None` only between a failure and the next connection.
    conn: Option<Arc<dyn Connection>>,
    /// When the current outage began: `None` while connected and in step.
    outage: Option<Instant>,
    /// When the mirror's snapshot arrived: the mirror takes each event's arrival from then.
    snapshot_arrived: Instant,
}

impl Driver {
    pub(crate) fn new(
        shared: Arc<Shared>,
        events: mpsc::UnboundedSender<ClientEvent>,
        url: String,
        options: ClientOptions,
        conn: Arc<dyn Connection>,
    ) -> Self {
        Self {
            shared,
            events,
            url,
            options,
            conn: Some(conn),
            outage: None,
            snapshot_arrived: Instant::now(),
        }
    }

    /// Runs until the connection ends for good or `shutdown` changes (or its sender, the
    /// client, is dropped).
    pub(crate) async fn run(mut self, mut shutdown: watch::Receiver<bool>) {
        let cause = loop {
            let received = tokio::select! {
                biased;
                _ = shutdown.changed() => break None,
                received = self.receive() => received,
            };
            let Err(failure) = received.and_then(|msg| self.dispatch(msg)) else {
                continue;
            };
            if matches!(self.shared.lock().link, Link::Closed) {
                break None;
            }
            if !failure.is_transient() || self.options.reconnect.period.is_zero() {
                break Some(failure);
            }
            let restored = tokio::select! {
                biased;
                _ = shutdown.changed() => break None,
                restored = self.restore(failure) => restored,
            };
            if let Err(error) = restored {
                break Some(error);
            }
        };
        self.finish(cause).await;
    }

    /// The next message; while resuming, only until the reconnect period ends.
    async fn receive(&self) -> Result<ServerMsg, ClientError> {
        let conn = self.conn.as_deref().ok_or(ClientError::NotConnected)?;
        match self.outage {
            None => link::recv(conn).await,
            Some(since) => timeout_at(since + self.options.reconnect.period, link::recv(conn))
                .await
                .unwrap_or(Err(ClientError::Timeout)),
        }
    }

    /// Applies one message from the relay.
    ///
    /// # Errors
    ///
    /// Why the connection cannot go on: the relay closed it, refused the resume, or sent
    /// something the mirror cannot follow (a new connection brings a fresh snapshot).
    fn dispatch(&mut self, msg: ServerMsg) -> Result<(), ClientError> {
        let shared = Arc::clone(&self.shared);
        let mut state = shared.lock();
        match msg {
            ServerMsg::Joined { code, seat, resume } => {
                state.room = Some(Seating {
                    room: Room { code, seat },
                    token: resume,
                });
                // Before the fence, it is a rematch of the room the client is in.
                if let Some(entry) = state.entry.as_mut().filter(|e| e.is_answered_next()) {
                    entry.joined = true;
                }
            }
            ServerMsg::Pong { nonce } => {
                if let Some(entry) = state.entry.as_mut().filter(|e| e.fence == Some(nonce)) {
                    entry.fence = None;
                }
                if let Some(leaving) = state.leaving.as_mut().filter(|l| l.fence == Some(nonce)) {
                    leaving.fence = None;
                }
                if let Some(leaving) = state.leaving.take_if(|l| l.done == nonce) {
                    // The relay took the leave, and sends nothing more of the room.
                    state.room = None;
                    state.mirror = None;
                    let _ = leaving.reply.send(Ok(()));
                }
            }
            ServerMsg::Queued => self.emit(ClientEvent::Queued),
            ServerMsg::Snapshot(snapshot) => {
                let previous = state.mirror.replace(Mirror::from_snapshot(&snapshot)?);
                self.snapshot_arrived = Instant::now();
                let room = state.room.map(|seating| seating.room);
                match state.entry.take_if(|entry| entry.joined) {
                    Some(Entry {
                        kind: EntryKind::Request(reply),
                        starts_match,
                        ..
                    }) => {
                        // Told before the request returns, so the event is waiting by then.
                        if starts_match {
                            self.emit(ClientEvent::MatchStarted);
                        }
                        let _ =
                            reply.send(room.ok_or(ClientError::Unexpected { expected: "joined" }));
                    }
                    Some(Entry {
                        kind: EntryKind::Resume,
                        ..
                    }) => {
                        state.link = self.conn.clone().map_or(Link::Restoring, Link::Up);
                        self.outage = None;
                        tracing::debug!("room resumed");
                        self.emit(ClientEvent::Reconnected);
                    }
                    None if previous.is_some_and(|m| !m.status().is_ongoing()) => {
                        let seat = room.and_then(|room| room.seat);
                        self.emit(ClientEvent::RematchStarted { seat });
                    }
                    None => self.emit(ClientEvent::MatchStarted),
                }
            }
            ServerMsg::Event { seq, event } => {
                let mirror = state.mirror.as_mut().ok_or(ClientError::Unexpected {
                    expected: "a snapshot before events",
                })?;
                let since_snapshot = self.snapshot_arrived.elapsed();
                if mirror.apply(since_snapshot, seq, &event)? == Applied::New {
                    self.emit(ClientEvent::Match { seq, event });
                }
            }
            ServerMsg::Presence { seat, connected } => {
                if let Some(mirror) = &mut state.mirror {
                    mirror.set_presence(seat, connected);
                }
                self.emit(ClientEvent::Presence { seat, connected });
            }
            ServerMsg::RematchRequested { by } => {
                if let Some(mirror) = &mut state.mirror {
                    mirror.note_rematch_request(by);
                }
                self.emit(ClientEvent::RematchRequested { by });
            }
            ServerMsg::Error { code, message } => {
                match state.entry.take_if(|e| e.is_answered_next()) {
                    Some(Entry {
                        kind: EntryKind::Request(reply),
                        ..
                    }) => {
                        let _ = reply.send(Err(ClientError::Refused { code, message }));
                    }
                    // The room cannot be resumed (the seat was given up, the room is gone).
                    Some(Entry {
                        kind: EntryKind::Resume,
                        ..
                    }) => return Err(ClientError::Refused { code, message }),
                    None => match state.leaving.take_if(|l| l.fence.is_none()) {
                        Some(Leaving { reply, .. }) => {
                            let _ = reply.send(Err(ClientError::Refused { code, message }));
                        }
                        None => self.emit(ClientEvent::Rejected { code, message }),
                    },
                }
            }
            ServerMsg::Disconnect { reason, message } => {
                return Err(ClientError::ClosedByRelay { reason, message });
            }
            // Nothing to do: a welcome only answers a hello.
            other => tracing::debug!(?other, "ignored message"),
        }
        Ok(())
    }

    /// Replaces the failed connection: reports the outage (once), then reconnects and asks
    /// for the room again. The room counts as resumed when its snapshot arrives.
    async fn restore(&mut self, cause: ClientError) -> Result<(), ClientError> {
        // A failed connection may take long to close gracefully; dropping it is enough.
        self.conn = None;
        let since = match self.outage {
            Some(since) => {
                tracing::debug!(%cause, "resume failed");
                since
            }
            None => {
                tracing::info!(%cause, "connection failed; reconnecting");
                let mut state = self.shared.lock();
                state.link = Link::Restoring;
                state.fail_request(|| ClientError::ConnectionLost);
                self.emit(ClientEvent::Reconnecting { cause });
                *self.outage.insert(Instant::now())
            }
        };
        let rejoin = match self.shared.lock().room {
            Some(Seating {
                token: Some(token), ..
            }) => Rejoin::Resume(token),
            Some(Seating { room, .. }) => Rejoin::Spectate(room.code),
            None => Rejoin::Nothing,
        };
        let deadline = since + self.options.reconnect.period;
        let conn = reconnect(&self.url, &self.options, rejoin, deadline).await?;
        let mut state = self.shared.lock();
        if let Rejoin::Nothing = rejoin {
            state.link = Link::Up(Arc::clone(&conn));
            self.outage = None;
            self.emit(ClientEvent::Reconnected);
        } else {
            // A new connection carries no earlier request: nothing to fence off.
            state.entry = Some(Entry {
                kind: EntryKind::Resume,
                fence: None,
                joined: false,
                starts_match: false,
            });
        }
        self.conn = Some(conn);
        Ok(())
    }

    /// Reports an event to the owner (who may have dropped the client already).
    fn emit(&self, event: ClientEvent) {
        let _ = self.events.send(event);
    }

    /// Closes for good, telling the owner why unless it asked for it.
    async fn finish(mut self, cause: Option<ClientError>) {
        {
            let mut state = self.shared.lock();
            state.link = Link::Closed;
            // A request waiting when the connection ended for good was cut off, and says so;
            // the cause itself goes out as the `Disconnected` event.
            let lost = cause.is_some();
            state.fail_request(|| {
                if lost {
                    ClientError::ConnectionLost
                } else {
                    ClientError::Closed
                }
            });
        }
        if let Some(cause) = cause {
            tracing::info!(%cause, "disconnected");
            self.emit(ClientEvent::Disconnected { cause });
        }
        if let Some(conn) = self.conn.take() {
            conn.close().await;
        }
    }
}
