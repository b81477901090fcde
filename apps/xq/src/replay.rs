//! `xq replay`: steps through a PGN record.

use std::fs;
use std::io::{self, Write};
use std::path::Path;

use anyhow::{Context, Result};
use xq_rules::fen::Fen;
use xq_session::{Replay, pgn};

/// Prints `<ply> <iccs> <wxf> <fen>` for every ply of the record in `path`, then the result line.
pub(crate) fn replay(path: &Path) -> Result<()> {
    let text = fs::read_to_string(path).with_context(|| format!("reading {}", path.display()))?;
    let record = pgn::parse(&text).with_context(|| path.display().to_string())?;
    let mut replay = Replay::new(record);
    let mut out = io::stdout().lock();
    while replay.forward() {
        if let Some((_, text)) = replay.last_move() {
            let fen = Fen::from_position(replay.position());
            writeln!(out, "{} {} {} {fen}", replay.ply(), text.iccs, text.wxf)?;
        }
    }
    let token = pgn::result_token(replay.outcome());
    match replay.result() {
        Some(result) => writeln!(out, "result {token} {result}")?,
        None => writeln!(out, "result {token}")?,
    }
    Ok(())
}
