//! The moves of a game as the move list shows them: numbered rows of a Red and a Black move.

use xq_rules::Color;
use xq_session::Record;

use crate::Notation;

/// One numbered row of the move list.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MoveRow {
    /// The move number.
    pub number: u32,
    /// Red's move, if the row has one (a game set up with Black to move starts without).
    pub red: Option<MoveEntry>,
    /// Black's move, once played.
    pub black: Option<MoveEntry>,
}

/// One move in the list.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MoveEntry {
    /// The number of plies played once this move is made: the replay position it leads to.
    pub ply: usize,
    /// The move written out.
    pub text: String,
}

/// The rows for `record`'s moves, written in `notation`.
#[must_use]
pub(crate) fn move_rows(record: &Record, notation: Notation) -> Vec<MoveRow> {
    let mut rows: Vec<MoveRow> = Vec::new();
    let mut pos = record.start().clone();
    for (index, &mv) in record.moves().iter().enumerate() {
        let number = pos.fullmoves().get();
        let entry = MoveEntry {
            ply: index + 1,
            text: notation.write(&pos, mv),
        };
        let turn = pos.turn();
        match rows.last_mut() {
            Some(row) if row.number == number && turn == Color::Black => row.black = Some(entry),
            _ => rows.push(MoveRow {
                number,
                red: (turn == Color::Red).then(|| entry.clone()),
                black: (turn == Color::Black).then_some(entry),
            }),
        }
        pos.play_unchecked(mv);
    }
    rows
}

#[cfg(test)]
mod tests {
    use xq_session::pgn;

    use super::*;

    #[test]
    fn moves_pair_up_in_numbered_rows() -> Result<(), pgn::PgnError> {
        let rows = move_rows(&pgn::parse("1. h2e2 h9g7 2. h0g2 *")?, Notation::Iccs);
        assert_eq!(rows.len(), 2);
        assert_eq!(rows[0].number, 1);
        assert_eq!(rows[0].red.as_ref().map(|e| e.text.as_str()), Some("h2e2"));
        let chinese = move_rows(&pgn::parse("1. h2e2 h9g7 *")?, Notation::Chinese);
        assert_eq!(
            chinese[0].black.as_ref().map(|e| e.text.as_str()),
            Some("马８进７")
        );
        assert_eq!(rows[0].black.as_ref().map(|e| e.ply), Some(2));
        assert_eq!(rows[1].red.as_ref().map(|e| e.ply), Some(3));
        assert_eq!(rows[1].black, None);
        Ok(())
    }

    #[test]
    fn a_game_set_up_with_black_to_move_starts_with_a_half_row() -> Result<(), pgn::PgnError> {
        let text = "[FEN \"rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C2C4/9/RNBAKABNR b - - 1 1\"]\n\n1... h9g7 2. h0g2 *";
        let rows = move_rows(&pgn::parse(text)?, Notation::Iccs);
        assert_eq!(rows.len(), 2);
        assert_eq!(rows[0].red, None);
        assert_eq!(
            rows[0].black.as_ref().map(|e| e.text.as_str()),
            Some("h9g7")
        );
        assert_eq!(rows[1].number, 2);
        Ok(())
    }
}
