//! `xq judge`: plays moves through the referee the relay uses and prints its verdict.

use std::io::{self, Write};
use std::sync::Arc;

use anyhow::{Context, Result, bail};
use xq_rules::Move;
use xq_rules::iccs::Iccs;
use xq_session::{Action, Match, MatchConfig, RepetitionRule, Status, Timestamp, pgn};

use crate::rules::parse_position;

/// Plays `moves` (ICCS) from `position` in a default match (no clocks) judged by `rule`, and
/// prints `ongoing` or `<result> <reason>`. A move the match refuses, or one after the end of
/// the game, is an error naming it, its index (from 1) and why.
pub(crate) fn judge(position: &str, moves: &[String], rule: RepetitionRule) -> Result<()> {
    let mut config = MatchConfig::default();
    config.start = Arc::new(parse_position(position)?);
    config.repetition = rule;
    // The referee reads no clock; untimed, the time passed in never matters.
    let now = Timestamp::from_millis(0);
    let mut game = Match::new(config, now);
    for (index, text) in moves.iter().enumerate() {
        let number = index + 1;
        if !game.status().is_ongoing() {
            bail!(
                "move {number} '{text}' comes after the end of the game: {}",
                verdict(game.status())
            );
        }
        let iccs: Iccs = text
            .parse()
            .with_context(|| format!("move {number} '{text}'"))?;
        let mv = Move::new(iccs.from, iccs.to);
        let by = game.position().turn();
        if let Err(err) = game.handle(now, Action::Play(mv).by(by)) {
            bail!("move {number} '{text}' is refused: {err}");
        }
        while game.poll_event().is_some() {}
    }
    writeln!(io::stdout(), "{}", verdict(game.status()))?;
    Ok(())
}

/// `ongoing`, or the result token and the reason in one word: `0-1 perpetual-chase`.
fn verdict(status: Status) -> String {
    match status {
        Status::Ongoing => "ongoing".to_owned(),
        Status::Finished(result) => {
            let token = pgn::result_token(Some(result.outcome()));
            format!("{token} {}", result.to_string().replace(' ', "-"))
        }
    }
}
