//! The engine's verdict on a position, from Red's side, in words.

use std::fmt;

use xq_engine::Score;
use xq_rules::Color;

use crate::text::side_name;

/// How the last search judged the game: its score turned to Red's point of view, so that
/// the number keeps its sign whichever side was to move when it was found.
///
/// Displays for people: "Evaluation: +0.4 for Red", "Evaluation: even", "Red mates in 3".
///
/// # Examples
///
/// ```
/// use xq_engine::Score;
/// use xq_gui_model::Evaluation;
/// use xq_rules::Color;
///
/// // Black to move and 40 centipawns up: Black is better.
/// let seen = Evaluation::new(Color::Black, Score::Centipawns(40));
/// assert_eq!(seen.to_string(), "Evaluation: +0.4 for Black");
/// assert_eq!(Evaluation::new(Color::Black, Score::Mate(-2)).to_string(), "Red mates in 2");
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Evaluation {
    for_red: Score,
}

impl Evaluation {
    /// The evaluation of a search whose root had `turn` to move and scored `score` for it.
    #[must_use]
    pub const fn new(turn: Color, score: Score) -> Self {
        let for_red = match (turn, score) {
            (Color::Red, score) => score,
            (Color::Black, Score::Centipawns(cp)) => Score::Centipawns(-cp),
            (Color::Black, Score::Mate(n)) => Score::Mate(-n),
        };
        Self { for_red }
    }

    /// The score for `side`: positive when `side` stands better.
    #[must_use]
    pub const fn for_side(self, side: Color) -> Score {
        Self::new(side, self.for_red).for_red
    }
}

impl fmt::Display for Evaluation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let ahead = |red_ahead: bool| side_name(if red_ahead { Color::Red } else { Color::Black });
        match self.for_red {
            Score::Centipawns(cp) if cp.unsigned_abs() < 5 => f.write_str("Evaluation: even"),
            Score::Centipawns(cp) => {
                let pawns = f64::from(cp.unsigned_abs()) / 100.0;
                write!(f, "Evaluation: +{pawns:.1} for {}", ahead(cp > 0))
            }
            Score::Mate(0) => write!(f, "{} has lost", side_name(Color::Red)),
            Score::Mate(n) => write!(f, "{} mates in {}", ahead(n > 0), n.unsigned_abs()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_score_is_turned_to_red_s_side_and_written_for_people() {
        let cases = [
            (
                Color::Red,
                Score::Centipawns(40),
                "Evaluation: +0.4 for Red",
            ),
            (
                Color::Red,
                Score::Centipawns(-250),
                "Evaluation: +2.5 for Black",
            ),
            (
                Color::Black,
                Score::Centipawns(-120),
                "Evaluation: +1.2 for Red",
            ),
            (Color::Black, Score::Centipawns(3), "Evaluation: even"),
            (Color::Red, Score::Mate(3), "Red mates in 3"),
            (Color::Red, Score::Mate(-1), "Black mates in 1"),
            (Color::Black, Score::Mate(2), "Black mates in 2"),
        ];
        for (turn, score, text) in cases {
            assert_eq!(
                Evaluation::new(turn, score).to_string(),
                text,
                "{turn:?} {score}"
            );
        }
        let black_up = Evaluation::new(Color::Black, Score::Centipawns(90));
        assert_eq!(black_up.for_side(Color::Black), Score::Centipawns(90));
        assert_eq!(black_up.for_side(Color::Red), Score::Centipawns(-90));
    }
}
