//! Where the cluster keeps what in NATS: the names every node (and an operator with the
//! `nats` CLI) uses.

use xq_protocol::{ResumeToken, RoomCode};

/// The stream of the rooms' journals, one subject per room.
pub const ROOMS_STREAM: &str = "XQ_ROOMS";
/// The subjects of [`ROOMS_STREAM`].
pub const ROOMS_SUBJECTS: &str = "xq.room.*";
/// The stream of finished games, one message each.
pub const GAMES_STREAM: &str = "XQ_GAMES";
/// The subjects of [`GAMES_STREAM`].
pub const GAMES_SUBJECTS: &str = "xq.game.>";
/// The key/value bucket of room leases: key = room code, value = the owner (JSON).
pub const LEASES_BUCKET: &str = "XQ_LEASES";
/// The key/value bucket of resume tokens: key = the token in hex, value = its room code.
pub const TOKENS_BUCKET: &str = "XQ_TOKENS";

/// The subject of room `code`'s journal: `xq.room.<CODE>`.
#[must_use]
pub fn room_subject(code: RoomCode) -> String {
    format!("xq.room.{code}")
}

/// The subject of a game of room `code` whose match started with the journal message at
/// stream sequence `start_seq`: `xq.game.<CODE>.<start_seq>`. Stream sequences are never
/// reused, so the subject names one game for ever, even after the code is used again.
#[must_use]
pub fn game_subject(code: RoomCode, start_seq: u64) -> String {
    format!("xq.game.{code}.{start_seq}")
}

/// The subject a node's process answers on while it is connected, so that other nodes can
/// tell whether a room's owner is still there: `xq.node.<NODE>.<INCARNATION>`.
#[must_use]
pub fn presence_subject(node: &str, incarnation: u64) -> String {
    format!("xq.node.{node}.{incarnation}")
}

/// The key of `token` in [`TOKENS_BUCKET`]: 32 lower-case hex digits.
#[must_use]
pub fn token_key(token: ResumeToken) -> String {
    use std::fmt::Write;
    token
        .0
        .iter()
        .fold(String::with_capacity(32), |mut key, byte| {
            // Writing to a String cannot fail.
            let _ = write!(key, "{byte:02x}");
            key
        })
}

/// The room code of a subject of [`ROOMS_STREAM`], if it is one.
pub(crate) fn room_of_subject(subject: &str) -> Option<RoomCode> {
    subject.strip_prefix("xq.room.")?.parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip() {
        let code = RoomCode::from_u64(12_345);
        assert_eq!(room_of_subject(&room_subject(code)), Some(code));
        assert_eq!(room_of_subject("xq.room.lower0"), None);
        assert_eq!(room_of_subject("xq.game.AAAAAA"), None);
        assert_eq!(token_key(ResumeToken([0xab; 16])), "ab".repeat(16));
    }
}
