//! Chinese notation (`炮二平五`, `马８进７`), as game records and Xiangqi databases write it.
//!
//! A move is four characters: the piece, the file it stands on, the direction (进 forward,
//! 退 backward, 平 sideways) and a number, which is the destination file for sideways moves
//! and for the horse, elephant and advisor, otherwise the distance travelled along the file.
//! Each side numbers the files 1–9 from its own right: Red in Chinese numerals (一…九), Black in
//! full-width digits (１…９).
//!
//! When pieces of one kind share a file, a place word comes first and the file is left out
//! (`前炮平五`), following the competition rules of the Chinese Xiangqi Association that game
//! databases use:
//! - two on a file: 前 (front, nearest the opponent) and 后 (rear);
//! - three: 前, 中, 后;
//! - four or five soldiers: 前, 二, 三, 四, 五, counted from the front;
//! - soldiers two or more to a file on several files: the file number replaces the piece name
//!   (`前七进一`, `后３平４`).
//!
//! [`Chinese::from_move`] writes simplified characters: Red 车 马 相 仕 帅 炮 兵, Black
//! 车 马 象 士 将 炮 卒. The parser also reads the traditional forms (車 馬 俥 傌 砲 帥 將 進
//! 後), either side's piece names, 一 as the first place word, and ASCII or full-width digits
//! for either side: the position says whose move it is.

use std::fmt;
use std::str::FromStr;

use crate::descriptive::{self, Direction, Facts, Unresolved};
use crate::{Color, Move, Position, Role};

/// A move in Chinese notation. Parsing only checks the syntax; [`Chinese::to_move`] finds the
/// move in a position.
///
/// # Examples
///
/// ```
/// use xq_rules::{Move, Position, Square, chinese::Chinese};
///
/// let pos = Position::startpos();
/// let mv = "炮二平五".parse::<Chinese>()?.to_move(&pos)?;
/// assert_eq!(mv, Move::new(Square::H2, Square::E2));
/// let pos = pos.play(mv)?;
/// let reply = Move::new(Square::H9, Square::G7);
/// assert_eq!(Chinese::from_move(&pos, reply).to_string(), "马８进７");
/// # Ok::<_, Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Chinese {
    /// Whose conventions it is written in: Red's numerals or Black's digits and piece names.
    color: Color,
    role: Role,
    origin: Origin,
    direction: Direction,
    number: u8,
}

/// How a Chinese move names the piece that moves.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
enum Origin {
    /// `炮二`: the piece of its kind on this file.
    File(u8),
    /// `前炮`, `中兵`, `二兵`: a piece by its place on a file it shares with others of its kind;
    /// `前七`: a soldier on the given file, when soldiers crowd several files.
    Place { place: Place, file: Option<u8> },
}

/// A piece's place among pieces of its kind on one file.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
enum Place {
    /// 前: the one nearest the opponent.
    Front,
    /// 中: the middle one of three.
    Middle,
    /// 后: the one nearest its own side.
    Rear,
    /// 一…五: the n-th from the front.
    Nth(u8),
}

/// A text that is not Chinese notation.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
#[error("invalid chinese move (expected four characters like 炮二平五)")]
pub struct ParseChineseError;

/// A Chinese move that does not fit the position.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ChineseError {
    /// No legal move fits the description.
    #[error("no legal move fits the chinese notation")]
    Illegal,
    /// Several legal moves fit the description.
    #[error("ambiguous chinese notation: several legal moves fit")]
    Ambiguous,
}

const NUMERALS: [char; 9] = ['一', '二', '三', '四', '五', '六', '七', '八', '九'];
const FULL_WIDTH_DIGITS: [char; 9] = ['１', '２', '３', '４', '５', '６', '７', '８', '９'];

impl Chinese {
    /// Describes `mv`, a legal move in `pos`. (An illegal move gets a description that
    /// [`Chinese::to_move`] does not resolve back to it.)
    ///
    /// # Examples
    ///
    /// ```
    /// use xq_rules::{Move, Position, Square, chinese::Chinese};
    ///
    /// let pos = Position::startpos();
    /// let mv = Move::new(Square::B0, Square::C2);
    /// assert_eq!(Chinese::from_move(&pos, mv).to_string(), "马八进七");
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
        let origin = if tandem.count < 2 {
            Origin::File(file)
        } else {
            let place = match (tandem.count, tandem.index) {
                (_, 0) => Place::Front,
                (2 | 3, _) if tandem.is_rear() => Place::Rear,
                (3, _) => Place::Middle,
                (_, index) => Place::Nth(index + 1),
            };
            Origin::Place {
                place,
                file: tandem.several_files.then_some(file),
            }
        };
        Self {
            color: pos.turn(),
            role,
            origin,
            direction,
            number,
        }
    }

    /// The legal move this notation describes in `pos`. The numbers are read as the side to
    /// move counts files, whichever style they are written in.
    ///
    /// # Errors
    ///
    /// [`ChineseError::Illegal`] if no legal move fits, [`ChineseError::Ambiguous`] if several
    /// do.
    ///
    /// # Examples
    ///
    /// ```
    /// use xq_rules::{Move, Position, Square, chinese::{Chinese, ChineseError}};
    ///
    /// let pos = Position::startpos();
    /// assert_eq!("傌2進3".parse::<Chinese>()?.to_move(&pos), Ok(Move::new(Square::H0, Square::G2)));
    /// assert_eq!("马二平三".parse::<Chinese>()?.to_move(&pos), Err(ChineseError::Illegal));
    /// # Ok::<_, Box<dyn std::error::Error>>(())
    /// ```
    pub fn to_move(&self, pos: &Position) -> Result<Move, ChineseError> {
        let origin = self.origin;
        descriptive::resolve(
            pos,
            self.role,
            self.direction,
            self.number,
            |file, t| match origin {
                Origin::File(f) => file == f,
                Origin::Place { place, file: f } => {
                    f.is_none_or(|f| f == file)
                        && t.count >= 2
                        && match place {
                            Place::Front => t.index == 0,
                            Place::Middle => t.count == 3 && t.index == 1,
                            Place::Rear => t.is_rear(),
                            Place::Nth(n) => t.index + 1 == n,
                        }
                }
            },
        )
        .map_err(|err| match err {
            Unresolved::NoMove => ChineseError::Illegal,
            Unresolved::SeveralMoves => ChineseError::Ambiguous,
        })
    }

    /// The number written in this side's style. (Numbers are 1–9, except the distance 0 of a
    /// move that goes nowhere, which no position allows; it is clamped rather than panicking.)
    fn numeral(&self, n: u8) -> char {
        let numerals = match self.color {
            Color::Red => &NUMERALS,
            Color::Black => &FULL_WIDTH_DIGITS,
        };
        numerals[usize::from(n.clamp(1, 9) - 1)]
    }
}

const fn glyph(color: Color, role: Role) -> char {
    match (color, role) {
        (_, Role::Chariot) => '车',
        (_, Role::Horse) => '马',
        (_, Role::Cannon) => '炮',
        (Color::Red, Role::Elephant) => '相',
        (Color::Red, Role::Advisor) => '仕',
        (Color::Red, Role::General) => '帅',
        (Color::Red, Role::Soldier) => '兵',
        (Color::Black, Role::Elephant) => '象',
        (Color::Black, Role::Advisor) => '士',
        (Color::Black, Role::General) => '将',
        (Color::Black, Role::Soldier) => '卒',
    }
}

const fn role_from_glyph(ch: char) -> Option<Role> {
    Some(match ch {
        '车' | '車' | '俥' => Role::Chariot,
        '马' | '馬' | '傌' => Role::Horse,
        '炮' | '砲' => Role::Cannon,
        '相' | '象' => Role::Elephant,
        '仕' | '士' => Role::Advisor,
        '帅' | '帥' | '将' | '將' => Role::General,
        '兵' | '卒' => Role::Soldier,
        _ => return None,
    })
}

const fn place_from_char(ch: char) -> Option<Place> {
    Some(match ch {
        '前' => Place::Front,
        '中' => Place::Middle,
        '后' | '後' => Place::Rear,
        '一' => Place::Nth(1),
        '二' => Place::Nth(2),
        '三' => Place::Nth(3),
        '四' => Place::Nth(4),
        '五' => Place::Nth(5),
        _ => return None,
    })
}

/// A number 1–9 and whether it is written as a Chinese numeral (Red's style).
fn number_from_char(ch: char) -> Option<(u8, bool)> {
    let position = |set: &[char; 9]| set.iter().position(|&c| c == ch);
    // The positions are below 9, so they fit in a u8.
    if let Some(i) = position(&NUMERALS) {
        Some((i as u8 + 1, true))
    } else if let Some(i) = position(&FULL_WIDTH_DIGITS) {
        Some((i as u8 + 1, false))
    } else {
        ch.to_digit(10).filter(|&d| d > 0).map(|d| (d as u8, false))
    }
}

impl FromStr for Chinese {
    type Err = ParseChineseError;

    fn from_str(s: &str) -> Result<Self, ParseChineseError> {
        let mut chars = s.chars();
        let (Some(first), Some(second), Some(direction), Some(number), None) = (
            chars.next(),
            chars.next(),
            chars.next(),
            chars.next(),
            chars.next(),
        ) else {
            return Err(ParseChineseError);
        };
        let (number, red_number) = number_from_char(number).ok_or(ParseChineseError)?;
        let direction = match direction {
            '进' | '進' => Direction::Forward,
            '退' => Direction::Backward,
            '平' => Direction::Sideways,
            _ => return Err(ParseChineseError),
        };
        let (role, origin, red_file) = match (role_from_glyph(first), place_from_char(first)) {
            (Some(role), _) => {
                let (file, red) = number_from_char(second).ok_or(ParseChineseError)?;
                (role, Origin::File(file), red)
            }
            (None, Some(place)) => match role_from_glyph(second) {
                Some(role) => (role, Origin::Place { place, file: None }, false),
                None => {
                    let (file, red) = number_from_char(second).ok_or(ParseChineseError)?;
                    let file = Some(file);
                    (Role::Soldier, Origin::Place { place, file }, red)
                }
            },
            (None, None) => return Err(ParseChineseError),
        };
        Ok(Self {
            color: if red_number || red_file {
                Color::Red
            } else {
                Color::Black
            },
            role,
            origin,
            direction,
            number,
        })
    }
}

impl fmt::Display for Chinese {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let piece = glyph(self.color, self.role);
        match self.origin {
            Origin::File(file) => write!(f, "{piece}{}", self.numeral(file))?,
            Origin::Place { place, file } => {
                let word = match place {
                    Place::Front => '前',
                    Place::Middle => '中',
                    Place::Rear => '后',
                    Place::Nth(n) => NUMERALS[usize::from(n.clamp(1, 9) - 1)],
                };
                match file {
                    Some(file) => write!(f, "{word}{}", self.numeral(file))?,
                    None => write!(f, "{word}{piece}")?,
                }
            }
        }
        let direction = match self.direction {
            Direction::Forward => '进',
            Direction::Backward => '退',
            Direction::Sideways => '平',
        };
        write!(f, "{direction}{}", self.numeral(self.number))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Square;
    use crate::test_util::{self, iccs, position};

    fn parse(text: &str) -> Chinese {
        text.parse().unwrap_or_else(|e| panic!("{text}: {e}"))
    }

    /// Checks that each ICCS move is written as expected and that the text leads back to it.
    fn assert_writes(fen: &str, cases: &[(&str, &str)]) {
        test_util::assert_writes(
            fen,
            cases,
            |pos, mv| Chinese::from_move(pos, mv).to_string(),
            |text, pos| parse(text).to_move(pos),
        );
    }

    #[test]
    fn every_piece_and_direction_from_the_start() {
        assert_writes(
            "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w - - 0 1",
            &[
                ("h2e2", "炮二平五"),
                ("h2h9", "炮二进七"),
                ("h2h1", "炮二退一"),
                ("h0g2", "马二进三"),
                ("b0c2", "马八进七"),
                ("i0i1", "车一进一"),
                ("c0e2", "相七进五"),
                ("g0e2", "相三进五"),
                ("f0e1", "仕四进五"),
                ("e0e1", "帅五进一"),
                ("c3c4", "兵七进一"),
            ],
        );
    }

    #[test]
    fn black_writes_full_width_digits_and_its_own_names() {
        assert_writes(
            "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C2C4/9/RNBAKABNR b - - 1 1",
            &[
                ("h9g7", "马８进７"),
                ("h7e7", "炮８平５"),
                ("b7b8", "炮２退１"),
                ("g9e7", "象７进５"),
                ("f9e8", "士６进５"),
                ("e9e8", "将５进１"),
                ("a6a5", "卒１进１"),
            ],
        );
    }

    #[test]
    fn two_on_a_file_are_front_and_rear() {
        assert_writes(
            "3k5/9/9/9/9/R8/9/9/R8/4K4 w - - 0 1",
            &[
                ("a4a5", "前车进一"),
                ("a4b4", "前车平八"),
                ("a1b1", "后车平八"),
                ("a1a0", "后车退一"),
            ],
        );
        // Unlike WXF, the place word is written even when the file alone would do.
        assert_writes(
            "r2k5/9/9/r8/9/9/9/9/9/4K4 b - - 0 1",
            &[("a6a7", "前车退１"), ("a9b9", "后车平２")],
        );
        assert_writes(
            "3k5/9/9/9/9/2B6/9/9/9/2B1K4 w - - 0 1",
            &[("c4e2", "前相退五"), ("c0a2", "后相进九")],
        );
    }

    #[test]
    fn soldiers_sharing_files() {
        assert_writes(
            "3k5/9/2P6/2P6/2P6/9/9/9/9/4K4 w - - 0 1",
            &[
                ("c7c8", "前兵进一"),
                ("c6b6", "中兵平八"),
                ("c5d5", "后兵平六"),
            ],
        );
        assert_writes(
            "3k5/2P6/2P6/2P6/2P6/9/9/9/9/4K4 w - - 0 1",
            &[
                ("c8c9", "前兵进一"),
                ("c7b7", "二兵平八"),
                ("c6d6", "三兵平六"),
                ("c5b5", "四兵平八"),
            ],
        );
        assert_writes(
            "3k5/9/9/2P3P2/2P3P2/9/9/9/9/4K4 w - - 0 1",
            &[
                ("c6c7", "前七进一"),
                ("c5b5", "后七平八"),
                ("g6g7", "前三进一"),
                ("g5h5", "后三平二"),
            ],
        );
        assert_writes(
            "4k4/9/9/9/9/p1p6/p1p6/p8/9/3K5 b - - 0 1",
            &[
                ("a2a1", "前１进１"),
                ("a3b3", "中１平２"),
                ("a4b4", "后１平２"),
                ("c3c2", "前３进１"),
                ("c4d4", "后３平４"),
            ],
        );
    }

    #[test]
    fn parser_accepts_traditional_forms_and_any_digits() {
        let start = Position::startpos();
        for (text, mv) in [
            ("炮2平5", "h2e2"),
            ("炮２平５", "h2e2"),
            ("俥一進一", "i0i1"),
            ("車1进1", "i0i1"),
            ("傌二進三", "h0g2"),
            ("馬八进七", "b0c2"),
            ("象3进5", "g0e2"),
            ("士4進5", "f0e1"),
            ("帥五進一", "e0e1"),
            ("卒七进一", "c3c4"),
        ] {
            assert_eq!(parse(text).to_move(&start), Ok(iccs(mv)), "{text}");
        }
        let black = position("rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C2C4/9/RNBAKABNR b");
        for (text, mv) in [
            ("砲8平5", "h7e7"),
            ("馬８進７", "h9g7"),
            ("將５進１", "e9e8"),
            ("马八进七", "h9g7"),
        ] {
            assert_eq!(parse(text).to_move(&black), Ok(iccs(mv)), "{text}");
        }
        let pair = position("3k5/9/9/9/9/R8/9/9/R8/4K4 w - - 0 1");
        assert_eq!(parse("後俥平八").to_move(&pair), Ok(iccs("a1b1")));
        let four = position("3k5/2P6/2P6/2P6/2P6/9/9/9/9/4K4 w - - 0 1");
        assert_eq!(parse("一兵进一").to_move(&four), Ok(iccs("c8c9")));
        assert_eq!(parse("后兵平八").to_move(&four), Ok(iccs("c5b5")));
    }

    #[test]
    fn writing_follows_the_style_it_was_read_in() {
        for (text, canonical) in [
            ("炮2平5", "炮２平５"),
            ("砲二平五", "炮二平五"),
            ("後俥平八", "后车平八"),
            ("將5進1", "将５进１"),
            ("前7进1", "前７进１"),
        ] {
            assert_eq!(parse(text).to_string(), canonical, "{text}");
        }
    }

    #[test]
    fn malformed_text_is_refused() {
        for bad in [
            "",
            "炮二平",
            "炮二平五五",
            "炮十平五",
            "炮二走五",
            "炮０平五",
            "炮前平五",
            "王二平五",
            "前后平五",
            "六兵进一",
            "C2=5",
        ] {
            assert_eq!(bad.parse::<Chinese>(), Err(ParseChineseError), "{bad:?}");
        }
    }

    #[test]
    fn moves_that_do_not_fit_are_illegal_or_ambiguous() {
        let start = Position::startpos();
        for text in ["马二平三", "车一进九", "前炮平五", "炮五平四", "中兵进一"]
        {
            assert_eq!(
                parse(text).to_move(&start),
                Err(ChineseError::Illegal),
                "{text}"
            );
        }
        let tandems = position("3k5/9/9/2P3P2/2P3P2/9/9/9/9/4K4 w - - 0 1");
        assert_eq!(
            parse("前兵进一").to_move(&tandems),
            Err(ChineseError::Ambiguous)
        );
        assert_eq!(parse("前兵平八").to_move(&tandems), Ok(iccs("c6b6")));
        let pair = position("3k5/9/9/9/9/R8/9/9/R8/4K4 w - - 0 1");
        assert_eq!(
            parse("车九平八").to_move(&pair),
            Err(ChineseError::Ambiguous)
        );
    }

    #[test]
    fn every_legal_move_round_trips() {
        let mut pos = Position::startpos();
        for _ in 0..60 {
            let moves = pos.legal_moves();
            for &mv in &moves {
                let chinese = Chinese::from_move(&pos, mv);
                assert_eq!(chinese.to_move(&pos), Ok(mv));
                assert_eq!(parse(&chinese.to_string()), chinese);
            }
            let Some(&mv) = moves.get(moves.len() / 3) else {
                break;
            };
            pos.play_unchecked(mv);
        }
        assert_eq!(
            Chinese::from_move(&Position::startpos(), Move::new(Square::H2, Square::E2))
                .to_string(),
            "炮二平五"
        );
    }
}
