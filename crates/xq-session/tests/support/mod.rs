//! What the repetition tests share: playing a line through a match, and random shuttles.

use std::sync::Arc;

use xq_rules::{Move, Position};
use xq_session::{Action, Match, MatchConfig, RepetitionRule, Status, Timestamp};

/// Plays `moves` from `start` under `rule` (and no move limit): the status one move before
/// the end, and at the end.
pub(crate) fn play(start: &Position, moves: &[Move], rule: RepetitionRule) -> (Status, Status) {
    let mut config = MatchConfig::default();
    config.start = Arc::new(start.clone());
    config.repetition = rule;
    config.move_limit = None;
    let mut game = Match::new(config, Timestamp::from_millis(0));
    let mut before_last = game.status();
    for (index, &mv) in moves.iter().enumerate() {
        before_last = game.status();
        let by = game.position().turn();
        if let Err(err) = game.handle(Timestamp::from_millis(0), Action::Play(mv).by(by)) {
            panic!("move {index} {mv}: {err}");
        }
    }
    (before_last, game.status())
}

/// A random position after `plies` random legal moves from the start (choices taken modulo
/// the number of moves), and a two-move shuttle from it: a move of each side and both moves
/// back, none a capture. `None` if the choices give no such shuttle.
///
/// Moves are chosen from sorted lists, so the same choices give the same shuttle whatever
/// order the move generator lists moves in.
pub(crate) fn shuttle(choices: &[usize]) -> Option<(Position, Vec<Move>)> {
    let (walk, pick) = choices.split_at(choices.len() - 2);
    let mut pos = Position::startpos();
    for &choice in walk {
        let mut moves = pos.legal_moves();
        moves.sort_unstable();
        if moves.is_empty() {
            return None;
        }
        pos.play_unchecked(moves[choice % moves.len()]);
    }
    let start = pos.clone();
    let mut cycle = Vec::new();
    for &choice in pick {
        let mut quiet: Vec<Move> = pos
            .legal_moves()
            .into_iter()
            .filter(|mv| pos.board().piece_at(mv.to).is_none())
            .collect();
        quiet.sort_unstable();
        // Moves that check or threaten, when there are any, so that cycles of checks and
        // chases come up as well as idle ones.
        let forcing: Vec<Move> = quiet
            .iter()
            .copied()
            .filter(|&mv| {
                let mut after = pos.clone();
                after.play_unchecked(mv);
                after.is_check()
                    || !(after.attack_set(pos.turn()) - pos.attack_set(pos.turn())).is_empty()
            })
            .collect();
        let from = if forcing.is_empty() || choice % 4 == 0 {
            &quiet
        } else {
            &forcing
        };
        let mv = *from.get(choice / 4 % from.len().max(1))?;
        pos.play_unchecked(mv);
        cycle.push(mv);
    }
    for back in [cycle[0], cycle[1]].map(|mv| Move::new(mv.to, mv.from)) {
        if !pos.is_legal(back) || pos.board().piece_at(back.to).is_some() {
            return None;
        }
        pos.play_unchecked(back);
        cycle.push(back);
    }
    Some((start, cycle))
}
