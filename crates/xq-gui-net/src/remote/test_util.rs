//! The mirrors the remote backend's unit tests start from.

use xq_client::Mirror;
use xq_protocol::{SeatInfo, Snapshot};
use xq_rules::{ByColor, Move};
use xq_session::{MatchConfig, Status};

/// A room with both players connected, an untimed default match, these moves and nothing
/// pending; tests change the fields they are about.
pub(super) fn snapshot(moves: Vec<Move>) -> Snapshot {
    let here = SeatInfo {
        taken: true,
        connected: true,
    };
    Snapshot {
        code: "K7QX3M".parse().expect("a valid code"),
        config: MatchConfig::default(),
        moves,
        clocks: None,
        clocks_running: false,
        pending_undo: None,
        pending_draw: None,
        status: Status::Ongoing,
        seats: ByColor {
            red: here,
            black: here,
        },
        rematch_requested: None,
        next_seq: 0,
    }
}

/// The mirror of `snapshot`.
pub(super) fn mirror(snapshot: &Snapshot) -> Mirror {
    Mirror::from_snapshot(snapshot).expect("the moves replay")
}
