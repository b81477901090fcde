//! The game record of a mirrored match, rebuilt through a match of the same rules.

use xq_session::{
    Command, DrawReason, GameResult, Match, MatchConfig, Played, Record, Timestamp, WinReason,
};

/// The time every input of the replayed match is given at.
const START: Timestamp = Timestamp::from_millis(0);

/// Far enough in the future that every clock of a replayed match has run out.
const FLAG_TIME: Timestamp = Timestamp::from_millis(1 << 50);

/// The record of a match played under `config` with these `moves`, ended by `result`.
///
/// Records come only from a [`Match`] (or a PGN), so this replays the moves through a match of
/// the same rules, all at the start time, and then restates how the game ended as the input
/// that ends it the same way. Endings that the moves decide (checkmate, stalemate, repetition,
/// the move limit) follow from the moves themselves.
pub(crate) fn replay(config: &MatchConfig, moves: &[Played], result: Option<GameResult>) -> Record {
    let mut game = Match::new(config.clone(), START);
    for played in moves {
        let play = Command::Play {
            by: played.by,
            mv: played.mv,
        };
        // The relay accepted these moves under the same rules; should one not replay, the
        // record stops there rather than show a game that was not played.
        if game.handle(START, play).is_err() {
            return game.record();
        }
    }
    if let Some(result) = result
        && game.status().is_ongoing()
    {
        conclude(&mut game, result);
    }
    game.record()
}

/// Ends `game` with `result`, by the input that gives it.
fn conclude(game: &mut Match, result: GameResult) {
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
        if game.handle(START, input).is_err() {
            return;
        }
    }
}
