//! The repetition judge on arbitrary games: bytes choose moves, most of them taking back the
//! mover's previous move so that positions recur. Judging must never panic, both rules must
//! agree where they share a clause (perpetual check), and the game played by the other colour
//! on the turned board must get the colour-swapped ruling.

#![no_main]

use std::sync::Arc;

use libfuzzer_sys::fuzz_target;
use xq_fuzz::POSITIONS;
use xq_rules::{Move, Position};
use xq_session::{Action, 
    DrawReason, GameResult, Match, MatchConfig, RepetitionRule, Status, Timestamp,
    WinReason,
};

/// The moves `data` chooses from `start`: a byte below 192 picks a legal move by index, one
/// from 192 up takes back the mover's previous move when it can.
fn moves(start: &Position, data: &[u8]) -> Vec<Move> {
    let mut pos = start.clone();
    let mut moves: Vec<Move> = Vec::new();
    for &byte in data {
        let legal = pos.legal_moves();
        if legal.is_empty() {
            break;
        }
        let back = moves
            .len()
            .checked_sub(2)
            .map(|i| Move::new(moves[i].to, moves[i].from))
            .filter(|&mv| pos.is_legal(mv));
        let mv = match back {
            Some(back) if byte >= 192 => back,
            _ => legal[byte as usize % legal.len()],
        };
        pos.play_unchecked(mv);
        moves.push(mv);
    }
    moves
}

/// The status after playing `moves` from `start` under `rule`, stopping where the game ends.
fn judged(start: &Position, moves: &[Move], rule: RepetitionRule) -> Status {
    let mut config = MatchConfig::default();
    config.start = Arc::new(start.clone());
    config.repetition = rule;
    config.move_limit = None;
    let now = Timestamp::from_millis(0);
    let mut game = Match::new(config, now);
    for &mv in moves {
        if !game.status().is_ongoing() {
            break;
        }
        let by = game.turn();
        if let Err(err) = game.handle(now, Action::Play(mv).by(by)) {
            panic!("{mv}: {err}");
        }
    }
    game.status()
}

fuzz_target!(|data: &[u8]| {
    let Some((&which, data)) = data.split_first() else {
        return;
    };
    let start = &POSITIONS[which as usize % POSITIONS.len()];
    let moves = moves(start, data);
    let asian = judged(start, &moves, RepetitionRule::Asian);
    let checks_only = judged(start, &moves, RepetitionRule::ChecksOnly);
    // Where the checks-only rule sees a perpetual check or a plain draw, the Asian rules see
    // the perpetual check too, or a chase, or the same draw.
    match (asian, checks_only) {
        (a, c) if a == c => {}
        (
            Status::Finished(GameResult::Win {
                reason: WinReason::PerpetualChase,
                ..
            }),
            Status::Finished(GameResult::Draw {
                reason: DrawReason::Repetition,
            }),
        ) => {}
        (a, c) => panic!("asian {a:?}, checks only {c:?}"),
    }
    let turned: Vec<Move> = moves
        .iter()
        .map(|mv| Move::new(mv.from.flip(), mv.to.flip()))
        .collect();
    let swapped = match asian {
        Status::Finished(GameResult::Win { winner, reason }) => Status::Finished(GameResult::Win {
            winner: !winner,
            reason,
        }),
        other => other,
    };
    assert_eq!(
        judged(&start.mirrored(), &turned, RepetitionRule::Asian),
        swapped
    );
});
