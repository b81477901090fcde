//! Whether a game is still on, and how it ended.

use std::fmt;

use xq_rules::{Color, Outcome};

/// Where a match stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub enum Status {
    /// Moves are being played.
    Ongoing,
    /// The game is over; only [`crate::Match::rematch`] remains.
    Finished(GameResult),
}

/// How a game ended. Each reason belongs to either a win or a draw, so a drawn checkmate
/// cannot be written down.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub enum GameResult {
    /// One side won.
    Win {
        /// The winner.
        winner: Color,
        /// Why.
        reason: WinReason,
    },
    /// Neither side won.
    Draw {
        /// Why.
        reason: DrawReason,
    },
}

/// Why a game was won.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[non_exhaustive]
pub enum WinReason {
    /// The loser was in check with no legal move.
    Checkmate,
    /// The loser had no legal move without being in check; in Xiangqi that loses too.
    Stalemate,
    /// The loser gave check on every one of its moves through a threefold repetition that the
    /// winner did not.
    PerpetualCheck,
    /// The loser chased one and the same piece with every one of its moves through a
    /// threefold repetition, and the winner committed no graver fault (see
    /// [`crate::RepetitionRule::Asian`]).
    PerpetualChase,
    /// The loser's time ran out.
    TimeForfeit,
    /// The loser resigned.
    Resignation,
    /// The loser stayed disconnected past its grace period.
    Abandonment,
}

/// Why a game was drawn.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[non_exhaustive]
pub enum DrawReason {
    /// The same position occurred a third time with the same side to move, and neither side
    /// alone committed the gravest fault of the repetition rule (perpetual check, or under
    /// the Asian rules perpetual chase).
    Repetition,
    /// The natural move limit passed without a capture.
    MoveLimit,
    /// One seat offered a draw and the other accepted.
    Agreement,
    /// Both seats stayed disconnected past grace periods that ended at the same moment.
    Abandonment,
}

impl Status {
    /// Whether moves can still be played.
    #[must_use]
    pub const fn is_ongoing(self) -> bool {
        matches!(self, Self::Ongoing)
    }

    /// The result, once the game is over.
    #[must_use]
    pub const fn result(self) -> Option<GameResult> {
        match self {
            Self::Ongoing => None,
            Self::Finished(result) => Some(result),
        }
    }
}

impl GameResult {
    /// The result on the scoresheet, without the reason.
    #[must_use]
    pub const fn outcome(self) -> Outcome {
        match self {
            Self::Win { winner, .. } => Outcome::Decisive { winner },
            Self::Draw { .. } => Outcome::Draw,
        }
    }
}

impl WinReason {
    /// Every reason, in declaration order.
    pub const ALL: [Self; 7] = [
        Self::Checkmate,
        Self::Stalemate,
        Self::PerpetualCheck,
        Self::PerpetualChase,
        Self::TimeForfeit,
        Self::Resignation,
        Self::Abandonment,
    ];
}

impl DrawReason {
    /// Every reason, in declaration order.
    pub const ALL: [Self; 4] = [
        Self::Repetition,
        Self::MoveLimit,
        Self::Agreement,
        Self::Abandonment,
    ];
}

impl fmt::Display for GameResult {
    /// The reason in words, as the PGN `Termination` tag holds it ("checkmate").
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Win { reason, .. } => reason.fmt(f),
            Self::Draw { reason } => reason.fmt(f),
        }
    }
}

impl fmt::Display for WinReason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Self::Checkmate => "checkmate",
            Self::Stalemate => "stalemate",
            Self::PerpetualCheck => "perpetual check",
            Self::PerpetualChase => "perpetual chase",
            Self::TimeForfeit => "time forfeit",
            Self::Resignation => "resignation",
            Self::Abandonment => "abandonment",
        })
    }
}

impl fmt::Display for DrawReason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Self::Repetition => "repetition",
            Self::MoveLimit => "move limit",
            Self::Agreement => "agreement",
            Self::Abandonment => "abandonment",
        })
    }
}
