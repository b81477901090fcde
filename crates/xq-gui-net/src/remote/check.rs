//! Whether the relay would accept a command or a rematch request, as far as the mirror shows.

use xq_client::Mirror;
use xq_rules::Color;
use xq_session::{Command, CommandError, RematchError, UndoPolicy};

use xq_gui_model::{BackendError, Presence};

/// Why the relay would refuse `command` from the player of `seat`, judged from the mirror's
/// state alone: the seat, the connection, the status, the turn and legal moves, and the
/// pending requests. What the mirror cannot see (an undo allowance already used up) is left to
/// the relay, whose refusal comes back as a notice.
pub(super) fn check(
    mirror: &Mirror,
    seat: Option<Color>,
    presence: Presence,
    command: Command,
) -> Result<(), BackendError> {
    let by = command.player().ok_or(BackendError::Reserved)?;
    if seat != Some(by) {
        return Err(BackendError::NotYourSeat);
    }
    if !mirror.status().is_ongoing() {
        return Err(CommandError::GameFinished.into());
    }
    reachable(presence)?;
    let undo = mirror.pending_undo();
    let draw = mirror.pending_draw();
    let refusal = match command {
        Command::Play { mv, .. } if by == mirror.turn() => {
            return Ok(mirror
                .position()
                .check_move(mv)
                .map_err(CommandError::from)?);
        }
        Command::Play { .. } => Some(CommandError::NotYourTurn),
        Command::RequestUndo { .. } => {
            if mirror.config().undo == UndoPolicy::Forbidden {
                Some(CommandError::UndoNotAllowed)
            } else if undo.is_some() {
                Some(CommandError::UndoAlreadyPending)
            } else if !mirror.moves().iter().any(|played| played.by == by) {
                Some(CommandError::NothingToUndo)
            } else {
                None
            }
        }
        Command::WithdrawUndo { .. } => match undo {
            None => Some(CommandError::NoPendingUndo),
            Some(request) => (request.by != by).then_some(CommandError::NotYourRequest),
        },
        Command::AnswerUndo { .. } => match undo {
            None => Some(CommandError::NoPendingUndo),
            Some(request) => (request.by == by).then_some(CommandError::CannotAnswerOwnRequest),
        },
        Command::OfferDraw { .. } => draw.map(|_| CommandError::DrawAlreadyOffered),
        Command::WithdrawDraw { .. } => match draw {
            None => Some(CommandError::NoPendingDraw),
            Some(offerer) => (offerer != by).then_some(CommandError::NotYourRequest),
        },
        Command::AnswerDraw { .. } => match draw {
            None => Some(CommandError::NoPendingDraw),
            Some(offerer) => (offerer == by).then_some(CommandError::CannotAnswerOwnRequest),
        },
        Command::Resign { .. } => None,
        Command::Abandon { .. }
        | Command::PauseClocks
        | Command::ResumeClocks
        | Command::AbandonBoth => {
            return Err(BackendError::Reserved);
        }
    };
    refusal.map_or(Ok(()), |error| Err(error.into()))
}

/// Why the relay would refuse a rematch request from the player of `seat`: only a player may
/// ask, once the game is over, and only through a connection that is up.
pub(super) fn check_rematch(
    mirror: &Mirror,
    seat: Option<Color>,
    presence: Presence,
) -> Result<(), BackendError> {
    if seat.is_none() {
        return Err(BackendError::NotYourSeat);
    }
    if mirror.status().is_ongoing() {
        return Err(RematchError::Ongoing.into());
    }
    reachable(presence)
}

/// Why nothing can reach the opponent through the relay: it has not come yet, or this screen's
/// connection is down.
fn reachable(presence: Presence) -> Result<(), BackendError> {
    match presence {
        Presence::Waiting => Err(BackendError::NoOpponentYet),
        Presence::Reconnecting | Presence::Offline => Err(BackendError::Offline),
        Presence::Connected | Presence::Away(_) => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use xq_protocol::Snapshot;
    use xq_rules::{Move, Square};
    use xq_session::{GameResult, Status, UndoRequest, WinReason};

    use super::*;
    use crate::remote::test_util;

    const H2E2: Move = Move::new(Square::H2, Square::E2);

    fn mirror(moves: Vec<Move>, undo: Option<UndoRequest>, draw: Option<Color>) -> Mirror {
        test_util::mirror(&Snapshot {
            pending_undo: undo,
            pending_draw: draw,
            ..test_util::snapshot(moves)
        })
    }

    fn refusal(mirror: &Mirror, seat: Color, command: Command) -> Result<(), BackendError> {
        check(mirror, Some(seat), Presence::Connected, command)
    }

    #[test]
    fn moves_need_the_turn_and_a_legal_move() {
        let start = mirror(vec![], None, None);
        let play = |by| Command::Play { by, mv: H2E2 };
        assert_eq!(refusal(&start, Color::Red, play(Color::Red)), Ok(()));
        assert_eq!(
            refusal(&start, Color::Black, play(Color::Black)),
            Err(CommandError::NotYourTurn.into())
        );
        let backwards = Command::Play {
            by: Color::Red,
            mv: Move::new(Square::E2, Square::H2),
        };
        assert!(matches!(
            refusal(&start, Color::Red, backwards),
            Err(BackendError::Command(CommandError::IllegalMove(_)))
        ));
    }

    #[test]
    fn the_seat_and_the_connection_come_first() {
        let start = mirror(vec![], None, None);
        let resign = Command::Resign { by: Color::Red };
        assert_eq!(
            refusal(&start, Color::Black, resign),
            Err(BackendError::NotYourSeat)
        );
        assert_eq!(
            check(&start, None, Presence::Connected, resign),
            Err(BackendError::NotYourSeat)
        );
        for (presence, error) in [
            (Presence::Waiting, BackendError::NoOpponentYet),
            (Presence::Reconnecting, BackendError::Offline),
            (Presence::Offline, BackendError::Offline),
        ] {
            assert_eq!(
                check(&start, Some(Color::Red), presence, resign),
                Err(error)
            );
        }
        assert_eq!(
            check(
                &start,
                Some(Color::Red),
                Presence::Away(Color::Black),
                resign
            ),
            Ok(())
        );
        for reserved in [
            Command::Abandon { by: Color::Red },
            Command::PauseClocks,
            Command::ResumeClocks,
            Command::AbandonBoth,
        ] {
            assert_eq!(
                refusal(&start, Color::Red, reserved),
                Err(BackendError::Reserved)
            );
        }
    }

    #[test]
    fn requests_follow_what_is_pending() {
        let start = mirror(vec![], None, None);
        let undo = Command::RequestUndo { by: Color::Red };
        assert_eq!(
            refusal(&start, Color::Red, undo),
            Err(CommandError::NothingToUndo.into())
        );
        let asked = UndoRequest {
            by: Color::Red,
            plies: 1,
        };
        let pending = mirror(vec![H2E2], Some(asked), Some(Color::Red));
        assert_eq!(
            refusal(&pending, Color::Red, undo),
            Err(CommandError::UndoAlreadyPending.into())
        );
        let answer = |by| Command::AnswerUndo { by, accept: true };
        assert_eq!(
            refusal(&pending, Color::Black, answer(Color::Black)),
            Ok(())
        );
        assert_eq!(
            refusal(&pending, Color::Red, answer(Color::Red)),
            Err(CommandError::CannotAnswerOwnRequest.into())
        );
        let offer = Command::OfferDraw { by: Color::Black };
        assert_eq!(
            refusal(&pending, Color::Black, offer),
            Err(CommandError::DrawAlreadyOffered.into())
        );
        let accept = Command::AnswerDraw {
            by: Color::Black,
            accept: true,
        };
        assert_eq!(refusal(&pending, Color::Black, accept), Ok(()));
        assert_eq!(
            refusal(&start, Color::Black, accept),
            Err(CommandError::NoPendingDraw.into())
        );
    }

    #[test]
    fn a_rematch_is_for_a_connected_player_once_the_game_is_over() {
        let resigned = GameResult::Win {
            winner: Color::Black,
            reason: WinReason::Resignation,
        };
        let over = test_util::mirror(&Snapshot {
            status: Status::Finished(resigned),
            ..test_util::snapshot(vec![])
        });
        for presence in [Presence::Connected, Presence::Away(Color::Black)] {
            assert_eq!(check_rematch(&over, Some(Color::Red), presence), Ok(()));
        }
        assert_eq!(
            check_rematch(&over, None, Presence::Connected),
            Err(BackendError::NotYourSeat)
        );
        for presence in [Presence::Reconnecting, Presence::Offline] {
            assert_eq!(
                check_rematch(&over, Some(Color::Red), presence),
                Err(BackendError::Offline)
            );
        }
        let on = mirror(vec![], None, None);
        assert_eq!(
            check_rematch(&on, Some(Color::Red), Presence::Connected),
            Err(RematchError::Ongoing.into())
        );
    }
}
