//! Game records in PGN, in the Xiangqi dialect of pychess-variants and Xiangqi databases.
//!
//! ```text
//! [Game "Chinese Chess"]
//! [Event "?"]
//! [Site "?"]
//! [Date "2024.05.01"]
//! [Red "Hu Ronghua"]
//! [Black "Yang Guanlin"]
//! [Result "1-0"]
//! [Termination "resignation"]
//!
//! 1. h2e2 h9g7 2. h0g2 i9h9 1-0
//! ```
//!
//! A `FEN` tag gives the start position when it is not the standard one; `Termination` says
//! why the game ended, in the words of [`crate::WinReason`] and [`crate::DrawReason`]; a
//! `Repetition` tag (`checks-only`) names the repetition rule when it is not the Asian rules
//! ([`RepetitionRule`]). Moves are written in ICCS by default, or in WXF or Chinese notation
//! ([`MoveFormat`]).
//!
//! The reader accepts one game, after a UTF-8 byte-order mark if there is one. Each move may
//! be ICCS (`h2e2`, `H2-E2`), WXF (`C2=5`, `R1.2`) or Chinese (`炮二平五`), recognised token by
//! token. Move numbers (`1.`, `1...`), NAGs (`$1`), trailing annotation marks (`!?`, `+`),
//! comments (`{...}` and `;` to the end of the line) and `%` escape lines are skipped.
//! Variations (`(...)`, nested or not) are skipped unread: only the main line is loaded. The
//! movetext must end with a result token (`1-0`, `0-1`, `1/2-1/2` or `*`), so that a truncated
//! file is not taken for a complete game. Every error names the line, and move errors name the
//! move; nothing is returned from a record with an error in it.
//!
//! The result must agree with the final position where the board decides it. A side to move
//! that is mated or stalemated has lost, so a finished game that ends there with another
//! result or another reason (a resignation) is refused. A checkmate, stalemate, repetition,
//! perpetual check or perpetual chase given as the reason must be what the final position
//! shows, judged by [`crate::Match`]'s rules (and the record's repetition rule) over the
//! moves of the record. A move-limit draw is taken as
//! written, since the limit is a match setting that the record does not carry, and so are the
//! reasons the board has no say in (time, resignation, agreement, abandonment).
//!
//! # What a round trip keeps
//!
//! [`parse`] reads back whatever [`write()`] writes, and a record it read comes back unchanged
//! from a second write and read. Reading a file and writing it again keeps the start position,
//! the main line, the result and every tag, with these normalisations:
//!
//! - Comments, NAGs, annotation marks and variations are dropped; the moves are spelled in the
//!   [`MoveFormat`] asked for, with the move numbers the position gives.
//! - The tags come in a fixed order: `Game`, `Event`, `Site`, `Date`, `Red`, `Black`, `Result`,
//!   then `FEN`, `Termination` and `Repetition`, then the others ([`Tags::other`]) in file order. `Game` is
//!   always "Chinese Chess". An event, site or player given as `?` or empty is unknown and
//!   written `?`. Of a repeated tag that has a field, the last value is kept.
//! - The `FEN` tag is written canonically, and left out for the standard start position.
//! - A `Termination` that gives the reason for the result is written in this crate's words
//!   ("perpetual check"); any other `Termination` stays as it was, after the other tags.
//! - A control character in a tag value (a tab) is read as a space, as it is written.

use std::fmt;

use xq_rules::chinese::{Chinese, ChineseError};
use xq_rules::fen::{Fen, ParseFenError};
use xq_rules::iccs::Iccs;
use xq_rules::wxf::{Wxf, WxfError};
use xq_rules::{Color, IllegalMove, Move, Outcome, Position, PositionError};

use crate::history::History;
use crate::record::{BoardConflict, Ending, board_conflict};
use crate::{DrawReason, GameResult, Record, RepetitionRule, Tags, WinReason};

/// How [`write()`] spells the moves.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum MoveFormat {
    /// ICCS coordinates (`h2e2`): unambiguous and read by every Xiangqi program.
    #[default]
    Iccs,
    /// WXF notation (`C2=5`), as Fairy-Stockfish writes it.
    Wxf,
    /// Chinese notation (`炮二平五`), as Chinese game records and Xiangqi databases write it:
    /// the form most players read.
    Chinese,
}

/// Why a move token that is readable notation names no legal move.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
pub enum MoveError {
    /// An ICCS move that the rules forbid.
    #[error(transparent)]
    Iccs(#[from] IllegalMove),
    /// A WXF description that fits no legal move, or several.
    #[error(transparent)]
    Wxf(#[from] WxfError),
    /// A Chinese description that fits no legal move, or several.
    #[error(transparent)]
    Chinese(#[from] ChineseError),
}

/// A move number as PGN writes it: `12.` before a Red move, `12...` before a Black one.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct MoveNumber {
    /// The full-move number.
    pub number: u32,
    /// The side moving.
    pub by: Color,
}

/// Why a PGN text is not a game record. Every variant names the line (from 1).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum PgnError {
    /// A tag pair is not `[Name "value"]`.
    #[error("line {line}: malformed tag pair")]
    MalformedTag {
        /// The line.
        line: usize,
    },
    /// A tag pair stands among the moves (a second game after a missing result, perhaps).
    #[error("line {line}: tag pair among the moves")]
    TagAmongMoves {
        /// The line.
        line: usize,
    },
    /// The `Repetition` tag names no [`RepetitionRule`] (`asian`, `checks-only`).
    #[error("line {line}: unknown repetition rule \"{value}\" (asian or checks-only)")]
    UnknownRepetitionRule {
        /// The line.
        line: usize,
        /// The tag's value.
        value: String,
    },
    /// The `FEN` tag is not FEN.
    #[error("line {line}: bad FEN tag: {error}")]
    BadFen {
        /// The line.
        line: usize,
        /// What is wrong with it.
        error: ParseFenError,
    },
    /// The `FEN` tag describes an impossible position.
    #[error("line {line}: impossible FEN position: {error}")]
    ImpossibleFen {
        /// The line.
        line: usize,
        /// The rule it breaks.
        error: PositionError,
    },
    /// A `{` comment or `(` variation is not closed.
    #[error("line {line}: unclosed '{open}'")]
    Unclosed {
        /// The line where it opens.
        line: usize,
        /// `{` or `(`.
        open: char,
    },
    /// A `)` closes no variation.
    #[error("line {line}: ')' without '('")]
    UnmatchedParen {
        /// The line.
        line: usize,
    },
    /// A movetext token is no move in any notation the reader knows.
    #[error("line {line}: move {number} '{text}' is not a move")]
    UnreadableMove {
        /// The line.
        line: usize,
        /// The move's number.
        number: MoveNumber,
        /// The token.
        text: String,
    },
    /// A move breaks the rules in its position.
    #[error("line {line}: move {number} '{text}' is illegal: {reason}")]
    IllegalMove {
        /// The line.
        line: usize,
        /// The move's number.
        number: MoveNumber,
        /// The token.
        text: String,
        /// Why it is illegal.
        reason: MoveError,
    },
    /// The movetext does not end with a result token, so the record may be truncated.
    #[error("line {line}: the moves end without a result (1-0, 0-1, 1/2-1/2 or *)")]
    MissingResult {
        /// The last line.
        line: usize,
    },
    /// Something follows the result token.
    #[error("line {line}: '{text}' after the result")]
    TrailingText {
        /// The line.
        line: usize,
        /// The first thing after it.
        text: String,
    },
    /// The result token contradicts the `Result` tag.
    #[error("line {line}: result {token} contradicts the Result tag \"{tag}\"")]
    ResultMismatch {
        /// The line of the token.
        line: usize,
        /// The token.
        token: String,
        /// The tag's value.
        tag: String,
    },
    /// The `Termination` tag names a reason that does not fit the result (a drawn checkmate).
    #[error("line {line}: termination \"{termination}\" contradicts the result {token}")]
    TerminationMismatch {
        /// The line of the result token.
        line: usize,
        /// The tag's value.
        termination: String,
        /// The result token.
        token: String,
    },
    /// The `Termination` tag names a reason that the board settles, and the final position
    /// does not bear it out: a checkmate or stalemate where the side to move can move, a
    /// repetition that did not happen, a perpetual check or chase that the loser did not
    /// commit, a draw by repetition where one side did.
    #[error("line {line}: termination \"{claimed}\" does not hold in the final position")]
    UnfoundedTermination {
        /// The line of the result token.
        line: usize,
        /// The result the record claims.
        claimed: GameResult,
    },
    /// The final position ended the game, the side to move being mated or stalemated, and
    /// the record ends it otherwise: with a draw, a win for the mated side, or another reason
    /// (a resignation).
    #[error("line {line}: the final position is {reason}, a win for {winner}, not {claimed}")]
    PositionDecided {
        /// The line of the result token.
        line: usize,
        /// The side the final position gives the game to.
        winner: Color,
        /// How: checkmate or stalemate.
        reason: WinReason,
        /// What the record says: the result token, and its reason if it gives one
        /// ("1-0 resignation").
        claimed: String,
    },
}

/// Writes `record` as PGN, moves spelled in `format`.
///
/// [`parse`] reads back whatever this writes. A tag pair is one line, so control characters
/// in tag values (line breaks, tabs) are written as spaces. From [`Tags::other`] it leaves
/// out names that are not letters, digits and `_`, the tags it writes from the record itself
/// (`Game`, `Event`, `Site`, `Date`, `Red`, `Black`, `Result`, `FEN`), and a `Termination`
/// when the record has its own reason or the tag contradicts the result or the final
/// position.
///
/// Movetext lines are at most 79 bytes long. That is 79 columns in ICCS and WXF, and fewer in
/// Chinese, whose characters take three bytes and two columns each.
///
/// # Examples
///
/// ```
/// use xq_rules::{Color, Move, Square};
/// use xq_session::pgn::{self, MoveFormat};
/// use xq_session::{Action, Match, MatchConfig, Timestamp};
///
/// let mut game = Match::new(MatchConfig::default(), Timestamp::from_millis(0));
/// let mv = Move::new(Square::H2, Square::E2);
/// game.handle(Timestamp::from_millis(0), Action::Play(mv).by(Color::Red))?;
/// game.handle(Timestamp::from_millis(0), Action::Resign.by(Color::Black))?;
/// let text = pgn::write(&game.record(), MoveFormat::Iccs);
/// assert!(text.starts_with("[Game \"Chinese Chess\"]\n"));
/// assert!(text.ends_with("\n1. h2e2 1-0\n"));
/// # Ok::<_, xq_session::CommandError>(())
/// ```
#[must_use]
pub fn write(record: &Record, format: MoveFormat) -> String {
    let tags = &record.tags;
    let unknown = |value: &Option<String>| value.clone().unwrap_or_else(|| "?".to_owned());
    let mut pairs = vec![
        ("Game".to_owned(), "Chinese Chess".to_owned()),
        ("Event".to_owned(), unknown(&tags.event)),
        ("Site".to_owned(), unknown(&tags.site)),
        (
            "Date".to_owned(),
            tags.date.clone().unwrap_or_else(|| "????.??.??".to_owned()),
        ),
        ("Red".to_owned(), unknown(&tags.red)),
        ("Black".to_owned(), unknown(&tags.black)),
        (
            "Result".to_owned(),
            result_token(record.outcome()).to_owned(),
        ),
    ];
    if *record.start() != Position::startpos() {
        let fen = Fen::from_position(record.start()).to_string();
        pairs.push(("FEN".to_owned(), fen));
    }
    if let Some(result) = record.result() {
        pairs.push(("Termination".to_owned(), result.to_string()));
    }
    if record.repetition() != RepetitionRule::default() {
        pairs.push(("Repetition".to_owned(), record.repetition().to_string()));
    }
    // The reader keeps the last `Termination` it reads, so only that one is written.
    let termination = tags
        .other
        .iter()
        .rposition(|(name, value)| name == "Termination" && writes_other(record, name, value));
    pairs.extend(
        tags.other
            .iter()
            .enumerate()
            .filter(|&(index, (name, value))| {
                writes_other(record, name, value)
                    && (name != "Termination" || Some(index) == termination)
            })
            .map(|(_, pair)| pair.clone()),
    );

    let mut out = String::new();
    for (name, value) in pairs {
        let value = one_line(&value).replace('\\', "\\\\").replace('"', "\\\"");
        out.push_str(&format!("[{name} \"{value}\"]\n"));
    }
    out.push('\n');

    let mut words = Vec::with_capacity(record.moves().len() * 3 / 2 + 1);
    let mut pos = record.start().clone();
    for (index, &mv) in record.moves().iter().enumerate() {
        let number = MoveNumber::of(&pos);
        if number.by == Color::Red || index == 0 {
            words.push(number.to_string());
        }
        words.push(match format {
            MoveFormat::Iccs => mv.to_string(),
            MoveFormat::Wxf => Wxf::from_move(&pos, mv).to_string(),
            MoveFormat::Chinese => Chinese::from_move(&pos, mv).to_string(),
        });
        pos.play_unchecked(mv);
    }
    words.push(result_token(record.outcome()).to_owned());
    let mut line_len = 0;
    for word in words {
        if line_len > 0 && line_len + 1 + word.len() > 79 {
            out.push('\n');
            line_len = 0;
        } else if line_len > 0 {
            out.push(' ');
            line_len += 1;
        }
        out.push_str(&word);
        line_len += word.len();
    }
    out.push('\n');
    out
}

/// Reads one game from PGN text, checking every move.
///
/// # Errors
///
/// A [`PgnError`] naming the line (and the move, for move errors) of the first problem.
///
/// # Examples
///
/// ```
/// use xq_rules::Outcome;
/// use xq_session::pgn::{self, PgnError};
///
/// let record = pgn::parse("[Result \"*\"]\n\n1. h2e2 {central cannon} h9g7 *\n")?;
/// assert_eq!(record.moves().len(), 2);
/// assert_eq!(record.outcome(), None);
///
/// let err = pgn::parse("1. h2e2 h9g7\n2. h2e2 *").unwrap_err();
/// assert_eq!(err.to_string(), "line 2: move 2. 'h2e2' is illegal: no piece on h2");
/// # Ok::<_, PgnError>(())
/// ```
pub fn parse(text: &str) -> Result<Record, PgnError> {
    // Editors on Windows often save UTF-8 with a byte-order mark.
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let mut lexer = Lexer::new(text);
    let mut header = Header::default();
    let mut first = None;
    while let Some(token) = lexer.next_token()? {
        match token {
            (line, Token::Tag(name, value)) => header.add(line, name, value)?,
            other => {
                first = Some(other);
                break;
            }
        }
    }
    let mut history = History::new(header.start.clone());
    let mut next = first;
    let (line, token) = loop {
        let Some((line, token)) = next else {
            return Err(PgnError::MissingResult { line: lexer.line });
        };
        match token {
            Token::Tag(..) => return Err(PgnError::TagAmongMoves { line }),
            Token::Word(word) => {
                if let Some(outcome) = parse_result_token(word) {
                    break (line, (word, outcome));
                }
                play_word(&mut history, line, word)?;
            }
        }
        next = lexer.next_token()?;
    };
    if let Some((line, token)) = lexer.next_token()? {
        let text = match token {
            Token::Tag(name, _) => format!("[{name}"),
            Token::Word(word) => word.to_owned(),
        };
        return Err(PgnError::TrailingText { line, text });
    }
    let ending = header.ending(line, token)?;
    check_ending(&history, ending, header.repetition, line, token.0)?;
    let moves = history.played().iter().map(|played| played.mv).collect();
    Ok(Record::from_checked_parts(
        header.tags,
        header.start,
        moves,
        ending,
        header.repetition,
    ))
}

impl MoveNumber {
    /// The number of the move about to be played in `pos`.
    fn of(pos: &Position) -> Self {
        Self {
            number: pos.fullmoves().get(),
            by: pos.turn(),
        }
    }
}

impl fmt::Display for MoveNumber {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let dots = self.by.fold(".", "...");
        write!(f, "{}{dots}", self.number)
    }
}

/// The PGN result token for an outcome: `1-0`, `0-1`, `1/2-1/2`, or `*` for `None` (unfinished).
#[must_use]
pub const fn result_token(outcome: Option<Outcome>) -> &'static str {
    match outcome {
        None => "*",
        Some(Outcome::Decisive { winner: Color::Red }) => "1-0",
        Some(Outcome::Decisive {
            winner: Color::Black,
        }) => "0-1",
        Some(Outcome::Draw) => "1/2-1/2",
    }
}

/// The tags [`write()`] makes from a record's own fields rather than from [`Tags::other`].
const OWN_TAGS: [&str; 9] = [
    "Game",
    "Event",
    "Site",
    "Date",
    "Red",
    "Black",
    "Result",
    "FEN",
    "Repetition",
];

/// Whether [`write()`] keeps the tag `name` from [`Tags::other`].
///
/// Whatever the writer writes, the reader must read back. So it leaves out names the reader
/// refuses, the tags it makes from the record's own fields (a second copy would override or
/// contradict them), and a `Termination` that the record's result already gives, that
/// contradicts its outcome, or that names a reason the final position does not bear out.
fn writes_other(record: &Record, name: &str, value: &str) -> bool {
    if !is_tag_name(name) || OWN_TAGS.contains(&name) {
        return false;
    }
    if name != "Termination" {
        return true;
    }
    let value = one_line(value);
    record.result().is_none()
        && record.outcome().is_none_or(|outcome| {
            !contradicts(&value, outcome)
                && named_result(outcome, &value).is_none_or(|result| {
                    let ending = Ending::Result(result);
                    board_conflict(&record.history(), ending, record.repetition()).is_none()
                })
        })
}

/// `value` on one line: PGN tag pairs cannot span lines, so line breaks and other control
/// characters become spaces.
fn one_line(value: &str) -> String {
    value.chars().map(in_tag_value).collect()
}

/// `c` as a tag value holds it: a control character becomes a space, whether it is read (a
/// tab) or written (a line break, which a tag's one line cannot hold), so that what is read
/// writes back the same.
fn in_tag_value(c: char) -> char {
    if c.is_control() { ' ' } else { c }
}

/// Whether `name` is a tag name the reader accepts: letters, digits and `_`.
fn is_tag_name(name: &str) -> bool {
    !name.is_empty() && name.chars().all(is_tag_name_char)
}

fn is_tag_name_char(c: char) -> bool {
    c.is_alphanumeric() || c == '_'
}

/// The result a `Termination` of `text` gives a game that ended in `outcome`, if `text` names
/// a reason of that kind (in any case: "Perpetual Check").
fn named_result(outcome: Outcome, text: &str) -> Option<GameResult> {
    match outcome {
        Outcome::Decisive { winner } => WinReason::ALL
            .into_iter()
            .map(|reason| GameResult::Win { winner, reason })
            .find(|result| is(result, text)),
        Outcome::Draw => DrawReason::ALL
            .into_iter()
            .map(|reason| GameResult::Draw { reason })
            .find(|result| is(result, text)),
    }
}

/// Whether the `Termination` reason `text` names a reason of the other kind than `outcome`
/// (a drawn checkmate), which the reader refuses.
fn contradicts(text: &str, outcome: Outcome) -> bool {
    match outcome {
        Outcome::Decisive { .. } => DrawReason::ALL.iter().any(|r| is(r, text)),
        Outcome::Draw => WinReason::ALL.iter().any(|r| is(r, text)),
    }
}

/// The outcome a result token stands for (`Some(None)`: unfinished), or `None` if `word` is
/// not a result token.
fn parse_result_token(word: &str) -> Option<Option<Outcome>> {
    [
        None,
        Some(Outcome::Decisive { winner: Color::Red }),
        Some(Outcome::Decisive {
            winner: Color::Black,
        }),
        Some(Outcome::Draw),
    ]
    .into_iter()
    .find(|&outcome| result_token(outcome) == word)
}

/// Reads a movetext word that is not a result: a move number, a NAG, or a move, which is
/// played.
fn play_word(history: &mut History, line: usize, word: &str) -> Result<(), PgnError> {
    if word.starts_with('$') {
        return Ok(());
    }
    let word = word.trim_end_matches(['!', '?', '+', '#']);
    let pos = history.current();
    let number = MoveNumber::of(pos);
    // A whole word that reads as a move is one (WXF soldiers such as `27=8` start with digits);
    // otherwise a leading move number (`12.`, `12...`) is cut off first.
    let text = if parse_move(pos, word).is_some() {
        word
    } else {
        let rest = word.trim_start_matches(|c: char| c.is_ascii_digit());
        match rest.strip_prefix('.') {
            Some(after_number) => after_number.trim_start_matches('.'),
            None if rest.is_empty() => return Ok(()),
            None => word,
        }
    };
    if text.is_empty() {
        return Ok(());
    }
    let mv = parse_move(pos, text)
        .ok_or_else(|| PgnError::UnreadableMove {
            line,
            number,
            text: text.to_owned(),
        })?
        .map_err(|reason| PgnError::IllegalMove {
            line,
            number,
            text: text.to_owned(),
            reason,
        })?;
    history.push(mv);
    Ok(())
}

/// Reads `text` as ICCS, WXF or Chinese: `None` if it is none of them, otherwise the move or
/// why the notation names no legal move.
fn parse_move(pos: &Position, text: &str) -> Option<Result<Move, MoveError>> {
    if let Ok(iccs) = text.parse::<Iccs>() {
        return Some(iccs.to_move(pos).map_err(MoveError::from));
    }
    if let Ok(wxf) = text.parse::<Wxf>() {
        return Some(wxf.to_move(pos).map_err(MoveError::from));
    }
    if let Ok(chinese) = text.parse::<Chinese>() {
        return Some(chinese.to_move(pos).map_err(MoveError::from));
    }
    None
}

/// The tag section as read so far.
#[derive(Default)]
struct Header {
    tags: Tags,
    start: Position,
    result: Option<String>,
    termination: Option<String>,
    repetition: RepetitionRule,
}

impl Header {
    fn add(&mut self, line: usize, name: &str, value: String) -> Result<(), PgnError> {
        match name {
            // Always written as "Chinese Chess"; other values are other dialects' spellings.
            // `Variant` (pychess-variants' "xiangqi") is not ours to write, so it stays among
            // the other tags.
            "Game" => {}
            "Event" => self.tags.event = known(value),
            "Site" => self.tags.site = known(value),
            "Date" => self.tags.date = Some(value).filter(|date| date != "????.??.??"),
            "Red" => self.tags.red = known(value),
            "Black" => self.tags.black = known(value),
            "Result" => self.result = Some(value),
            "Termination" => self.termination = Some(value),
            "Repetition" => {
                self.repetition = value
                    .parse()
                    .map_err(|_| PgnError::UnknownRepetitionRule { line, value })?;
            }
            "FEN" => {
                let fen: Fen = value
                    .parse()
                    .map_err(|error| PgnError::BadFen { line, error })?;
                self.start = fen
                    .into_position()
                    .map_err(|error| PgnError::ImpossibleFen { line, error })?;
            }
            _ => self.tags.other.push((name.to_owned(), value)),
        }
        Ok(())
    }

    /// The ending given by the result token on `line`, checked against the tags.
    fn ending(
        &mut self,
        line: usize,
        (token, outcome): (&str, Option<Outcome>),
    ) -> Result<Ending, PgnError> {
        if let Some(tag) = self.result.take().filter(|tag| tag != token) {
            return Err(PgnError::ResultMismatch {
                line,
                token: token.to_owned(),
                tag,
            });
        }
        let Some(termination) = self.termination.take() else {
            return Ok(outcome.map_or(Ending::Unfinished, Ending::Outcome));
        };
        let Some(outcome) = outcome else {
            // An unfinished game has no result to check the tag against; keep it as it is.
            self.keep_termination(termination);
            return Ok(Ending::Unfinished);
        };
        if let Some(result) = named_result(outcome, &termination) {
            return Ok(Ending::Result(result));
        }
        if contradicts(&termination, outcome) {
            return Err(PgnError::TerminationMismatch {
                line,
                termination,
                token: token.to_owned(),
            });
        }
        // A reason in words we do not know ("normal"): keep it as it is.
        self.keep_termination(termination);
        Ok(Ending::Outcome(outcome))
    }

    /// Keeps a `Termination` the ending does not take up among the other tags, for export.
    fn keep_termination(&mut self, termination: String) {
        self.tags
            .other
            .push(("Termination".to_owned(), termination));
    }
}

/// Checks the `ending` a record gives, with the result `token` on `line`, against its final
/// position, the last of `history`.
fn check_ending(
    history: &History,
    ending: Ending,
    rule: RepetitionRule,
    line: usize,
    token: &str,
) -> Result<(), PgnError> {
    match board_conflict(history, ending, rule) {
        None => Ok(()),
        Some(BoardConflict::Unfounded(claimed)) => {
            Err(PgnError::UnfoundedTermination { line, claimed })
        }
        Some(BoardConflict::Decided { winner, reason }) => {
            let claimed = match ending {
                Ending::Result(result) => format!("{token} {result}"),
                Ending::Unfinished | Ending::Outcome(_) => token.to_owned(),
            };
            Err(PgnError::PositionDecided {
                line,
                winner,
                reason,
                claimed,
            })
        }
    }
}

/// Whether `reason` is written `text`.
fn is(reason: &impl fmt::Display, text: &str) -> bool {
    reason.to_string().eq_ignore_ascii_case(text)
}

/// A tag value, unless it is PGN's "unknown".
fn known(value: String) -> Option<String> {
    Some(value).filter(|value| value != "?" && !value.is_empty())
}

/// A lexical unit of PGN.
enum Token<'a> {
    /// `[Name "value"]`, the value unescaped.
    Tag(&'a str, String),
    /// A run of movetext characters: a move, a number, a NAG or a result.
    Word(&'a str),
}

/// Splits PGN into tokens, skipping comments and variations and counting lines.
struct Lexer<'a> {
    text: &'a str,
    pos: usize,
    /// The line `pos` is on, from 1.
    line: usize,
}

impl<'a> Lexer<'a> {
    const fn new(text: &'a str) -> Self {
        Self {
            text,
            pos: 0,
            line: 1,
        }
    }

    fn peek(&self) -> Option<char> {
        self.text[self.pos..].chars().next()
    }

    fn bump(&mut self) -> Option<char> {
        let c = self.peek()?;
        self.pos += c.len_utf8();
        if c == '\n' {
            self.line += 1;
        }
        Some(c)
    }

    /// Skips up to and including `end`; `false` if the text ends first.
    fn skip_past(&mut self, end: char) -> bool {
        while let Some(c) = self.bump() {
            if c == end {
                return true;
            }
        }
        false
    }

    fn next_token(&mut self) -> Result<Option<(usize, Token<'a>)>, PgnError> {
        let mut depth = 0usize;
        let mut variation_line = 0;
        loop {
            let line = self.line;
            let at_line_start = self.pos == 0 || self.text[..self.pos].ends_with('\n');
            let Some(c) = self.peek() else {
                return match depth {
                    0 => Ok(None),
                    _ => Err(PgnError::Unclosed {
                        line: variation_line,
                        open: '(',
                    }),
                };
            };
            match c {
                c if c.is_whitespace() => {
                    self.bump();
                }
                '{' => {
                    if !self.skip_past('}') {
                        return Err(PgnError::Unclosed { line, open: '{' });
                    }
                }
                ';' => {
                    self.skip_past('\n');
                }
                '%' if at_line_start => {
                    self.skip_past('\n');
                }
                '(' => {
                    self.bump();
                    if depth == 0 {
                        variation_line = line;
                    }
                    depth += 1;
                }
                ')' => {
                    self.bump();
                    depth = depth
                        .checked_sub(1)
                        .ok_or(PgnError::UnmatchedParen { line })?;
                }
                '[' if depth == 0 => return self.tag().map(|tag| Some((line, tag))),
                _ => {
                    let word = self.word();
                    if depth == 0 {
                        return Ok(Some((line, Token::Word(word))));
                    }
                }
            }
        }
    }

    /// A run of characters up to whitespace or a delimiter (at least one character).
    fn word(&mut self) -> &'a str {
        let start = self.pos;
        self.bump();
        while let Some(c) = self.peek() {
            if c.is_whitespace() || "{};()[]".contains(c) {
                break;
            }
            self.bump();
        }
        &self.text[start..self.pos]
    }

    /// `[Name "value"]`, on one line.
    fn tag(&mut self) -> Result<Token<'a>, PgnError> {
        let line = self.line;
        let malformed = PgnError::MalformedTag { line };
        self.bump();
        self.skip_blanks();
        let start = self.pos;
        while self.peek().is_some_and(is_tag_name_char) {
            self.bump();
        }
        let name = &self.text[start..self.pos];
        self.skip_blanks();
        if name.is_empty() || self.bump() != Some('"') {
            return Err(malformed);
        }
        let mut value = String::new();
        loop {
            match self.bump() {
                Some('"') => break,
                Some('\\') => match self.bump() {
                    Some(c @ ('"' | '\\')) => value.push(c),
                    _ => return Err(malformed),
                },
                Some('\n') | None => return Err(malformed),
                Some(c) => value.push(in_tag_value(c)),
            }
        }
        self.skip_blanks();
        if self.bump() != Some(']') {
            return Err(malformed);
        }
        Ok(Token::Tag(name, value))
    }

    fn skip_blanks(&mut self) {
        while self.peek().is_some_and(|c| c == ' ' || c == '\t') {
            self.bump();
        }
    }
}

#[cfg(test)]
mod tests;
