//! The default engine: one SQLite file in write-ahead-logging mode.

use std::collections::HashMap;
use std::path::Path;
use std::time::Duration;

use blob::{decode, encode};
use rusqlite::{
    Connection, OpenFlags, OptionalExtension, Statement, Transaction, TransactionBehavior, params,
};
use xq_protocol::{ResumeToken, RoomCode};
use xq_session::{Entry, Seat, Timestamp};

use crate::archive::Archived;
use crate::sweep::{self, Sweep};
use crate::{
    Committed, GameId, GameSummary, OpenRoom, Persist, Storage, StoreError, UnixTime, schema,
};

/// How long a statement waits for another process's lock (`xq-relay games list` reading
/// while the relay writes) before it fails.
const BUSY_TIMEOUT: Duration = Duration::from_secs(5);

/// The relay's storage in one SQLite file (plus its `-wal` and `-shm` companions while open).
///
/// The file is in write-ahead-logging mode with `synchronous = FULL`: a commit returns once
/// its log record is on disk, so neither a killed process nor a power cut loses it, and
/// readers (another process listing games) never block the writer. Each [`Storage::commit`]
/// is one transaction: one log write and one sync for the whole batch, which is what makes
/// group commit pay. Journal entries are appended one row each to a single table, so a batch
/// of moves from a thousand rooms writes a page or two; nothing is rewritten per move.
///
/// The path `:memory:` gives a private in-memory database (for tests: nothing survives).
#[derive(Debug)]
pub struct SqliteStore {
    conn: Connection,
    /// The deletion of ended matches' entries, a step in each commit.
    sweep: Sweep,
    /// The `rooms.id` of each stored room's match, so that a move's entry goes in without
    /// looking its room up by code. Only this store writes the rooms (other processes only
    /// read the archive), so it follows them.
    matches: HashMap<RoomCode, i64>,
    /// Set by a failed commit, whose rollback `matches` may have run ahead of: they are read
    /// again from the database before the next commit.
    stale: bool,
}

impl SqliteStore {
    /// Opens the database at `path`, creating the file and the schema if needed.
    ///
    /// # Errors
    ///
    /// A [`StoreError`] if the file cannot be opened, is not an xq-relay database, has a
    /// schema version this relay does not know, or cannot use write-ahead logging.
    pub fn open(path: impl AsRef<Path>) -> Result<Self, StoreError> {
        let mut conn = Connection::open(path)?;
        conn.busy_timeout(BUSY_TIMEOUT)?;
        // Whose file it is comes first: a file refused is left as it was, journal mode too.
        schema::prepare(&mut conn)?;
        let mode: String =
            conn.pragma_update_and_check(None, "journal_mode", "wal", |row| row.get(0))?;
        // An in-memory database has no log file to write ahead to.
        if !mode.eq_ignore_ascii_case("wal") && !mode.eq_ignore_ascii_case("memory") {
            return Err(StoreError::Journaling(mode));
        }
        conn.pragma_update(None, "synchronous", "FULL")?;
        sweep::all(&conn)?;
        let matches = stored_matches(&conn)?;
        Ok(Self {
            conn,
            sweep: Sweep::default(),
            matches,
            stale: false,
        })
    }

    /// [`Storage::commit`] as one transaction, with `matches` following the rooms it writes.
    fn commit_batch(&mut self, changes: &[Persist]) -> Result<(), StoreError> {
        let now = UnixTime::now();
        let tx = self
            .conn
            .transaction_with_behavior(TransactionBehavior::Immediate)?;
        let mut appended = 0;
        {
            // Nearly every change is an entry: its statement is looked up once per batch.
            let mut insert_entry = tx.prepare_cached(INSERT_ENTRY)?;
            for change in changes {
                if apply(&tx, &mut insert_entry, &mut self.matches, change, now)? {
                    self.sweep.match_ended();
                }
                appended += usize::from(matches!(change, Persist::Entry { .. }));
            }
        }
        self.sweep.step(&tx, appended)?;
        tx.commit()?;
        Ok(())
    }
}

/// Every stored room's code with the `rooms.id` of its match.
fn stored_matches(conn: &Connection) -> Result<HashMap<RoomCode, i64>, StoreError> {
    let mut select = conn.prepare("SELECT code, id FROM rooms")?;
    let mut rows = select.query([])?;
    let mut matches = HashMap::new();
    while let Some(row) = rows.next()? {
        let code = room_code(&row.get::<_, String>(0)?, "code")?;
        matches.insert(code, row.get(1)?);
    }
    Ok(matches)
}

/// A room code read back from the database; `what` names the column for the error.
fn room_code(text: &str, what: &'static str) -> Result<RoomCode, StoreError> {
    text.parse().map_err(|_| StoreError::Corrupt {
        what,
        code: text.to_string(),
    })
}

impl Storage for SqliteStore {
    fn commit(&mut self, changes: &[Persist]) -> Result<Committed, StoreError> {
        if self.stale {
            self.matches = stored_matches(&self.conn)?;
            self.stale = false;
        }
        let committed = self.commit_batch(changes);
        self.stale = committed.is_err();
        if self.stale {
            self.sweep.restart();
        }
        // The only writer of its file: no room is ever refused.
        committed.map(|()| Committed::default())
    }

    fn open_rooms(&mut self) -> Result<Vec<OpenRoom>, StoreError> {
        let tx = self.conn.transaction()?;
        let mut rooms = Vec::new();
        let mut by_match = HashMap::new();
        {
            let mut select = tx.prepare(
                "SELECT id, code, options, red, started, first_token, second_token, first_lost, \
                 second_lost FROM rooms ORDER BY code",
            )?;
            let mut rows = select.query([])?;
            while let Some(row) = rows.next()? {
                let text: String = row.get(1)?;
                let corrupt = |what| StoreError::Corrupt {
                    what,
                    code: text.clone(),
                };
                let code = room_code(&text, "code")?;
                let options =
                    decode(&row.get::<_, Vec<u8>>(2)?).ok_or_else(|| corrupt("options"))?;
                let red = seat_from_sql(row.get(3)?).ok_or_else(|| corrupt("red seat"))?;
                let token = |index| -> Result<ResumeToken, StoreError> {
                    let bytes: Vec<u8> = row.get(index)?;
                    let token = bytes.try_into().map_err(|_| corrupt("resume token"))?;
                    Ok(ResumeToken(token))
                };
                let mut lost = Vec::new();
                for (index, seat) in [(7, Seat::First), (8, Seat::Second)] {
                    if row.get::<_, bool>(index)? {
                        lost.push(seat);
                    }
                }
                by_match.insert(row.get::<_, i64>(0)?, rooms.len());
                rooms.push(OpenRoom {
                    code,
                    options,
                    red,
                    started: Timestamp::from_millis(row.get(4)?),
                    first_token: token(5)?,
                    second_token: token(6)?,
                    lost,
                    entries: Vec::new(),
                });
            }
        }
        // One pass over the journal, in the order it was written.
        let mut select = tx.prepare("SELECT match_id, seq, at, input FROM entries ORDER BY id")?;
        let mut rows = select.query([])?;
        while let Some(row) = rows.next()? {
            let Some(&index) = by_match.get(&row.get::<_, i64>(0)?) else {
                continue; // a match that is gone, not swept yet
            };
            let room = &mut rooms[index];
            let corrupt = |what| StoreError::Corrupt {
                what,
                code: room.code.to_string(),
            };
            if row.get::<_, u64>(1)? != room.entries.len() as u64 {
                return Err(corrupt("journal (an entry is missing)"));
            }
            let input =
                decode(&row.get::<_, Vec<u8>>(3)?).ok_or_else(|| corrupt("journal entry"))?;
            room.entries.push(Entry {
                at: Timestamp::from_millis(row.get(2)?),
                input,
            });
        }
        Ok(rooms)
    }

    fn games(&mut self) -> Result<Vec<GameSummary>, StoreError> {
        read_games(&self.conn)
    }

    fn pgn(&mut self, id: GameId) -> Result<Option<String>, StoreError> {
        read_pgn(&self.conn, id)
    }
}

/// The archive of a relay's database, opened only to read it (`xq-relay games list` and
/// `games export`).
///
/// Nothing is written, not even a migration or a change of journal mode: it reads a file a
/// running relay is using, a file of an older version (which an older relay can then still
/// use), and a file this process may not write. A file no relay has open (it has no log
/// beside it) is read as it stands, so that no lock files are left beside it, owned by
/// whoever listed the games; one a relay has open is read through its log, sharing the
/// relay's lock files.
#[derive(Debug)]
pub struct SqliteArchive {
    conn: Connection,
}

impl SqliteArchive {
    /// Opens the database at `path` for reading.
    ///
    /// # Errors
    ///
    /// A [`StoreError`] if the file cannot be opened or is not an xq-relay database of this
    /// version or an older one.
    pub fn open(path: impl AsRef<Path>) -> Result<Self, StoreError> {
        let path = path.as_ref();
        let mut log = path.as_os_str().to_owned();
        log.push("-wal");
        let conn = match path.to_str() {
            Some(text) if !Path::new(&log).exists() => Connection::open_with_flags(
                format!("file:{}?immutable=1", uri_escaped(text)),
                OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_URI,
            )?,
            _ => Connection::open_with_flags(path, OpenFlags::SQLITE_OPEN_READ_ONLY)?,
        };
        conn.busy_timeout(BUSY_TIMEOUT)?;
        schema::check_readable(&conn)?;
        Ok(Self { conn })
    }

    /// Every archived game, oldest first (as [`Storage::games`]).
    ///
    /// # Errors
    ///
    /// A [`StoreError`] if the archive cannot be read.
    pub fn games(&self) -> Result<Vec<GameSummary>, StoreError> {
        read_games(&self.conn)
    }

    /// The PGN record of archived game `id`, if there is one (as [`Storage::pgn`]).
    ///
    /// # Errors
    ///
    /// A [`StoreError`] if the archive cannot be read.
    pub fn pgn(&self, id: GameId) -> Result<Option<String>, StoreError> {
        read_pgn(&self.conn, id)
    }
}

/// `path` as the path of an SQLite `file:` URI, whose `?`, `#` and `%` would mean more.
fn uri_escaped(path: &str) -> String {
    path.replace('%', "%25")
        .replace('?', "%3f")
        .replace('#', "%23")
}

/// Every archived game, oldest first.
fn read_games(conn: &Connection) -> Result<Vec<GameSummary>, StoreError> {
    let mut select = conn.prepare(
        "SELECT id, room, started_at, ended_at, red, black, result, termination, moves \
         FROM games ORDER BY id",
    )?;
    let mut rows = select.query([])?;
    let mut games = Vec::new();
    while let Some(row) = rows.next()? {
        let room = room_code(&row.get::<_, String>(1)?, "archived game's room code")?;
        games.push(GameSummary {
            id: GameId(row.get(0)?),
            room,
            started: UnixTime(row.get(2)?),
            ended: UnixTime(row.get(3)?),
            red: row.get(4)?,
            black: row.get(5)?,
            result: row.get(6)?,
            termination: row.get(7)?,
            moves: row.get(8)?,
        });
    }
    Ok(games)
}

/// The PGN record of archived game `id`, if there is one.
fn read_pgn(conn: &Connection, id: GameId) -> Result<Option<String>, StoreError> {
    let pgn = conn
        .query_row("SELECT pgn FROM games WHERE id = ?1", [id.0], |row| {
            row.get(0)
        })
        .optional()?;
    Ok(pgn)
}

/// Appends an entry to the journal of a match.
const INSERT_ENTRY: &str = "INSERT INTO entries (match_id, seq, at, input) VALUES (?1, ?2, ?3, ?4)";

/// Applies one change inside the commit's transaction; says whether a match ended, leaving
/// its entries to the sweep.
fn apply(
    tx: &Transaction<'_>,
    insert_entry: &mut Statement<'_>,
    matches: &mut HashMap<RoomCode, i64>,
    change: &Persist,
    now: UnixTime,
) -> Result<bool, StoreError> {
    match change {
        Persist::MatchStarted {
            code,
            options,
            red,
            started,
            first_token,
            second_token,
        } => {
            // A rematch replaces the room's match; the old match's entries become garbage.
            let replaced = tx
                .prepare_cached("DELETE FROM rooms WHERE code = ?1")?
                .execute([code.as_str()])?;
            tx.prepare_cached(
                "INSERT INTO rooms (code, options, red, started, first_token, second_token, \
                 opened_at) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
            )?
            .execute(params![
                code.as_str(),
                encode(options)?,
                seat_to_sql(*red),
                started.as_millis(),
                &first_token.0[..],
                &second_token.0[..],
                now.0,
            ])?;
            matches.insert(*code, tx.last_insert_rowid());
            Ok(replaced > 0)
        }
        Persist::Entry { code, seq, entry } => {
            let id = matches.get(code).ok_or(StoreError::UnknownRoom(*code))?;
            insert_entry.execute(params![
                id,
                seq,
                entry.at.as_millis(),
                encode(&entry.input)?
            ])?;
            Ok(false)
        }
        Persist::MatchOver { code, record } => {
            let room = tx
                .prepare_cached("SELECT red, opened_at FROM rooms WHERE code = ?1")?
                .query_row([code.as_str()], |row| {
                    Ok((row.get::<_, i64>(0)?, row.get::<_, i64>(1)?))
                })
                .optional()?;
            let (red, opened_at) = room.ok_or(StoreError::UnknownRoom(*code))?;
            let red = seat_from_sql(red).ok_or_else(|| StoreError::Corrupt {
                what: "red seat",
                code: code.to_string(),
            })?;
            let game = Archived::new(*code, red, UnixTime(opened_at), record);
            tx.prepare_cached(
                "INSERT INTO games (room, red, black, result, termination, moves, started_at, \
                 ended_at, pgn) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)",
            )?
            .execute(params![
                code.as_str(),
                game.red,
                game.black,
                game.result,
                game.termination,
                game.moves,
                opened_at,
                now.0,
                game.pgn,
            ])?;
            Ok(false)
        }
        Persist::SeatLost { code, seat } => {
            let update = match seat {
                Seat::First => "UPDATE rooms SET first_lost = 1 WHERE code = ?1",
                Seat::Second => "UPDATE rooms SET second_lost = 1 WHERE code = ?1",
            };
            // A room waiting for its second player was never stored: nothing to mark then.
            tx.prepare_cached(update)?.execute([code.as_str()])?;
            Ok(false)
        }
        Persist::RoomClosed { code } => {
            // Rooms closed before a match began were never stored: nothing to delete then.
            let closed = tx
                .prepare_cached("DELETE FROM rooms WHERE code = ?1")?
                .execute([code.as_str()])?;
            matches.remove(code);
            Ok(closed > 0)
        }
    }
}

const fn seat_to_sql(seat: Seat) -> i64 {
    match seat {
        Seat::First => 0,
        Seat::Second => 1,
    }
}

const fn seat_from_sql(value: i64) -> Option<Seat> {
    match value {
        0 => Some(Seat::First),
        1 => Some(Seat::Second),
        _ => None,
    }
}

/// Stored values in bincode's standard configuration (part of the schema: see
/// [`crate::schema`]).
mod blob {
    use crate::StoreError;

    pub(super) fn encode<T: serde::Serialize>(value: &T) -> Result<Vec<u8>, StoreError> {
        Ok(bincode::serde::encode_to_vec(
            value,
            bincode::config::standard(),
        )?)
    }

    /// The value, or `None` if the bytes are not one (the caller names what is corrupt).
    pub(super) fn decode<T: serde::de::DeserializeOwned>(bytes: &[u8]) -> Option<T> {
        match bincode::serde::decode_from_slice(bytes, bincode::config::standard()) {
            Ok((value, read)) if read == bytes.len() => Some(value),
            _ => None,
        }
    }
}
