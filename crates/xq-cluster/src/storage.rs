//! The relay's [`Storage`] on the cluster: each commit appends one fenced message per room.

use std::sync::Arc;
use std::time::{Duration, Instant};

use async_nats::jetstream::context::{PublishError, PublishErrorKind};
use async_nats::jetstream::message::PublishMessage;
use bytes::Bytes;
use futures_util::future;
use xq_protocol::{ResumeToken, RoomCode};
use xq_store::{
    Archived, Committed, GameId, GameSummary, OpenRoom, Persist, Storage, StoreError, UnixTime,
};

use crate::archive;
use crate::cluster::Inner;
use crate::journal::{Append, ArchivedGame, Change, CurrentMatch};
use crate::metrics::Counters;
use crate::names;

/// The storage engine of one relay node of a cluster ([`crate::Cluster::storage`]).
///
/// It runs on the relay's storage thread, a plain thread outside the async runtime: each
/// call blocks on the runtime the cluster was connected on. Called from inside that
/// runtime it fails rather than deadlock.
///
/// - [`commit`](Storage::commit) appends, for every room the batch touches and all rooms
///   at once, one message with that room's changes, fenced on the room's last sequence as
///   this node knows it. A room whose append is refused (another node wrote to it), or
///   whose lease this node no longer believes, is in [`Committed::refused`], none of its
///   changes applied, and forgotten. A match's start writes its resume tokens first; a
///   match's end archives the game before the commit returns; a room's close purges its
///   journal and gives up its lease and tokens. Transient NATS errors are retried with the
///   same message id (so an append that landed is not doubled) for up to the lease TTL,
///   and never past this node's belief in its lease; then the commit fails.
/// - [`open_rooms`](Storage::open_rooms) is empty: a node takes rooms over one at a time,
///   through [`crate::Cluster::locate`] and [`crate::Cluster::orphans`].
/// - [`games`](Storage::games) and [`pgn`](Storage::pgn) read the archive stream.
#[derive(Debug)]
pub struct ClusterStorage {
    inner: Arc<Inner>,
}

/// How an append ended.
#[derive(Debug)]
pub(crate) enum Appended {
    /// Stored at this stream sequence.
    Stored(u64),
    /// Refused: another writer appended to the room, or this node stopped believing its
    /// lease before anything was sent.
    Refused,
}

/// Why an append (or an archiving) did not get through.
#[derive(Debug, thiserror::Error)]
pub(crate) enum AppendError {
    /// No acknowledgement within the retry window: whether it landed is unknown.
    #[error("no acknowledgement from NATS for room {code} within {window:?} (last error: {last})")]
    Unavailable {
        /// The room.
        code: RoomCode,
        /// How long it was retried.
        window: Duration,
        /// The last attempt's error.
        last: String,
    },
    /// The server refused it for good.
    #[error("NATS refused a message of room {code}: {reason}")]
    Rejected {
        /// The room.
        code: RoomCode,
        /// Why.
        reason: String,
    },
}

impl ClusterStorage {
    pub(crate) fn new(inner: Arc<Inner>) -> Self {
        Self { inner }
    }

    /// Runs `work` on the cluster's runtime and waits for it on this thread.
    fn block_on<T, F>(&self, work: impl FnOnce(Arc<Inner>) -> F) -> Result<T, StoreError>
    where
        F: Future<Output = Result<T, StoreError>> + Send + 'static,
        T: Send + 'static,
    {
        if tokio::runtime::Handle::try_current().is_ok() {
            return Err(engine(
                "the cluster storage was called from inside the async runtime; it blocks",
            ));
        }
        let (tx, rx) = std::sync::mpsc::channel();
        let work = work(Arc::clone(&self.inner));
        self.inner.runtime.spawn(async move {
            let _ = tx.send(work.await);
        });
        rx.recv()
            .map_err(|_| engine("the cluster's runtime shut down"))?
    }
}

impl Storage for ClusterStorage {
    fn commit(&mut self, changes: &[Persist]) -> Result<Committed, StoreError> {
        if changes.is_empty() {
            return Ok(Committed::default());
        }
        let changes = changes.to_vec();
        self.block_on(|inner| async move { inner.commit(&changes).await })
    }

    fn open_rooms(&mut self) -> Result<Vec<OpenRoom>, StoreError> {
        Ok(Vec::new())
    }

    fn games(&mut self) -> Result<Vec<GameSummary>, StoreError> {
        self.block_on(|inner| async move {
            archive::games(&inner.games, inner.read_timeout)
                .await
                .map_err(|err| StoreError::Engine(Box::new(err)))
        })
    }

    fn pgn(&mut self, id: GameId) -> Result<Option<String>, StoreError> {
        self.block_on(move |inner| async move {
            archive::pgn(&inner.games, id)
                .await
                .map_err(|err| StoreError::Engine(Box::new(err)))
        })
    }
}

/// What committing one room's changes did.
enum RoomOutcome {
    Applied,
    Refused,
}

/// One room's part of a batch, as its journal message will hold it.
struct RoomBatch {
    changes: Vec<Change>,
    /// The tokens of a match started in the batch.
    new_tokens: Vec<ResumeToken>,
    /// The match on after the batch; `start_seq` 0 if it starts in this batch.
    current: Option<CurrentMatch>,
    /// A game over in the batch, with the match it ended (start_seq 0: started in it).
    over: Option<(ArchivedGame, CurrentMatch)>,
    closing: bool,
}

impl Inner {
    /// [`Storage::commit`]: every room's message at once.
    async fn commit(&self, changes: &[Persist]) -> Result<Committed, StoreError> {
        let mut codes: Vec<RoomCode> = Vec::new();
        for change in changes {
            let code = code_of(change)?;
            if !codes.contains(&code) {
                codes.push(code);
            }
        }
        let rooms = codes.iter().map(|code| {
            let mine = changes
                .iter()
                .filter(|change| code_of(change).ok() == Some(*code));
            self.commit_room(*code, mine)
        });
        let outcomes = future::join_all(rooms).await;
        let mut committed = Committed::default();
        let mut failure = None;
        for (code, outcome) in codes.into_iter().zip(outcomes) {
            match outcome {
                Ok(RoomOutcome::Applied) => {}
                Ok(RoomOutcome::Refused) => committed.refused.push(code),
                Err(err) => failure = Some(err),
            }
        }
        failure.map_or(Ok(committed), Err)
    }

    /// One room's part of a commit.
    async fn commit_room<'a>(
        &self,
        code: RoomCode,
        changes: impl Iterator<Item = &'a Persist>,
    ) -> Result<RoomOutcome, StoreError> {
        let now = Instant::now();
        let Some(held) = self.held().get(&code).cloned() else {
            // Not this node's room (any more): refused.
            Counters::bump(&self.counters.refused_appends);
            return Ok(RoomOutcome::Refused);
        };
        if !held.is_believed(now) {
            self.held().remove(&code);
            Counters::bump(&self.counters.refused_appends);
            return Ok(RoomOutcome::Refused);
        }
        let batch = batch(code, held.current, changes)?;
        // Tokens first: a match whose start is in the journal can always be resumed.
        self.put_tokens(code, &batch.new_tokens).await?;
        let counter = held.counter + 1;
        let payload = Append::encode(&self.writer, held.revision, counter, &batch.changes)
            .map_err(|err| StoreError::Engine(Box::new(err)))?;
        let seq = match self.append(code, held.last_seq, payload.into()).await {
            Ok(Appended::Stored(seq)) => seq,
            Ok(Appended::Refused) => {
                self.held().remove(&code);
                Counters::bump(&self.counters.refused_appends);
                return Ok(RoomOutcome::Refused);
            }
            Err(err) => return Err(StoreError::Engine(Box::new(err))),
        };
        let with_seq = |current: CurrentMatch| CurrentMatch {
            start_seq: if current.start_seq == 0 {
                seq
            } else {
                current.start_seq
            },
            ..current
        };
        let stale_tokens = {
            let mut rooms = self.held();
            let Some(held) = rooms.get_mut(&code) else {
                // Lost meanwhile, after its append landed: the relay hears of it.
                return Ok(RoomOutcome::Applied);
            };
            held.last_seq = seq;
            held.counter = counter;
            held.current = batch.current.map(with_seq);
            if batch.new_tokens.is_empty() {
                Vec::new()
            } else {
                // A rematch's tokens replace the match before's.
                std::mem::replace(&mut held.tokens, batch.new_tokens.clone())
            }
        };
        let stale: Vec<_> = stale_tokens
            .into_iter()
            .filter(|token| !batch.new_tokens.contains(token))
            .collect();
        future::join_all(
            stale
                .iter()
                .map(|token| self.tokens.delete(names::token_key(*token))),
        )
        .await;
        if let Some((game, current)) = &batch.over {
            self.archive(code, with_seq(*current).start_seq, game)
                .await
                .map_err(|err| StoreError::Engine(Box::new(err)))?;
        }
        if batch.closing {
            let held = self.held().remove(&code);
            if let Some(held) = held {
                self.forget_room(code, &held.tokens).await;
                self.drop_lease(code, held.revision).await;
            }
        }
        Ok(RoomOutcome::Applied)
    }

    /// Writes the tokens of a match of room `code`, retried like an append.
    async fn put_tokens(&self, code: RoomCode, tokens: &[ResumeToken]) -> Result<(), StoreError> {
        let value = Bytes::from(code.as_str().to_owned());
        let puts = tokens.iter().map(|token| {
            let value = value.clone();
            async move {
                let key = names::token_key(*token);
                self.retry(code, || self.tokens.put(key.as_str(), value.clone()))
                    .await
            }
        });
        for put in future::join_all(puts).await {
            put.map_err(|err| StoreError::Engine(Box::new(err)))?;
        }
        Ok(())
    }

    /// Retries `attempt` (each bounded by the attempt timeout) for up to the lease TTL.
    async fn retry<T, E: std::fmt::Display, F: Future<Output = Result<T, E>>>(
        &self,
        code: RoomCode,
        mut attempt: impl FnMut() -> F,
    ) -> Result<T, AppendError> {
        let start = Instant::now();
        loop {
            let last = match tokio::time::timeout(self.attempt_timeout, attempt()).await {
                Ok(Ok(done)) => return Ok(done),
                Ok(Err(err)) => err.to_string(),
                Err(_) => "timed out".to_string(),
            };
            if start.elapsed() >= self.lease_ttl {
                return Err(AppendError::Unavailable {
                    code,
                    window: self.lease_ttl,
                    last,
                });
            }
            tokio::time::sleep(RETRY_PAUSE).await;
        }
    }

    /// Appends `payload` to room `code`'s journal, fenced on `expected` (the stream
    /// sequence of the room's last message, 0 for none), and retried with the same message
    /// id while this node believes its lease, for up to the lease TTL.
    pub(crate) async fn append(
        &self,
        code: RoomCode,
        expected: u64,
        payload: Bytes,
    ) -> Result<Appended, AppendError> {
        let subject = names::room_subject(code);
        let id = format!(
            "{}.{}.{}.{}",
            self.writer.node, self.writer.incarnation, code, expected
        );
        let start = Instant::now();
        let mut attempts = 0_u32;
        loop {
            let believed = self
                .held()
                .get(&code)
                .is_some_and(|held| held.is_believed(Instant::now()));
            if !believed {
                // The room is not this node's any more. An attempt sent before may still land,
                // but the relay gives the room up without sending what waited for it, so no
                // client was told of it: whoever takes the room over reads the journal as it
                // is, with or without it. A NATS outage thus costs the node its rooms, not
                // its life.
                return Ok(Appended::Refused);
            }
            if attempts > 0 {
                Counters::bump(&self.counters.append_retries);
            }
            attempts += 1;
            let message = PublishMessage::build()
                .payload(payload.clone())
                .message_id(&id)
                .expected_last_subject_sequence(expected);
            let attempt = async { self.js.send_publish(subject.clone(), message).await?.await };
            let last = match tokio::time::timeout(self.attempt_timeout, attempt).await {
                Ok(Ok(ack)) => {
                    Counters::bump(&self.counters.appends);
                    if ack.duplicate {
                        Counters::bump(&self.counters.duplicate_appends);
                    }
                    return Ok(Appended::Stored(ack.sequence));
                }
                Ok(Err(err)) => match err.kind() {
                    PublishErrorKind::WrongLastSequence if attempts > 1 => {
                        // The stream checks the sequence before the message id: an earlier
                        // attempt that landed makes the retry look fenced out. It is ours if
                        // the message after `expected` carries our id.
                        match self.landed(code, &subject, expected, &id).await {
                            Ok(Some(seq)) => {
                                Counters::bump(&self.counters.appends);
                                Counters::bump(&self.counters.duplicate_appends);
                                return Ok(Appended::Stored(seq));
                            }
                            Ok(None) => return Ok(Appended::Refused),
                            Err(err) => err,
                        }
                    }
                    PublishErrorKind::WrongLastSequence => return Ok(Appended::Refused),
                    _ => publish_failure(code, &err)?,
                },
                Err(_) => "timed out".to_string(),
            };
            self.give_up_after(code, start, &last)?;
            tracing::debug!(room = %code, %last, "append failed; retrying");
            tokio::time::sleep(RETRY_PAUSE).await;
        }
    }

    /// The stream sequence of the message after `expected` on room `code`'s `subject` if it
    /// carries message id `id` (an earlier attempt of this append landed), `None` if it is
    /// another writer's; an error text if it cannot be read.
    async fn landed(
        &self,
        code: RoomCode,
        subject: &str,
        expected: u64,
        id: &str,
    ) -> Result<Option<u64>, String> {
        let next = self
            .rooms
            .raw_message_builder()
            .next_by_subject(subject)
            .sequence(expected + 1)
            .send()
            .await;
        match next {
            Ok(message) => {
                let theirs = message
                    .headers
                    .get(async_nats::header::NATS_MESSAGE_ID)
                    .map(async_nats::HeaderValue::as_str);
                Ok((theirs == Some(id)).then_some(message.sequence))
            }
            Err(err) => {
                tracing::debug!(room = %code, %err, "cannot read back an append");
                Err(err.to_string())
            }
        }
    }

    /// Archives `game` of room `code`, whose match started at stream sequence `start_seq`:
    /// at most once, however many nodes (or retries) try.
    pub(crate) async fn archive(
        &self,
        code: RoomCode,
        start_seq: u64,
        game: &ArchivedGame,
    ) -> Result<(), AppendError> {
        let subject = names::game_subject(code, start_seq);
        let payload: Bytes = game
            .encode()
            .map_err(|err| AppendError::Rejected {
                code,
                reason: err.to_string(),
            })?
            .into();
        let start = Instant::now();
        loop {
            let message = PublishMessage::build()
                .payload(payload.clone())
                .message_id(&subject)
                .expected_last_subject_sequence(0);
            let attempt = async { self.js.send_publish(subject.clone(), message).await?.await };
            let last = match tokio::time::timeout(self.attempt_timeout, attempt).await {
                Ok(Ok(ack)) => {
                    if !ack.duplicate {
                        Counters::bump(&self.counters.games_archived);
                    }
                    return Ok(());
                }
                Ok(Err(err)) => match err.kind() {
                    // Archived already.
                    PublishErrorKind::WrongLastSequence => return Ok(()),
                    _ => publish_failure(code, &err)?,
                },
                Err(_) => "timed out".to_string(),
            };
            self.give_up_after(code, start, &last)?;
            tokio::time::sleep(RETRY_PAUSE).await;
        }
    }

    /// After a failed attempt of a publish of room `code` retried since `start`: the error
    /// to give up with once the lease TTL has passed, with `last`, the attempt's failure.
    fn give_up_after(&self, code: RoomCode, start: Instant, last: &str) -> Result<(), AppendError> {
        if start.elapsed() >= self.lease_ttl {
            return Err(AppendError::Unavailable {
                code,
                window: start.elapsed(),
                last: last.to_owned(),
            });
        }
        Ok(())
    }
}

/// The text of a failed publish of room `code` worth retrying, or the error that ends the
/// retries: a message over the server's payload limit is refused for good.
fn publish_failure(code: RoomCode, err: &PublishError) -> Result<String, AppendError> {
    match err.kind() {
        PublishErrorKind::MaxPayloadExceeded => Err(AppendError::Rejected {
            code,
            reason: err.to_string(),
        }),
        _ => Ok(err.to_string()),
    }
}

/// The pause between two attempts of a request that failed.
const RETRY_PAUSE: Duration = Duration::from_millis(50);

/// The room of a change.
fn code_of(change: &Persist) -> Result<RoomCode, StoreError> {
    match change {
        Persist::MatchStarted { code, .. }
        | Persist::Entry { code, .. }
        | Persist::MatchOver { code, .. }
        | Persist::SeatLost { code, .. }
        | Persist::RoomClosed { code } => Ok(*code),
        _ => Err(engine("a change this release of xq-cluster does not know")),
    }
}

/// Room `code`'s changes of a batch as its journal message holds them, given the match on
/// before the batch.
fn batch<'a>(
    code: RoomCode,
    mut current: Option<CurrentMatch>,
    changes: impl Iterator<Item = &'a Persist>,
) -> Result<RoomBatch, StoreError> {
    let now = UnixTime::now();
    let mut batch = RoomBatch {
        changes: Vec::new(),
        new_tokens: Vec::new(),
        current: None,
        over: None,
        closing: false,
    };
    for change in changes {
        let change = match change {
            Persist::MatchStarted {
                options,
                red,
                started,
                first_token,
                second_token,
                ..
            } => {
                batch.new_tokens = vec![*first_token, *second_token];
                current = Some(CurrentMatch {
                    red: *red,
                    opened_at: now,
                    start_seq: 0,
                });
                Change::MatchStarted {
                    options: *options,
                    red: *red,
                    started: *started,
                    first_token: *first_token,
                    second_token: *second_token,
                    opened_at: now.0,
                }
            }
            Persist::Entry { seq, entry, .. } => Change::Entry {
                seq: *seq,
                entry: *entry,
            },
            Persist::MatchOver { record, .. } => {
                let playing = current.ok_or(StoreError::UnknownRoom(code))?;
                let archived = Archived::new(code, playing.red, playing.opened_at, record);
                let game = ArchivedGame {
                    room: code,
                    started: playing.opened_at.0,
                    ended: now.0,
                    red: archived.red,
                    black: archived.black,
                    result: archived.result.to_string(),
                    termination: archived.termination,
                    moves: archived.moves as u64,
                    pgn: archived.pgn,
                };
                batch.over = Some((game.clone(), playing));
                Change::MatchOver { game }
            }
            Persist::SeatLost { seat, .. } => Change::SeatLost { seat: *seat },
            Persist::RoomClosed { .. } => {
                batch.closing = true;
                Change::RoomClosed
            }
            _ => return Err(engine("a change this release of xq-cluster does not know")),
        };
        batch.changes.push(change);
    }
    batch.current = current;
    Ok(batch)
}

/// A [`StoreError::Engine`] with `message`.
fn engine(message: &str) -> StoreError {
    StoreError::Engine(message.into())
}
