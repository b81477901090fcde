//! The cluster handle: connecting, claiming and locating rooms, and renewing their leases.

use std::collections::{HashMap, HashSet};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, Weak};
use std::time::{Duration, Instant};

use async_nats::jetstream::{self, kv, stream};
use futures_util::{TryStreamExt, future};
use tokio::sync::{mpsc, watch};
use xq_protocol::{ResumeToken, RoomCode};
use xq_store::OpenRoom;

use crate::error::ClusterError;
use crate::journal::{self, Append, Change, RoomState, Writer};
use crate::lease::{self, Held, LeaseValue};
use crate::metrics::{ClusterMetrics, Counters};
use crate::names;
use crate::presence;
use crate::setup;
use crate::{ClusterOptions, ClusterStorage};

/// What to find with [`Cluster::locate`]: a room by its code, or the room of a seat by its
/// resume token.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Lookup {
    /// The room with this code.
    Room(RoomCode),
    /// The room a seat of which this token holds.
    Token(ResumeToken),
}

/// Where [`Cluster::locate`] found a room.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Location {
    /// Another node holds the room's live lease: redirect the client there.
    Owner {
        /// Its node name.
        node: String,
        /// Its client URLs.
        urls: Vec<String>,
    },
    /// Nobody held the room and its match is open: this node holds it now, its journal read
    /// back, and appends after the journal's last message.
    Taken(Box<OpenRoom>),
    /// No such room (or no match to play on in it).
    Nowhere,
    /// This process holds the room's lease already, and is reading the room back (a
    /// takeover by another of its tasks): the relay has it in a moment.
    Settling,
}

/// A relay node's link to its cluster on NATS JetStream. Cheap to clone: the clones share
/// one connection, one set of leases and one renewal task.
///
/// See the [crate documentation](crate) for what is kept where.
#[derive(Clone, Debug)]
pub struct Cluster {
    inner: Arc<Inner>,
}

/// What the clones of a [`Cluster`] and its [`ClusterStorage`]s share.
#[derive(Debug)]
pub(crate) struct Inner {
    pub(crate) js: jetstream::Context,
    pub(crate) rooms: stream::Stream,
    pub(crate) games: stream::Stream,
    pub(crate) leases: kv::Store,
    pub(crate) tokens: kv::Store,
    pub(crate) writer: Writer,
    pub(crate) lease_ttl: Duration,
    /// How long one append or archive attempt may wait for its acknowledgement.
    pub(crate) attempt_timeout: Duration,
    /// How long reading a room's journal or the archive may take.
    pub(crate) read_timeout: Duration,
    advertise: Mutex<Vec<String>>,
    /// The rooms this node holds.
    held: Mutex<HashMap<RoomCode, Held>>,
    lost_tx: mpsc::UnboundedSender<RoomCode>,
    lost_rx: Mutex<Option<mpsc::UnboundedReceiver<RoomCode>>>,
    pub(crate) counters: Counters,
    /// The runtime the connection lives on, for the storage's thread to block on.
    pub(crate) runtime: tokio::runtime::Handle,
    /// Set to stop the renewal task.
    stop: watch::Sender<bool>,
    /// Renewals skipped (a test of what happens to a node that stops renewing).
    paused: AtomicBool,
}

impl Cluster {
    /// Connects to the NATS servers, creates the streams and buckets that are missing (or
    /// binds those that exist), and starts renewing this node's leases in the background
    /// (until [`close`](Self::close), or the last clone and storage are dropped). Must be
    /// called within a tokio runtime that has timers and IO enabled and stays up while the
    /// cluster is used: its handle is kept for [`ClusterStorage`].
    ///
    /// # Errors
    ///
    /// A [`ClusterError`] within `connect_timeout`: options that cannot work, no server
    /// reachable, TLS or authentication refused, no JetStream, or a stream or bucket whose
    /// settings this node cannot use. Nothing is retried past the timeout.
    pub async fn connect(options: ClusterOptions) -> Result<Self, ClusterError> {
        let ready = setup::connect(&options).await?;
        let client = ready.js.client();
        let incarnation = incarnation();
        let presence = presence::subscribe(&client, &options.node, incarnation).await?;
        let (lost_tx, lost_rx) = mpsc::unbounded_channel();
        let (stop, stopped) = watch::channel(false);
        let lease_ttl = options.lease_ttl;
        let inner = Arc::new(Inner {
            js: ready.js,
            rooms: ready.rooms,
            games: ready.games,
            leases: ready.leases,
            tokens: ready.tokens,
            writer: Writer {
                node: options.node,
                incarnation,
            },
            lease_ttl,
            attempt_timeout: (lease_ttl / 4)
                .clamp(Duration::from_millis(250), Duration::from_secs(2)),
            read_timeout: options.connect_timeout.max(lease_ttl),
            advertise: Mutex::new(options.advertise),
            held: Mutex::new(HashMap::new()),
            lost_tx,
            lost_rx: Mutex::new(Some(lost_rx)),
            counters: Counters::default(),
            runtime: tokio::runtime::Handle::current(),
            stop,
            paused: AtomicBool::new(false),
        });
        tokio::spawn(presence::answer(client, presence, stopped.clone()));
        tokio::spawn(renew(Arc::downgrade(&inner), stopped));
        Ok(Self { inner })
    }

    /// This node's name.
    #[must_use]
    pub fn node(&self) -> &str {
        &self.inner.writer.node
    }

    /// This process's incarnation: the random number that tells it apart from an earlier
    /// process of the same node in the journals.
    #[must_use]
    pub fn incarnation(&self) -> u64 {
        self.inner.writer.incarnation
    }

    /// The lease TTL the cluster runs with.
    #[must_use]
    pub fn lease_ttl(&self) -> Duration {
        self.inner.lease_ttl
    }

    /// Sets the client URLs other nodes redirect to this node's rooms, once its listeners
    /// are bound; leases carry them from their next renewal on.
    pub fn set_advertise(&self, urls: Vec<String>) {
        *lock(&self.inner.advertise) = urls;
    }

    /// The client URLs this node advertises (none until given or set).
    #[must_use]
    pub fn advertised(&self) -> Vec<String> {
        lock(&self.inner.advertise).clone()
    }

    /// The storage engine of this node's rooms, for the relay's storage thread.
    #[must_use]
    pub fn storage(&self) -> ClusterStorage {
        ClusterStorage::new(Arc::clone(&self.inner))
    }

    /// Claims `code` for a new room of this node: `true` if this node holds it now (unique
    /// across the cluster), `false` if another node has it, or a journal is left on it
    /// (a room nobody owns yet, which [`orphans`](Self::orphans) will offer).
    ///
    /// # Errors
    ///
    /// [`ClusterError::Nats`] if the cluster could not be asked.
    pub async fn claim(&self, code: RoomCode) -> Result<bool, ClusterError> {
        let inner = &self.inner;
        let sent = Instant::now();
        let revision = match inner
            .leases
            .create(code.as_str(), inner.lease_value())
            .await
        {
            Ok(revision) => revision,
            Err(err) if err.kind() == kv::CreateErrorKind::AlreadyExists => {
                Counters::bump(&inner.counters.claims_lost);
                return Ok(false);
            }
            Err(err) => return Err(ClusterError::nats("claim a room code", err)),
        };
        match inner.last_seq(code).await {
            Ok(0) => {
                lock(&inner.held).insert(code, Held::new(revision, sent, inner.lease_ttl));
                Counters::bump(&inner.counters.claims_won);
                Ok(true)
            }
            found => {
                // A journal without an owner: not a free code. Left to the orphan sweep.
                inner.drop_lease(code, revision).await;
                Counters::bump(&inner.counters.claims_lost);
                found.map(|_| false)
            }
        }
    }

    /// Finds the room `lookup` names. If another node holds its live lease, that node;
    /// if nobody does and its journal has an open match, this node takes it over (creates
    /// the lease, reads the journal back, and appends a [`Change::TakenOver`] fenced on its
    /// last message); if its journal shows it closed or its match over, its game is
    /// archived (if it was not), the journal purged, the lease given up: nowhere.
    ///
    /// A token is looked up in the tokens bucket first; an entry left by a room that is
    /// gone leads nowhere (and is deleted). A room taken over through a token is returned
    /// whether or not the token is still one of its seats': the relay checks it.
    ///
    /// # Errors
    ///
    /// [`ClusterError::Nats`] if the cluster could not be asked, [`ClusterError::Corrupt`]
    /// if the room's journal does not decode or replay.
    pub async fn locate(&self, lookup: Lookup) -> Result<Location, ClusterError> {
        let inner = &self.inner;
        let code = match lookup {
            Lookup::Room(code) => code,
            Lookup::Token(token) => {
                let key = names::token_key(token);
                let value = inner
                    .tokens
                    .get(key.as_str())
                    .await
                    .map_err(|err| ClusterError::nats("look a resume token up", err))?;
                let Some(code) = value
                    .and_then(|value| std::str::from_utf8(&value).ok()?.parse::<RoomCode>().ok())
                else {
                    return Ok(Location::Nowhere);
                };
                let location = self.locate_room(code).await?;
                if location == Location::Nowhere && !inner.holds(code) {
                    // The room is gone: its tokens with it. Best effort: it only saves a lookup.
                    let _ = inner.tokens.delete(key).await;
                }
                return Ok(location);
            }
        };
        self.locate_room(code).await
    }

    /// [`locate`](Self::locate) by room code.
    async fn locate_room(&self, code: RoomCode) -> Result<Location, ClusterError> {
        let inner = &self.inner;
        // A few rounds: each lost race for the lease means another node has it now.
        for _ in 0..4 {
            if inner.holds(code) {
                return Ok(Location::Settling);
            }
            let entry = inner
                .leases
                .entry(code.as_str())
                .await
                .map_err(|err| ClusterError::nats("read a room lease", err))?;
            let sent = Instant::now();
            let value = inner.lease_value();
            let created = match entry {
                Some(entry) if entry.operation == kv::Operation::Put => {
                    let lease: Option<LeaseValue> = serde_json::from_slice(&entry.value).ok();
                    match lease {
                        // Another node's, while its process is on NATS: clients go there.
                        Some(lease)
                            if lease.node != inner.writer.node
                                && !presence::is_gone(&inner.js.client(), &lease).await =>
                        {
                            return Ok(Location::Owner {
                                node: lease.node,
                                urls: lease.urls,
                            });
                        }
                        // Ours, being claimed or taken over by another task of this process.
                        Some(lease) if lease.incarnation == inner.writer.incarnation => {
                            return Ok(Location::Settling);
                        }
                        // Another node's process gone from NATS (dead, or cut off and unable
                        // to append), an earlier process of this node (dead, since node
                        // names are unique), or a value that is not a lease: taken over at
                        // once, fenced on its revision. An owner that was only cut off finds
                        // its next append refused by the takeover's, and gives the room up.
                        _ => inner
                            .leases
                            .update(code.as_str(), value, entry.revision)
                            .await
                            .ok(),
                    }
                }
                _ => inner.leases.create(code.as_str(), value).await.ok(),
            };
            if let Some(revision) = created {
                return self.take_over(code, revision, sent).await;
            }
        }
        Err(ClusterError::nats(
            "take a room lease",
            "its lease changed hands over and over",
        ))
    }

    /// Takes room `code` over with the lease of `revision` just created (by a request sent
    /// at `sent`).
    async fn take_over(
        &self,
        code: RoomCode,
        revision: u64,
        sent: Instant,
    ) -> Result<Location, ClusterError> {
        let inner = &self.inner;
        let outcome = self.adopt(code, revision, sent).await;
        if !matches!(outcome, Ok(Location::Taken(_))) {
            inner.drop_lease(code, revision).await;
        }
        outcome
    }

    /// The body of [`take_over`](Self::take_over): on anything but `Taken`, the caller gives
    /// the lease up.
    async fn adopt(
        &self,
        code: RoomCode,
        revision: u64,
        sent: Instant,
    ) -> Result<Location, ClusterError> {
        let inner = &self.inner;
        // A former owner may still append until its belief ends: then the takeover marker
        // is refused and the journal read again.
        for _ in 0..8 {
            let messages = inner.read_journal(code).await?;
            let replayed = journal::replay(code, &messages)
                .map_err(|source| ClusterError::Replay { room: code, source })?;
            let (room, current) = match replayed.state {
                RoomState::Open { room, current } => (room, current),
                RoomState::Over { game, start_seq } => {
                    inner
                        .archive(code, start_seq, &game)
                        .await
                        .map_err(|err| ClusterError::nats("archive a game", err))?;
                    inner.forget_room(code, &replayed.tokens).await;
                    return Ok(Location::Nowhere);
                }
                RoomState::Empty | RoomState::Closed => {
                    if replayed.last_seq != 0 {
                        inner.forget_room(code, &replayed.tokens).await;
                    }
                    return Ok(Location::Nowhere);
                }
            };
            let counter = replayed.counter + 1;
            let payload = Append::encode(&inner.writer, revision, counter, &[Change::TakenOver])
                .map_err(|err| ClusterError::nats("encode a takeover", err))?;
            let mut held = Held::new(revision, sent, inner.lease_ttl);
            held.last_seq = replayed.last_seq;
            held.counter = replayed.counter;
            held.current = Some(current);
            held.tokens = replayed.tokens;
            lock(&inner.held).insert(code, held);
            match inner.append(code, replayed.last_seq, payload.into()).await {
                Ok(crate::storage::Appended::Stored(seq)) => {
                    if let Some(held) = lock(&inner.held).get_mut(&code) {
                        held.last_seq = seq;
                        held.counter = counter;
                    }
                    Counters::bump(&inner.counters.takeovers);
                    return Ok(Location::Taken(room));
                }
                Ok(crate::storage::Appended::Refused) => {
                    lock(&inner.held).remove(&code);
                }
                Err(err) => {
                    lock(&inner.held).remove(&code);
                    return Err(ClusterError::nats("append a takeover", err));
                }
            }
        }
        Err(ClusterError::nats(
            "take a room over",
            "its former owner kept appending",
        ))
    }

    /// The rooms that have a journal and no lease: their owner died. Each is for
    /// [`locate`](Self::locate) to take over.
    ///
    /// # Errors
    ///
    /// [`ClusterError::Nats`] if the cluster could not be asked.
    pub async fn orphans(&self) -> Result<Vec<RoomCode>, ClusterError> {
        let inner = &self.inner;
        let info = inner
            .rooms
            .info_with_subjects(names::ROOMS_SUBJECTS)
            .await
            .map_err(|err| ClusterError::nats("list the rooms' journals", err))?;
        let subjects: Vec<(String, usize)> = info
            .try_collect()
            .await
            .map_err(|err| ClusterError::nats("list the rooms' journals", err))?;
        let leased: HashSet<String> = inner
            .leases
            .keys()
            .await
            .map_err(|err| ClusterError::nats("list the room leases", err))?
            .try_collect()
            .await
            .map_err(|err| ClusterError::nats("list the room leases", err))?;
        let mut orphans: Vec<RoomCode> = subjects
            .iter()
            .filter_map(|(subject, _)| names::room_of_subject(subject))
            .filter(|code| !leased.contains(code.as_str()) && !inner.holds(*code))
            .collect();
        orphans.sort_unstable();
        Ok(orphans)
    }

    /// The rooms this node loses from now on: leases it could not renew in time, or found
    /// renewed by another node. The relay gives each up. The first call gets them; later
    /// calls get a receiver that is closed at once.
    #[must_use]
    pub fn lost_rooms(&self) -> mpsc::UnboundedReceiver<RoomCode> {
        lock(&self.inner.lost_rx)
            .take()
            .unwrap_or_else(|| mpsc::unbounded_channel().1)
    }

    /// Gives the lease on `code` up (a claimed code never used, at shutdown), for another
    /// node to claim or take over at once.
    pub async fn release(&self, code: RoomCode) {
        let held = lock(&self.inner.held).remove(&code);
        if let Some(held) = held {
            self.inner.drop_lease(code, held.revision).await;
        }
    }

    /// Stops renewing and gives every lease this node holds up: the graceful end of a node
    /// whose rooms' last changes are committed. The other nodes take its rooms over at
    /// their next lookup, without waiting for the leases to expire.
    pub async fn close(&self) {
        let inner = &self.inner;
        let _ = inner.stop.send(true);
        let held: Vec<(RoomCode, u64)> = lock(&inner.held)
            .drain()
            .map(|(code, held)| (code, held.revision))
            .collect();
        future::join_all(
            held.into_iter()
                .map(|(code, revision)| inner.drop_lease(code, revision)),
        )
        .await;
    }

    /// A snapshot of the counters.
    #[must_use]
    pub fn metrics(&self) -> ClusterMetrics {
        self.inner.counters.snapshot()
    }

    /// Every message of room `code`'s journal, oldest first: for checkers and tests.
    ///
    /// # Errors
    ///
    /// [`ClusterError::Nats`] if the journal could not be read, [`ClusterError::Corrupt`]
    /// if a message does not decode.
    pub async fn journal(&self, code: RoomCode) -> Result<Vec<Append>, ClusterError> {
        self.inner.read_journal(code).await
    }

    /// The rooms this node holds.
    #[must_use]
    pub fn held(&self) -> Vec<RoomCode> {
        let mut held: Vec<RoomCode> = lock(&self.inner.held).keys().copied().collect();
        held.sort_unstable();
        held
    }

    /// Stops (or starts again) renewing this node's leases, as a node would that is stalled:
    /// for tests of what happens to its rooms.
    #[cfg(feature = "testing")]
    #[doc(hidden)]
    pub fn __pause_renewals(&self, paused: bool) {
        self.inner.paused.store(paused, Ordering::Relaxed);
    }
}

impl Inner {
    /// The value of this node's leases.
    pub(crate) fn lease_value(&self) -> bytes::Bytes {
        let value = LeaseValue {
            node: self.writer.node.clone(),
            incarnation: self.writer.incarnation,
            urls: lock(&self.advertise).clone(),
        };
        // A struct of strings and numbers always serializes.
        serde_json::to_vec(&value).unwrap_or_default().into()
    }

    /// Whether this node holds `code`.
    pub(crate) fn holds(&self, code: RoomCode) -> bool {
        lock(&self.held).contains_key(&code)
    }

    /// The rooms this node holds, locked.
    pub(crate) fn held(&self) -> MutexGuard<'_, HashMap<RoomCode, Held>> {
        lock(&self.held)
    }

    /// Forgets `code` because its lease is lost: the relay is told through
    /// [`Cluster::lost_rooms`] (once, however the loss was found).
    fn lose(&self, code: RoomCode) {
        if lock(&self.held).remove(&code).is_some() {
            Counters::bump(&self.counters.lease_losses);
            let _ = self.lost_tx.send(code);
        }
    }

    /// A renewal of `code`'s lease at `revision` found another revision: this node's own
    /// earlier renewal that landed although its answer timed out (the lease is still this
    /// process's: its revision is taken, and the next renewal extends the belief), or
    /// another node's lease (the room is lost).
    async fn recheck(&self, code: RoomCode, revision: u64) {
        // Unknown for now: the next round renews again, or the belief runs out.
        let Ok(entry) = self.leases.entry(code.as_str()).await else {
            return;
        };
        let ours = entry.as_ref().and_then(|entry| {
            let lease: LeaseValue = serde_json::from_slice(&entry.value).ok()?;
            let mine = entry.operation == kv::Operation::Put
                && lease.node == self.writer.node
                && lease.incarnation == self.writer.incarnation;
            mine.then_some(entry.revision)
        });
        match ours {
            Some(current) => {
                if let Some(held) = self
                    .held()
                    .get_mut(&code)
                    .filter(|held| held.revision == revision)
                {
                    held.revision = current;
                }
            }
            None => {
                tracing::warn!(room = %code, "lease held by another node: room lost");
                self.lose(code);
            }
        }
    }

    /// Deletes the lease on `code` if it is still at `revision` (this node's). Best effort:
    /// a lease left behind expires after its TTL.
    pub(crate) async fn drop_lease(&self, code: RoomCode, revision: u64) {
        if let Err(err) = self
            .leases
            .delete_expect_revision(code.as_str(), Some(revision))
            .await
        {
            tracing::debug!(room = %code, %err, "a lease was not given up; it will expire");
        }
    }

    /// Purges room `code`'s journal and deletes its tokens (best effort: a later lookup finds
    /// the journal closed and tries again, and a token left behind leads nowhere).
    pub(crate) async fn forget_room(&self, code: RoomCode, tokens: &[ResumeToken]) {
        let subject = names::room_subject(code);
        if let Err(err) = self.rooms.purge().filter(subject).await {
            tracing::warn!(room = %code, %err, "a closed room's journal was not purged");
        }
        future::join_all(
            tokens
                .iter()
                .map(|token| self.tokens.delete(names::token_key(*token))),
        )
        .await;
    }

    /// The stream sequence of room `code`'s last message, 0 if it has none.
    async fn last_seq(&self, code: RoomCode) -> Result<u64, ClusterError> {
        match self
            .rooms
            .get_last_raw_message_by_subject(&names::room_subject(code))
            .await
        {
            Ok(message) => Ok(message.sequence),
            Err(err) if err.kind() == stream::LastRawMessageErrorKind::NoMessageFound => Ok(0),
            Err(err) => Err(ClusterError::nats("read a room's journal", err)),
        }
    }

    /// Every message of room `code`'s journal, oldest first.
    pub(crate) async fn read_journal(&self, code: RoomCode) -> Result<Vec<Append>, ClusterError> {
        let subject = names::room_subject(code);
        let read = async {
            let raw = setup::read_all(&self.rooms, &subject).await?;
            raw.into_iter()
                .map(|(seq, payload)| {
                    Append::decode(seq, &payload).map_err(|source| ClusterError::Corrupt {
                        what: format!("journal message {seq} of room {code}"),
                        source,
                    })
                })
                .collect()
        };
        tokio::time::timeout(self.read_timeout, read)
            .await
            .map_err(|_| ClusterError::nats("read a room's journal", "timed out"))?
    }
}

/// Renews the leases of the node behind `inner` every [`lease::renewal_period`], until told
/// to stop or the node is gone.
async fn renew(inner: Weak<Inner>, mut stop: watch::Receiver<bool>) {
    let Some(period) = inner
        .upgrade()
        .map(|inner| lease::renewal_period(inner.lease_ttl))
    else {
        return;
    };
    let mut ticks = tokio::time::interval(period);
    ticks.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        tokio::select! {
            _ = ticks.tick() => {}
            _ = stop.changed() => return,
        }
        let Some(inner) = inner.upgrade() else {
            return;
        };
        if *stop.borrow() {
            return;
        }
        if !inner.paused.load(Ordering::Relaxed) {
            renew_all(&inner, period).await;
        }
    }
}

/// One round of renewals: every lease at once, each bounded by `period`.
async fn renew_all(inner: &Inner, period: Duration) {
    let leases: Vec<(RoomCode, u64)> = inner
        .held()
        .iter()
        .map(|(code, held)| (*code, held.revision))
        .collect();
    if leases.is_empty() {
        return;
    }
    let value = inner.lease_value();
    let renewals = leases.into_iter().map(|(code, revision)| {
        let value = value.clone();
        async move {
            let sent = Instant::now();
            let renewed =
                tokio::time::timeout(period, inner.leases.update(code.as_str(), value, revision))
                    .await;
            (code, revision, sent, renewed)
        }
    });
    let results = future::join_all(renewals).await;
    let now = Instant::now();
    for (code, revision, sent, renewed) in results {
        match renewed {
            Ok(Ok(new_revision)) => {
                let mut held = inner.held();
                if let Some(held) = held.get_mut(&code).filter(|held| held.revision == revision) {
                    held.revision = new_revision;
                    held.believed_until = sent + lease::belief(inner.lease_ttl);
                    Counters::bump(&inner.counters.lease_renewals);
                }
            }
            Ok(Err(err)) if err.kind() == kv::UpdateErrorKind::WrongLastRevision => {
                inner.recheck(code, revision).await;
            }
            failed => {
                let expired = inner
                    .held()
                    .get(&code)
                    .is_some_and(|held| held.revision == revision && !held.is_believed(now));
                if expired {
                    tracing::warn!(room = %code, ?failed, "lease not renewed in time: room lost");
                    inner.lose(code);
                }
            }
        }
    }
}

/// A random number for this process: the standard library's per-process random hash keys
/// (seeded by the operating system), mixed with the time and the process id.
fn incarnation() -> u64 {
    use std::hash::{BuildHasher, Hasher};
    let mut hasher = std::collections::hash_map::RandomState::new().build_hasher();
    hasher.write_u32(std::process::id());
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |since| since.as_nanos());
    hasher.write_u128(nanos);
    hasher.finish()
}

/// Locks `mutex`, through a panic of another holder (the maps stay consistent: every
/// update is a single insert or remove).
pub(crate) fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}
