//! Deleting the journal entries of matches that are over and gone, a little in every commit.
//!
//! A match's entries become garbage when its room closes or a rematch replaces it. Deleting
//! them all at once would hold up the commit that does it, and with it every move waiting for
//! that commit: with a thousand busy rooms, a sweep of the whole journal took a tenth of a
//! second or more. So each commit looks at a stretch of the journal in row order, sized by
//! what the commit appends, and a pass over the whole journal spreads over many commits.

use rusqlite::{Connection, OptionalExtension, Transaction};

use crate::StoreError;

/// Rows a step looks at for every entry its commit appends. More than one, so that a pass
/// gains on the end of the journal and finishes.
const ROWS_PER_ENTRY: usize = 2;

/// Rows a step looks at however little its commit appends, so that small commits, and those
/// with no entries (rooms starting or closing), move a pass on too. A relay that commits
/// nothing at all leaves its garbage until its next commit, or until the file is reopened.
const MIN_ROWS: usize = 64;

/// Deletes the garbage among the entries with `id` in `?1 < id <= ?2`.
const DELETE_GARBAGE: &str = "DELETE FROM entries WHERE id > ?1 AND id <= ?2 \
     AND NOT EXISTS (SELECT 1 FROM rooms WHERE rooms.id = entries.match_id)";

/// The `id` of the `?2`-th entry after `?1` (counting from 0).
const STEP_END: &str = "SELECT id FROM entries WHERE id > ?1 ORDER BY id LIMIT 1 OFFSET ?2";

/// Deletes all the garbage at once: for opening a file, before the relay serves.
pub(crate) fn all(conn: &Connection) -> Result<(), StoreError> {
    conn.execute(DELETE_GARBAGE, [0, i64::MAX])?;
    Ok(())
}

/// Where the sweep stands.
#[derive(Debug, Default)]
pub(crate) struct Sweep {
    /// The last entry the pass under way has looked at (0 before its first step); `None`
    /// between passes.
    cursor: Option<i64>,
    /// A match ended since the pass under way began: its entries may lie behind the cursor,
    /// so another pass is due once this one ends.
    due: bool,
}

impl Sweep {
    /// A match ended: its entries are garbage, to be found by the next pass.
    pub(crate) fn match_ended(&mut self) {
        self.due = true;
    }

    /// A commit failed: whatever its step deleted was rolled back, possibly behind the cursor,
    /// so a new pass starts.
    pub(crate) fn restart(&mut self) {
        *self = Self {
            cursor: None,
            due: true,
        };
    }

    /// One step of the pass under way (or of a new one, if one is due), inside the
    /// transaction of a commit that appended `appended` entries.
    pub(crate) fn step(&mut self, tx: &Transaction<'_>, appended: usize) -> Result<(), StoreError> {
        let from = match self.cursor {
            Some(cursor) => cursor,
            None if self.due => {
                self.due = false;
                0
            }
            None => return Ok(()),
        };
        let rows = MIN_ROWS.max(ROWS_PER_ENTRY.saturating_mul(appended));
        let last = i64::try_from(rows - 1).unwrap_or(i64::MAX);
        let end: Option<i64> = tx
            .prepare_cached(STEP_END)?
            .query_row([from, last], |row| row.get(0))
            .optional()?;
        // With fewer rows left than the step's share, the pass ends with this step.
        tx.prepare_cached(DELETE_GARBAGE)?
            .execute([from, end.unwrap_or(i64::MAX)])?;
        self.cursor = end;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A store's schema with `garbage` journal entries whose match is gone.
    fn journal(garbage: i64) -> Connection {
        let mut conn = Connection::open_in_memory().expect("opens");
        crate::schema::prepare(&mut conn).expect("creates the schema");
        for seq in 0..garbage {
            conn.execute(
                "INSERT INTO entries (match_id, seq, at, input) VALUES (7, ?1, 0, x'')",
                [seq],
            )
            .expect("inserts");
        }
        conn
    }

    fn rows(conn: &Connection) -> i64 {
        conn.query_row("SELECT count(*) FROM entries", [], |row| row.get(0))
            .expect("counts")
    }

    #[test]
    fn a_failed_commit_restarts_the_pass() {
        let mut conn = journal(10);
        let mut sweep = Sweep::default();
        sweep.match_ended();
        {
            // The step deletes everything and ends its pass, then the commit fails.
            let tx = conn.transaction().expect("begins");
            sweep.step(&tx, 0).expect("steps");
            assert_eq!(rows(&tx), 0);
        }
        assert_eq!(rows(&conn), 10);
        sweep.restart();
        let tx = conn.transaction().expect("begins");
        sweep.step(&tx, 0).expect("steps");
        tx.commit().expect("commits");
        assert_eq!(rows(&conn), 0);
    }

    #[test]
    fn nothing_is_swept_until_a_match_ends() {
        let mut conn = journal(10);
        let mut sweep = Sweep::default();
        let tx = conn.transaction().expect("begins");
        sweep.step(&tx, 0).expect("steps");
        assert_eq!(rows(&tx), 10);
    }
}
