//! WXF notation (`C2=5`, `H8+7`), as the World Xiangqi Federation and Fairy-Stockfish write it.
//!
//! A move is four characters: the piece letter (`K A E H R C P`), the file it stands on (1–9
//! from the mover's right), the direction (`+` forward, `-` backward, `=` sideways) and a
//! number: the destination file for sideways moves and for the horse, elephant and advisor,
//! otherwise the distance travelled along the file.
//!
//! Pieces of one kind sharing a file are told apart the way Fairy-Stockfish does it, and
//! [`Wxf::from_move`] writes exactly what Fairy-Stockfish writes:
//! - Two on a file: `+` (front) or `-` (rear) takes the place of the file number (`R+=5`), but
//!   only if the other piece, moved the same way, would land on a point its kind may occupy.
//!   Otherwise the file number alone already picks out the mover (`R1-1`).
//! - Three or more soldiers on a file, or two or more on each of several files: the piece letter
//!   gives way to the soldier's place on its file counted from the front, followed by the file
//!   number (`27=8` is the second soldier of file 7 moving to file 8).
//!
//! The parser also reads `.` for `=`, lower-case letters, the letters `B` (elephant), `N`
//! (horse) and `G` (general), and front/rear written before the letter (`+R=5`).

use std::fmt;
use std::str::FromStr;

use crate::descriptive::{self, Direction, Facts, Unresolved};
use crate::{Move, Position, Rank, Role, Square};

/// A move in WXF notation. Parsing only checks the syntax; [`Wxf::to_move`] finds the move in a
/// position.
///
/// # Examples
///
/// ```
/// use xq_rules::{Move, Position, Square, wxf::Wxf};
///
/// let pos = Position::startpos();
/// let mv = "C2=5".parse::<Wxf>()?.to_move(&pos)?;
/// assert_eq!(mv, Move::new(Square::H2, Square::E2));
/// let pos = pos.play(mv)?;
/// let reply = Move::new(Square::H9, Square::G7);
/// assert_eq!(Wxf::from_move(&pos, reply).to_string(), "H8+7");
/// # Ok::<_, Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Wxf {
    role: Role,
    origin: Origin,
    direction: Direction,
    number: u8,
}

/// How a WXF move names the piece that moves.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
enum Origin {
    /// `C2`: the piece of its kind on this file.
    File(u8),
    /// `R+`: the front one of pieces of its kind sharing a file.
    Front,
    /// `R-`: the rear one of pieces of its kind sharing a file.
    Rear,
    /// `27`: the soldier in this place (1 = front) on this file.
    Tandem {
        /// The place, counted from the front.
        nth: u8,
        /// The file number.
        file: u8,
    },
}

/// A text that is not WXF notation.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
#[error("invalid wxf move (expected four characters like C2=5)")]
pub struct ParseWxfError;

/// A WXF move that does not fit the position.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
pub enum WxfError {
    /// No legal move fits the description.
    #[error("no legal move fits the wxf notation")]
    Illegal,
    /// Several legal moves fit the description.
    #[error("ambiguous wxf notation: several legal moves fit")]
    Ambiguous,
}

impl Wxf {
    /// Describes `mv`, a legal move in `pos`, as Fairy-Stockfish does. (An illegal move gets a
    /// description that [`Wxf::to_move`] does not resolve back to it.)
    ///
    /// # Examples
    ///
    /// ```
    /// use xq_rules::{Move, Position, Square, wxf::Wxf};
    ///
    /// let pos = Position::startpos();
    /// assert_eq!(Wxf::from_move(&pos, Move::new(Square::B0, Square::C2)).to_string(), "H8+7");
    /// ```
    #[must_use]
    pub fn from_move(pos: &Position, mv: Move) -> Self {
        let Facts {
            role,
            file,
            tandem,
            direction,
            number,
        } = Facts::of(pos, mv);
        // A crowd of soldiers: three or more on one file, or two or more on several files.
        let crowded = tandem.count >= 3 || (tandem.count == 2 && tandem.several_files);
        let origin = if crowded {
            Origin::Tandem {
                nth: tandem.index + 1,
                file,
            }
        } else if tandem.count == 2 && partner_could_follow(pos, mv) {
            if tandem.index == 0 {
                Origin::Front
            } else {
                Origin::Rear
            }
        } else {
            Origin::File(file)
        };
        Self {
            role,
            origin,
            direction,
            number,
        }
    }

    /// The legal move this notation describes in `pos`.
    ///
    /// # Errors
    ///
    /// [`WxfError::Illegal`] if no legal move fits, [`WxfError::Ambiguous`] if several do.
    ///
    /// # Examples
    ///
    /// ```
    /// use xq_rules::{Move, Position, Square, wxf::{Wxf, WxfError}};
    ///
    /// let pos = Position::startpos();
    /// assert_eq!("h2+3".parse::<Wxf>()?.to_move(&pos), Ok(Move::new(Square::H0, Square::G2)));
    /// assert_eq!("H2=3".parse::<Wxf>()?.to_move(&pos), Err(WxfError::Illegal));
    /// # Ok::<_, Box<dyn std::error::Error>>(())
    /// ```
    pub fn to_move(&self, pos: &Position) -> Result<Move, WxfError> {
        let origin = self.origin;
        descriptive::resolve(
            pos,
            self.role,
            self.direction,
            self.number,
            |file, t| match origin {
                Origin::File(f) => file == f,
                Origin::Front => t.count >= 2 && t.index == 0,
                Origin::Rear => t.count >= 2 && t.is_rear(),
                Origin::Tandem { nth, file: f } => file == f && t.index + 1 == nth,
            },
        )
        .map_err(|err| match err {
            Unresolved::NoMove => WxfError::Illegal,
            Unresolved::SeveralMoves => WxfError::Ambiguous,
        })
    }
}

/// Whether the other piece sharing the mover's file, displaced as `mv` displaces the mover,
/// would land on a point of the board where its kind may stand (the palace for the general and
/// advisors, its own half for an elephant). Fairy-Stockfish writes front/rear only then.
fn partner_could_follow(pos: &Position, mv: Move) -> bool {
    let Some(piece) = pos.board().piece_at(mv.from) else {
        return false;
    };
    let partner = Rank::ALL
        .into_iter()
        .map(|rank| Square::new(mv.from.file(), rank))
        .find(|&sq| sq != mv.from && pos.board().piece_at(sq) == Some(piece));
    let df = mv.to.file().index() as i8 - mv.from.file().index() as i8;
    let dr = mv.to.rank().index() as i8 - mv.from.rank().index() as i8;
    partner
        .and_then(|sq| sq.offset(df, dr))
        .is_some_and(|to| match piece.role {
            Role::General | Role::Advisor => to.is_in_palace(piece.color),
            Role::Elephant => to.rank().half() == piece.color,
            _ => true,
        })
}

const fn role_letter(role: Role) -> char {
    match role {
        Role::General => 'K',
        Role::Advisor => 'A',
        Role::Elephant => 'E',
        Role::Horse => 'H',
        Role::Chariot => 'R',
        Role::Cannon => 'C',
        Role::Soldier => 'P',
    }
}

const fn role_from_letter(letter: u8) -> Option<Role> {
    Some(match letter.to_ascii_uppercase() {
        b'K' | b'G' => Role::General,
        b'A' => Role::Advisor,
        b'E' | b'B' => Role::Elephant,
        b'H' | b'N' => Role::Horse,
        b'R' => Role::Chariot,
        b'C' => Role::Cannon,
        b'P' => Role::Soldier,
        _ => return None,
    })
}

const fn digit(ch: u8) -> Option<u8> {
    match ch {
        b'1'..=b'9' => Some(ch - b'0'),
        _ => None,
    }
}

impl FromStr for Wxf {
    type Err = ParseWxfError;

    fn from_str(s: &str) -> Result<Self, ParseWxfError> {
        let &[first, second, direction, number] = s.as_bytes() else {
            return Err(ParseWxfError);
        };
        let (role, origin) = match (first, second) {
            (b'+' | b'-', letter) => (
                role_from_letter(letter),
                Some(if first == b'+' {
                    Origin::Front
                } else {
                    Origin::Rear
                }),
            ),
            // A side has five soldiers, so no soldier stands sixth on a file.
            (b'1'..=b'5', _) => (
                Some(Role::Soldier),
                digit(second).map(|file| Origin::Tandem {
                    nth: first - b'0',
                    file,
                }),
            ),
            (letter, b'+') => (role_from_letter(letter), Some(Origin::Front)),
            (letter, b'-') => (role_from_letter(letter), Some(Origin::Rear)),
            (letter, _) => (role_from_letter(letter), digit(second).map(Origin::File)),
        };
        let direction = match direction {
            b'+' => Direction::Forward,
            b'-' => Direction::Backward,
            b'=' | b'.' => Direction::Sideways,
            _ => return Err(ParseWxfError),
        };
        match (role, origin, digit(number)) {
            (Some(role), Some(origin), Some(number)) => Ok(Self {
                role,
                origin,
                direction,
                number,
            }),
            _ => Err(ParseWxfError),
        }
    }
}

impl fmt::Display for Wxf {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let letter = role_letter(self.role);
        match self.origin {
            Origin::File(file) => write!(f, "{letter}{file}")?,
            Origin::Front => write!(f, "{letter}+")?,
            Origin::Rear => write!(f, "{letter}-")?,
            Origin::Tandem { nth, file } => write!(f, "{nth}{file}")?,
        }
        let direction = match self.direction {
            Direction::Forward => '+',
            Direction::Backward => '-',
            Direction::Sideways => '=',
        };
        write!(f, "{direction}{}", self.number)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_util::{self, position};

    fn parse(text: &str) -> Wxf {
        text.parse().unwrap_or_else(|e| panic!("{text}: {e}"))
    }

    /// Checks that each ICCS move is written as expected (the expectations are Fairy-Stockfish's
    /// output) and that the text leads back to the move.
    fn assert_writes(fen: &str, cases: &[(&str, &str)]) {
        test_util::assert_writes(
            fen,
            cases,
            |pos, mv| Wxf::from_move(pos, mv).to_string(),
            |text, pos| parse(text).to_move(pos),
        );
    }

    #[test]
    fn every_piece_and_direction_from_the_start() {
        assert_writes(
            "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w - - 0 1",
            &[
                ("h2e2", "C2=5"),
                ("h2h9", "C2+7"),
                ("h2h1", "C2-1"),
                ("b2a2", "C8=9"),
                ("h0g2", "H2+3"),
                ("b0c2", "H8+7"),
                ("a0a2", "R9+2"),
                ("i0i1", "R1+1"),
                ("c0e2", "E7+5"),
                ("g0i2", "E3+1"),
                ("d0e1", "A6+5"),
                ("f0e1", "A4+5"),
                ("e0e1", "K5+1"),
                ("c3c4", "P7+1"),
                ("i3i4", "P1+1"),
            ],
        );
    }

    #[test]
    fn black_counts_files_from_its_own_right() {
        assert_writes(
            "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C2C4/9/RNBAKABNR b - - 1 1",
            &[
                ("h9g7", "H8+7"),
                ("b9c7", "H2+3"),
                ("h7e7", "C8=5"),
                ("b7b0", "C2+7"),
                ("b7b8", "C2-1"),
                ("g9e7", "E7+5"),
                ("a6a5", "P1+1"),
                ("e9e8", "K5+1"),
            ],
        );
    }

    #[test]
    fn two_on_a_file_are_front_and_rear() {
        assert_writes(
            "3k5/9/9/9/9/R8/9/9/R8/4K4 w - - 0 1",
            &[
                ("a1a0", "R--1"),
                ("a1a2", "R-+1"),
                ("a1b1", "R-=8"),
                ("a4a3", "R+-1"),
                ("a4a5", "R++1"),
                ("a4b4", "R+=8"),
            ],
        );
        assert_writes(
            "3k5/9/9/9/9/2N6/9/2N6/9/4K4 w - - 0 1",
            &[
                ("c2e1", "H--5"),
                ("c2e3", "H-+5"),
                ("c4e3", "H+-5"),
                ("c4e5", "H++5"),
            ],
        );
    }

    #[test]
    fn the_file_suffices_when_the_partner_could_not_follow() {
        // The rear chariot cannot go back from the edge, elephants and advisors cannot leave
        // their areas: FSF then writes the file number.
        assert_writes(
            "r2k5/9/9/r8/9/9/9/9/9/4K4 b - - 0 1",
            &[
                ("a9a8", "R-+1"),
                ("a9b9", "R-=2"),
                ("a6a5", "R++1"),
                ("a6a7", "R1-1"),
                ("a6b6", "R+=2"),
            ],
        );
        assert_writes(
            "3k5/9/9/9/9/2B6/9/9/9/2B1K4 w - - 0 1",
            &[
                ("c0a2", "E7+9"),
                ("c0e2", "E7+5"),
                ("c4a2", "E7-9"),
                ("c4e2", "E7-5"),
            ],
        );
        assert_writes(
            "3k5/9/9/9/9/9/9/3A5/9/3AK4 w - - 0 1",
            &[("d0e1", "A6+5"), ("d2e1", "A6-5")],
        );
    }

    #[test]
    fn soldiers_in_tandem_are_numbered_from_the_front() {
        // Two on one file: front and rear, even when only one of them may go sideways.
        assert_writes(
            "3k5/9/9/9/2P6/2P6/9/9/9/4K4 w - - 0 1",
            &[("c5b5", "P+=8"), ("c5c6", "P++1")],
        );
        // The front soldier cannot step off the board, so the file alone names the rear one.
        assert_writes(
            "2P6/3k5/9/9/2P6/9/9/9/9/4K4 w - - 0 1",
            &[("c9b9", "P+=8"), ("c5b5", "P-=8"), ("c5c6", "P7+1")],
        );
        // Three on one file.
        assert_writes(
            "3k5/9/2P6/2P6/2P6/9/9/9/9/4K4 w - - 0 1",
            &[
                ("c7c8", "17+1"),
                ("c7d7", "17=6"),
                ("c6b6", "27=8"),
                ("c5d5", "37=6"),
            ],
        );
        // Two on each of two files.
        assert_writes(
            "3k5/9/9/2P3P2/2P3P2/9/9/9/9/4K4 w - - 0 1",
            &[
                ("c6c7", "17+1"),
                ("c5b5", "27=8"),
                ("g6g7", "13+1"),
                ("g5h5", "23=2"),
            ],
        );
        assert_writes(
            "4k4/9/9/9/9/p1p6/p1p6/p8/9/3K5 b - - 0 1",
            &[
                ("a2a1", "11+1"),
                ("a2b2", "11=2"),
                ("a3b3", "21=2"),
                ("a4b4", "31=2"),
                ("c3c2", "13+1"),
                ("c4d4", "23=4"),
            ],
        );
    }

    #[test]
    fn parser_accepts_common_variants() {
        let pos = Position::startpos();
        let h2e2 = Ok(Move::new(Square::H2, Square::E2));
        for text in ["C2=5", "C2.5", "c2=5", "c2.5"] {
            assert_eq!(parse(text).to_move(&pos), h2e2, "{text}");
        }
        for (text, canonical) in [
            ("N8+7", "H8+7"),
            ("h8+7", "H8+7"),
            ("B3+5", "E3+5"),
            ("e3+5", "E3+5"),
            ("G5+1", "K5+1"),
            ("k5+1", "K5+1"),
            ("R1.2", "R1=2"),
            ("+R=5", "R+=5"),
            ("-r.5", "R-=5"),
            ("27.8", "27=8"),
        ] {
            assert_eq!(parse(text).to_string(), canonical, "{text}");
        }
        let pair = position("3k5/9/9/9/9/R8/9/9/R8/4K4 w - - 0 1");
        assert_eq!(
            parse("+R=8").to_move(&pair),
            Ok(Move::new(Square::A4, Square::B4))
        );
        assert_eq!(
            parse("-R.8").to_move(&pair),
            Ok(Move::new(Square::A1, Square::B1))
        );
    }

    #[test]
    fn malformed_text_is_refused() {
        for bad in [
            "",
            "C2=",
            "C2=55",
            "X2=5",
            "C0=5",
            "C2*5",
            "C2=0",
            "62=5",
            "1x=5",
            "+-=5",
            "C2=５",
            "炮二平五",
        ] {
            assert_eq!(bad.parse::<Wxf>(), Err(ParseWxfError), "{bad:?}");
        }
    }

    #[test]
    fn moves_that_do_not_fit_are_illegal_or_ambiguous() {
        let pos = Position::startpos();
        for text in [
            "H2=3", "R9+9", "C5=4", "C2+9", "E7+6", "P2+1", "K5=4", "C+=5",
        ] {
            assert_eq!(parse(text).to_move(&pos), Err(WxfError::Illegal), "{text}");
        }
        // The front soldiers of both files can step forward.
        let tandems = position("3k5/9/9/2P3P2/2P3P2/9/9/9/9/4K4 w - - 0 1");
        assert_eq!(parse("P++1").to_move(&tandems), Err(WxfError::Ambiguous));
        assert_eq!(
            parse("P+=8").to_move(&tandems),
            Ok(Move::new(Square::C6, Square::B6))
        );
        // The file form is ambiguous when both chariots on it can make the move.
        let pair = position("3k5/9/9/9/9/R8/9/9/R8/4K4 w - - 0 1");
        assert_eq!(parse("R9=8").to_move(&pair), Err(WxfError::Ambiguous));
    }

    #[test]
    fn every_legal_move_round_trips() {
        let mut pos = Position::startpos();
        for _ in 0..60 {
            let moves = pos.legal_moves();
            for &mv in &moves {
                let wxf = Wxf::from_move(&pos, mv);
                assert_eq!(wxf.to_move(&pos), Ok(mv));
                assert_eq!(parse(&wxf.to_string()), wxf);
            }
            let Some(&mv) = moves.get(moves.len() / 3) else {
                break;
            };
            pos.play_unchecked(mv);
        }
    }
}
