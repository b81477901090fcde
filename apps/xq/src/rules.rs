//! Subcommands on positions and moves.

use std::io::{self, BufRead, Write};

use anyhow::{Context, Result, bail};
use xq_rules::{Move, Position, fen::Fen, iccs::Iccs};

use crate::diagram;

/// Reads a position argument: `startpos` or a FEN.
pub(crate) fn parse_position(text: &str) -> Result<Position> {
    if text.trim() == "startpos" {
        return Ok(Position::startpos());
    }
    let fen: Fen = text.parse().with_context(|| format!("bad fen '{text}'"))?;
    fen.into_position()
        .with_context(|| format!("impossible position '{text}'"))
}

/// Runs `f` on the position argument, or on each line of standard input when it is `-`.
pub(crate) fn for_each_input(arg: &str, f: fn(&Position) -> String) -> Result<()> {
    let mut out = io::stdout().lock();
    if arg != "-" {
        writeln!(out, "{}", f(&parse_position(arg)?))?;
        return Ok(());
    }
    for (number, line) in io::stdin().lock().lines().enumerate() {
        let line = line.context("reading standard input")?;
        let pos = parse_position(&line).with_context(|| format!("line {}", number + 1))?;
        writeln!(out, "{}", f(&pos))?;
    }
    Ok(())
}

/// All legal moves in ICCS, sorted, space-separated.
pub(crate) fn moves(pos: &Position) -> String {
    let mut moves: Vec<String> = pos.legal_moves().iter().map(Move::to_string).collect();
    moves.sort();
    moves.join(" ")
}

/// One word: `ongoing`, `check`, `checkmate` or `stalemate`.
pub(crate) fn status(pos: &Position) -> String {
    let word = match (pos.is_check(), pos.count_legal_moves() == 0) {
        (true, true) => "checkmate",
        (false, true) => "stalemate",
        (true, false) => "check",
        (false, false) => "ongoing",
    };
    word.to_string()
}

pub(crate) fn perft(position: &str, depth: u32, divide: bool) -> Result<()> {
    let pos = parse_position(position)?;
    let mut out = io::stdout().lock();
    let total = if divide && depth > 0 {
        let mut lines = xq_rules::divide(&pos, depth);
        lines.sort_by_key(|(mv, _)| mv.to_string());
        for (mv, nodes) in &lines {
            writeln!(out, "{mv}: {nodes}")?;
        }
        lines.iter().map(|(_, n)| n).sum()
    } else {
        xq_rules::perft(&pos, depth)
    };
    writeln!(out, "{total}")?;
    Ok(())
}

/// Plays ICCS moves one by one, calling `visit` with each position and the move about to be
/// played in it; `Err` names the first bad move, its index (from 1) and why.
fn play_moves(
    mut pos: Position,
    moves: &[String],
    mut visit: impl FnMut(&Position, Move),
) -> Result<Position> {
    for (index, text) in moves.iter().enumerate() {
        let number = index + 1;
        let iccs: Iccs = text
            .parse()
            .with_context(|| format!("move {number} '{text}'"))?;
        match iccs.to_move(&pos) {
            Ok(mv) => {
                visit(&pos, mv);
                pos.play_unchecked(mv);
            }
            Err(reason) => bail!("move {number} '{text}' is illegal: {reason}"),
        }
    }
    Ok(pos)
}

pub(crate) fn play(position: &str, moves: &[String]) -> Result<()> {
    let pos = play_moves(parse_position(position)?, moves, |_, _| {})?;
    writeln!(io::stdout(), "{}", Fen::from_position(&pos))?;
    Ok(())
}

/// Prints each move in a notation that depends on the position it is played in.
pub(crate) fn notate(
    position: &str,
    moves: &[String],
    write: impl Fn(&Position, Move) -> String,
) -> Result<()> {
    let mut words = Vec::with_capacity(moves.len());
    play_moves(parse_position(position)?, moves, |pos, mv| {
        words.push(write(pos, mv));
    })?;
    writeln!(io::stdout(), "{}", words.join(" "))?;
    Ok(())
}

pub(crate) fn show(position: &str) -> Result<()> {
    let pos = parse_position(position)?;
    let mut out = io::stdout().lock();
    write!(out, "{}", diagram::render(&pos))?;
    writeln!(out, "{} to move: {}", pos.turn(), status(&pos))?;
    Ok(())
}
