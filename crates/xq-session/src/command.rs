//! Inputs to a match, and why one may be refused.

use xq_rules::{Color, IllegalMove, Move};

/// Something a seat (or the relay) asks the match to do. Feed it to [`crate::Match::handle`].
///
/// Players are known only by the [`Color`] they play; the relay maps connections to colours
/// (see [`crate::Seat`]). The commands [`player`](Self::player) gives no colour for are the
/// relay's own and must never be taken from a client.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub enum Command {
    /// Play a move; only the side to move may.
    Play {
        /// The seat playing.
        by: Color,
        /// The move.
        mv: Move,
    },
    /// Ask the opponent to take back the requester's last move (and the opponent's reply, if
    /// any), so that the requester is on move again.
    RequestUndo {
        /// The seat asking.
        by: Color,
    },
    /// Withdraw one's own pending undo request.
    WithdrawUndo {
        /// The seat that asked.
        by: Color,
    },
    /// Accept or decline the opponent's pending undo request.
    ///
    /// Accepting does not turn the clocks back: the answerer is charged for its time up to the
    /// answer, and each side keeps the increments its taken-back moves earned, so the
    /// requester may have more time than before its move. Declining is the way to refuse that.
    AnswerUndo {
        /// The seat answering: the requester's opponent.
        by: Color,
        /// Whether the moves are taken back.
        accept: bool,
    },
    /// Offer a draw. The offer stands until the opponent answers or makes its next move.
    OfferDraw {
        /// The seat offering.
        by: Color,
    },
    /// Withdraw one's own pending draw offer.
    WithdrawDraw {
        /// The seat that offered.
        by: Color,
    },
    /// Accept or decline the opponent's pending draw offer.
    AnswerDraw {
        /// The seat answering: the offerer's opponent.
        by: Color,
        /// Whether the game ends in a draw.
        accept: bool,
    },
    /// Resign: the opponent wins at once.
    Resign {
        /// The seat resigning.
        by: Color,
    },
    /// Relay only: the seat stayed disconnected past its grace period and loses.
    Abandon {
        /// The seat that left.
        by: Color,
    },
    /// Relay only: stop both clocks, charging the side to move for its time so far (before a
    /// planned shutdown, or while the relay cannot reach the players).
    PauseClocks,
    /// Relay only: restart the clock of the side to move from the command's time, whether it
    /// was paused or still running. After a restart the relay rebuilds the match and sends this
    /// at once: time since the last input before the restart is not charged, and timestamps
    /// from the new origin are measured from here.
    ResumeClocks,
    /// Relay only: both seats stayed disconnected past grace periods that ended at the same
    /// moment (after a restart that neither player came back to), and neither loses alone:
    /// the game is drawn.
    AbandonBoth,
}

impl Command {
    /// The colour a player's command speaks for; `None` for the commands only the relay
    /// issues (abandonment and clock pauses), which no player may send.
    #[must_use]
    pub const fn player(self) -> Option<Color> {
        match self {
            Self::Play { by, .. }
            | Self::RequestUndo { by }
            | Self::WithdrawUndo { by }
            | Self::AnswerUndo { by, .. }
            | Self::OfferDraw { by }
            | Self::WithdrawDraw { by }
            | Self::AnswerDraw { by, .. }
            | Self::Resign { by } => Some(by),
            Self::Abandon { .. } | Self::PauseClocks | Self::ResumeClocks | Self::AbandonBoth => {
                None
            }
        }
    }
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

#[cfg(test)]
mod tests {
    use super::*;
    use xq_rules::Square;

    #[test]
    fn player_commands_name_their_colour_and_relay_commands_none() {
        let mv = Move::new(Square::H2, Square::E2);
        assert_eq!(
            Command::Play { by: Color::Red, mv }.player(),
            Some(Color::Red)
        );
        assert_eq!(
            Command::AnswerUndo {
                by: Color::Black,
                accept: true
            }
            .player(),
            Some(Color::Black)
        );
        assert_eq!(Command::Abandon { by: Color::Red }.player(), None);
        assert_eq!(Command::PauseClocks.player(), None);
        assert_eq!(Command::AbandonBoth.player(), None);
        assert_eq!(Command::ResumeClocks.player(), None);
    }
}
