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

/// Rows a step looks at however little its commit appends, so that a pass also finishes
/// when the relay is quiet.
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

    /// A commit failed and its deletions were rolled back: the garbage they removed is back,
    /// possibly behind the cursor, so a new pass starts.
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
        let rows = MIN_ROWS.max(ROWS_PER_ENTRY * appended);
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
