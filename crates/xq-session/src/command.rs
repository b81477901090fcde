//! Inputs to a match, and why one may be refused.

use xq_rules::{Color, IllegalMove, Move};

/// What a player asks of the match. It names no colour: whoever hands it to the match says
/// whose it is ([`Action::by`]), so a player cannot speak for the other seat, and nothing a
/// player sends can be one of the relay's own inputs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub enum Action {
    /// Play a move; only the side to move may.
    Play(Move),
    /// Ask the opponent to take back the requester's last move (and the opponent's reply, if
    /// any), so that the requester is on move again.
    RequestUndo,
    /// Withdraw one's own pending undo request.
    WithdrawUndo,
    /// Accept or decline the opponent's pending undo request.
    ///
    /// Accepting does not turn the clocks back: the answerer is charged for its time up to the
    /// answer, and each side keeps the increments its taken-back moves earned, so the
    /// requester may have more time than before its move. Declining is the way to refuse that.
    AnswerUndo {
        /// Whether the moves are taken back.
        accept: bool,
    },
    /// Offer a draw. The offer stands until the opponent answers or makes its next move.
    OfferDraw,
    /// Withdraw one's own pending draw offer.
    WithdrawDraw,
    /// Accept or decline the opponent's pending draw offer.
    AnswerDraw {
        /// Whether the game ends in a draw.
        accept: bool,
    },
    /// Resign: the opponent wins at once.
    Resign,
}

impl Action {
    /// This action as the command of the player of `by`.
    #[must_use]
    pub const fn by(self, by: Color) -> Command {
        Command::Act { by, action: self }
    }
}

/// An input to a match: a player's [`Action`] with the colour it is played for, or one of the
/// relay's own verdicts. Feed it to [`crate::Match::handle`].
///
/// Players are known only by the [`Color`] they play; the relay maps connections to colours
/// (see [`crate::Seat`]) and wraps what a player sends with the colour of its seat.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub enum Command {
    /// A player's action.
    Act {
        /// The colour of the seat acting.
        by: Color,
        /// What it does.
        action: Action,
    },
    /// The seat stayed disconnected past its grace period and loses.
    Abandon {
        /// The seat that left.
        by: Color,
    },
    /// Stop both clocks, charging the side to move for its time so far (before a planned
    /// shutdown, or while the relay cannot reach the players).
    PauseClocks,
    /// Restart the clock of the side to move from the command's time, whether it was paused
    /// or still running. After a restart the relay rebuilds the match and sends this at once:
    /// time since the last input before the restart is not charged, and timestamps from the
    /// new origin are measured from here.
    ResumeClocks,
    /// Both seats stayed disconnected past grace periods that ended at the same moment (after
    /// a restart that neither player came back to), and neither loses alone: the game is
    /// drawn.
    AbandonBoth,
}

/// Why a command was refused. A refused command changes nothing.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[non_exhaustive]
pub enum CommandError {
    /// The game is over (perhaps just now: a flag that fell before the command arrived ends the
    /// game first).
    #[error("the game is over")]
    GameFinished,
    /// Only the side to move may play.
    #[error("not your turn")]
    NotYourTurn,
    /// The move breaks the rules.
    #[error("illegal move: {0}")]
    IllegalMove(#[from] IllegalMove),
    /// The match does not allow undo.
    #[error("undo is not allowed in this match")]
    UndoNotAllowed,
    /// The seat has had as many undos granted as the match allows.
    #[error("no undo left")]
    UndoAllowanceUsed,
    /// An undo request is already waiting for an answer.
    #[error("an undo request is already pending")]
    UndoAlreadyPending,
    /// The requester has made no move that could be taken back.
    #[error("nothing to undo")]
    NothingToUndo,
    /// There is no undo request to answer or withdraw.
    #[error("no undo request is pending")]
    NoPendingUndo,
    /// A draw offer is already waiting for an answer.
    #[error("a draw offer is already pending")]
    DrawAlreadyOffered,
    /// There is no draw offer to answer or withdraw.
    #[error("no draw offer is pending")]
    NoPendingDraw,
    /// A seat cannot answer its own undo request or draw offer.
    #[error("cannot answer your own request")]
    CannotAnswerOwnRequest,
    /// Only the seat that made a request or offer can withdraw it.
    #[error("the request is not yours to withdraw")]
    NotYourRequest,
    /// The match is untimed, so there are no clocks to pause or resume.
    #[error("the match has no clocks")]
    NoClocks,
    /// The clocks are already paused.
    #[error("the clocks are already paused")]
    ClocksAlreadyPaused,
}
