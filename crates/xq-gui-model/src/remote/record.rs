//! The game record of a mirrored match.

use xq_client::Mirror;
use xq_session::{Command, DrawReason, GameResult, Match, Record, Timestamp, WinReason};

/// Far enough in the future that every clock of a replayed match has run out.
const FLAG_TIME: Timestamp = Timestamp::from_millis(1 << 50);

/// The record of the mirrored match, for the move list and PGN.
///
/// Records come only from a [`Match`] (or a PGN), so this replays the mirror's moves through a
/// match of the same rules, all at the start time, and then restates how the game ended as
/// the input that ends it the same way. Endings that the moves decide (checkmate, repetition,
/// the move limit) follow from the moves themselves.
pub(super) fn record(mirror: &Mirror) -> Record {
    let start = Timestamp::from_millis(0);
    let mut game = Match::new(mirror.config().clone(), start);
    for played in mirror.moves() {
        let play = Command::Play {
            by: played.by,
            mv: played.mv,
        };
        // The relay accepted these moves under the same rules; should one not replay, the
        // record stops there rather than show a game that was not played.
        if game.handle(start, play).is_err() {
            return game.record();
        }
    }
    if let Some(result) = mirror.status().result()
        && game.status().is_ongoing()
    {
        conclude(&mut game, result);
    }
    game.record()
}

/// Ends `game` with `result`, by the input that gives it.
fn conclude(game: &mut Match, result: GameResult) {
    let now = Timestamp::from_millis(0);
    let turn = game.turn();
    let inputs: &[Command] = match result {
        GameResult::Win {
            winner,
            reason: WinReason::Resignation,
        } => &[Command::Resign { by: !winner }],
        GameResult::Win {
            winner,
            reason: WinReason::Abandonment,
        } => &[Command::Abandon { by: !winner }],
        GameResult::Win {
            reason: WinReason::TimeForfeit,
            ..
        } => {
            game.handle_timeout(FLAG_TIME);
            return;
        }
        GameResult::Draw {
            reason: DrawReason::Agreement,
        } => &[
            Command::OfferDraw { by: turn },
            Command::AnswerDraw {
                by: !turn,
                accept: true,
            },
        ],
        GameResult::Draw {
            reason: DrawReason::Abandonment,
        } => &[Command::AbandonBoth],
        _ => &[],
    };
    for &input in inputs {
        // Each input is valid in an ongoing game; a refusal leaves the record unfinished.
        if game.handle(now, input).is_err() {
            return;
        }
    }
}

#[cfg(test)]
mod tests {
    use xq_protocol::Snapshot;
    use xq_rules::{Color, Move, Square};
    use xq_session::Status;

    use super::*;
    use crate::remote::test_util;

    fn finished(result: GameResult) -> Mirror {
        test_util::mirror(&Snapshot {
            status: Status::Finished(result),
            ..test_util::snapshot(vec![Move::new(Square::H2, Square::E2)])
        })
    }

    #[test]
    fn the_record_keeps_the_moves_and_the_result() {
        for result in [
            GameResult::Win {
                winner: Color::Red,
                reason: WinReason::Resignation,
            },
            GameResult::Win {
                winner: Color::Black,
                reason: WinReason::Abandonment,
            },
            GameResult::Draw {
                reason: DrawReason::Agreement,
            },
            GameResult::Draw {
                reason: DrawReason::Abandonment,
            },
        ] {
            let record = record(&finished(result));
            assert_eq!(record.moves(), &[Move::new(Square::H2, Square::E2)]);
            assert_eq!(record.result(), Some(result), "{result:?}");
        }
    }
}
