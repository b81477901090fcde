//! The SQLite schema and its version.
//!
//! The version lives in SQLite's `user_version` header field. A new file gets the current
//! schema; a file of the current version is used as it is; one of an older version is
//! migrated; anything else is refused, so an older relay never writes into a newer relay's
//! database. A change to the tables, or to the
//! encoding of a stored value (the bincode of [`xq_protocol::RoomOptions`] and
//! [`xq_session::Input`]), needs a new version and a migration here.

use rusqlite::{Connection, Transaction};

use crate::StoreError;

/// The schema version this crate reads and writes.
pub(crate) const VERSION: i64 = 4;

/// Version 4.
///
/// - `rooms`: one row per room with a match, with its options (their repetition rule since
///   version 3), both seats' resume tokens and
///   its start (on the relay's clock, and `opened_at` on the wall clock). A rematch replaces
///   the row, so `id` names one match and is never reused. `first_lost` and `second_lost`
///   are 1 once that seat's player stayed away past the grace period: its token is void.
/// - `entries`: every accepted input, one row each, in one append-only table: a commit writes
///   the table's last page or two however many rooms it touches, and nothing is rewritten per
///   move. `match_id` is the `rooms.id` of its match; once that row is gone the entries are
///   garbage, swept a stretch of the table per commit (see `sweep`) instead of one room at
///   a time.
/// - `games`: the archive of finished games, with their PGN record.
const SCHEMA: &str = "
CREATE TABLE rooms (
    id           INTEGER PRIMARY KEY AUTOINCREMENT,
    code         TEXT NOT NULL UNIQUE,
    options      BLOB NOT NULL,
    red          INTEGER NOT NULL,
    started      INTEGER NOT NULL,
    first_token  BLOB NOT NULL,
    second_token BLOB NOT NULL,
    opened_at    INTEGER NOT NULL,
    first_lost   INTEGER NOT NULL DEFAULT 0,
    second_lost  INTEGER NOT NULL DEFAULT 0
);

CREATE TABLE entries (
    id       INTEGER PRIMARY KEY,
    match_id INTEGER NOT NULL,
    seq      INTEGER NOT NULL,
    at       INTEGER NOT NULL,
    input    BLOB NOT NULL
);

CREATE TABLE games (
    id          INTEGER PRIMARY KEY,
    room        TEXT NOT NULL,
    red         TEXT NOT NULL,
    black       TEXT NOT NULL,
    result      TEXT NOT NULL,
    termination TEXT NOT NULL,
    moves       INTEGER NOT NULL,
    started_at  INTEGER NOT NULL,
    ended_at    INTEGER NOT NULL,
    pgn         TEXT NOT NULL
);
";

/// From version 1, which did not record lost seats: none was lost then.
const FROM_1: &str = "
ALTER TABLE rooms ADD COLUMN first_lost INTEGER NOT NULL DEFAULT 0;
ALTER TABLE rooms ADD COLUMN second_lost INTEGER NOT NULL DEFAULT 0;
";

/// From version 2, whose room options had no repetition rule: its relays judged perpetual
/// check alone, so its rooms keep that rule. The rule is the options' last field, and
/// bincode writes `RepetitionRule::ChecksOnly` as its variant index, the one byte 1. (Through
/// hex, since SQLite's `||` makes text of blobs.)
const FROM_2: &str = "
UPDATE rooms SET options = unhex(hex(options) || '01');
";

/// From version 3, whose journal entries wrote a player's command as one flat enum of
/// twelve variants (`Play { by, mv }` = 0 … `Resign { by }` = 7, then the relay's
/// `Abandon { by }` = 8, `PauseClocks`, `ResumeClocks`, `AbandonBoth` = 11). Version 4 writes
/// `Command::Act { by, action }` = 0 with the action's own index (0 to 7, in the old order)
/// after the colour, and the relay's commands as 1 to 4. Every index is one bincode byte, and
/// `Input::Flag` (a first byte of 1) is unchanged, so the bytes are reordered in place.
const FROM_3: &str = "
UPDATE entries SET input = unhex(CASE
    WHEN substr(hex(input), 1, 2) <> '00' THEN hex(input)
    WHEN substr(hex(input), 3, 2) BETWEEN '00' AND '07'
        THEN '0000' || substr(hex(input), 5, 2) || substr(hex(input), 3, 2)
            || substr(hex(input), 7)
    WHEN substr(hex(input), 3, 2) = '08' THEN '0001' || substr(hex(input), 5)
    WHEN substr(hex(input), 3, 2) = '09' THEN '0002'
    WHEN substr(hex(input), 3, 2) = '0A' THEN '0003'
    ELSE '0004'
END);
";

/// Creates the schema in a new database, migrates an older one, or checks the version of an
/// existing one.
pub(crate) fn prepare(conn: &mut Connection) -> Result<(), StoreError> {
    let tx = conn.transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)?;
    match version(&tx)? {
        VERSION => {}
        found @ 1..VERSION => {
            let steps = [FROM_1, FROM_2, FROM_3];
            for step in steps.iter().skip(usize::try_from(found - 1).unwrap_or(0)) {
                tx.execute_batch(step)?;
            }
            tx.pragma_update(None, "user_version", VERSION)?;
        }
        0 if is_empty(&tx)? => {
            tx.execute_batch(SCHEMA)?;
            tx.pragma_update(None, "user_version", VERSION)?;
        }
        0 => return Err(StoreError::NotOurs),
        found => {
            return Err(StoreError::UnknownVersion {
                found,
                supported: VERSION,
            });
        }
    }
    tx.commit()?;
    Ok(())
}

/// Checks that a database opened only to read its archive is an xq-relay database of this
/// version or an older one (the archive's table has not changed since the first).
pub(crate) fn check_readable(conn: &Connection) -> Result<(), StoreError> {
    let found: i64 = conn.pragma_query_value(None, "user_version", |row| row.get(0))?;
    match found {
        1..=VERSION => Ok(()),
        0 => Err(StoreError::NotOurs),
        found => Err(StoreError::UnknownVersion {
            found,
            supported: VERSION,
        }),
    }
}

fn version(tx: &Transaction<'_>) -> Result<i64, StoreError> {
    Ok(tx.pragma_query_value(None, "user_version", |row| row.get(0))?)
}

fn is_empty(tx: &Transaction<'_>) -> Result<bool, StoreError> {
    let tables: i64 = tx.query_row("SELECT count(*) FROM sqlite_schema", [], |row| row.get(0))?;
    Ok(tables == 0)
}
