//! The interface every storage engine implements.

use std::fmt;

use xq_protocol::RoomCode;

use crate::{GameId, GameSummary, OpenRoom, Persist, StoreError};

/// A storage engine for the relay: SQLite (`SqliteStore`, feature `sqlite`) by default, and room for a
/// networked database later.
///
/// **Synchronous on purpose.** The relay runs its storage on a thread of its own and commits
/// in groups: while one batch is being committed, the relay keeps working and queues the next
/// one. A blocking interface is then the simplest that can be fast: SQLite is blocking
/// anyway, the trait needs no async runtime or boxed futures, and a networked engine can
/// block on its own client on that thread just as well (group commit already spreads each
/// round trip over many changes).
///
/// The methods take `&mut self` because one thread owns the engine; `Send` lets that thread
/// be started by whoever built it.
pub trait Storage: Send + fmt::Debug {
    /// Applies `changes` in order, **all or none, and durably** before it returns: once it
    /// returns `Ok`, a crash of the process (or of the machine, as far as the engine can
    /// promise) loses none of them.
    ///
    /// An engine shared by several relays (a cluster) may refuse the changes of a room this
    /// relay no longer owns: then **none of that room's changes** is applied, the room is named
    /// in [`Committed::refused`], and the relay must give the room up without sending anything
    /// that waited for them. The other rooms' changes are applied as usual. An engine with one
    /// writer (SQLite) never refuses a room.
    ///
    /// # Errors
    ///
    /// A [`StoreError`] if the changes could not be committed; then none of them was.
    fn commit(&mut self, changes: &[Persist]) -> Result<Committed, StoreError>;

    /// Every room whose match was open at the last commit, with its journal.
    ///
    /// # Errors
    ///
    /// A [`StoreError`] if the rooms cannot be read or a stored value does not decode.
    fn open_rooms(&mut self) -> Result<Vec<OpenRoom>, StoreError>;

    /// Every archived game, oldest first.
    ///
    /// # Errors
    ///
    /// A [`StoreError`] if the archive cannot be read.
    fn games(&mut self) -> Result<Vec<GameSummary>, StoreError>;

    /// The PGN record of archived game `id`, or `None` if there is no such game.
    ///
    /// # Errors
    ///
    /// A [`StoreError`] if the archive cannot be read.
    fn pgn(&mut self, id: GameId) -> Result<Option<String>, StoreError>;
}

/// What a [`Storage::commit`] that succeeded did not apply.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Committed {
    /// The rooms whose changes were all refused, because another writer owns them now.
    pub refused: Vec<RoomCode>,
}
