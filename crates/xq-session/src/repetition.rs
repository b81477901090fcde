//! Threefold repetition and the Asian rules on perpetual check and perpetual chase.
//!
//! The rule is stated on [`RepetitionRule`]; the judge is [`adjudicate`], run after every move
//! by the match and on a record's final position by the PGN reader.

use std::cmp::Ordering;
use std::fmt;
use std::str::FromStr;

use xq_rules::{ByColor, Color, Move, Position, Role, Square, SquareSet};

use crate::history::{History, Played};
use crate::{DrawReason, GameResult, WinReason};

/// Which rule judges a threefold repetition. Fixed with the match's configuration.
///
/// A game is judged when a position (placement and side to move: the Zobrist hash, confirmed
/// on the board) occurs for the third time. Only positions since the last capture can recur,
/// since a capture cannot be undone by play. The *span* judged is the moves made after the
/// first of the three occurrences; nothing before it counts, not even the move that led into
/// it. Under [`RepetitionRule::Asian`], the rules of the Asian Xiangqi Federation that the
/// World Xiangqi Federation plays by:
///
/// 1. **Perpetual check.** A side whose every move in the span gives check checks
///    perpetually.
/// 2. **One check, one chase.** A side that gave check with some but not all of its moves in
///    the span is not chasing; the other side is still judged.
/// 3. **A chasing move** makes a new threat: an enemy piece enters the mover's attack set
///    ([`Position::attack_set`](xq_rules::Position::attack_set): what a piece other than the general and the soldiers can
///    take, a general or a soldier at home never, a chariot always from a horse or a cannon,
///    anything stronger always from an advisor or an elephant, otherwise only when
///    unprotected and unable to take back in kind). Threats opened by a general's or a
///    soldier's move count like any other.
/// 4. **Perpetual chase.** A side chases perpetually when one and the same enemy piece, in
///    its identity through its own moves, is chased by every one of the side's moves in the
///    span, by one piece or by several in turn. Chasing different pieces in turn is allowed.
/// 5. **Outcome.** Faults rank: perpetual check, then chasing a chariot held on the leg of an
///    enemy horse aimed at its general (articles 19 and 39–41 of the rule book), then any
///    other perpetual chase. The single side at the highest fault present loses
///    ([`WinReason::PerpetualCheck`] or [`WinReason::PerpetualChase`]); when both sides, or
///    neither, commit it, the game is drawn by repetition.
///
/// [`RepetitionRule::ChecksOnly`] keeps point 1 alone: a side that checked throughout while
/// the other did not loses; every other repetition is drawn.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub enum RepetitionRule {
    /// The Asian (AXF / WXF) rules: perpetual check and perpetual chase lose, as above.
    #[default]
    Asian,
    /// Perpetual check loses; every other repetition, chases included, is a draw.
    ChecksOnly,
}

/// A text that names no [`RepetitionRule`].
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("unknown repetition rule {0:?} (asian or checks-only)")]
pub struct ParseRepetitionRuleError(pub String);

impl RepetitionRule {
    /// Every rule, in declaration order.
    pub const ALL: [Self; 2] = [Self::Asian, Self::ChecksOnly];

    /// The rule's name, as `FromStr` reads it: `asian`, `checks-only`.
    #[must_use]
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::Asian => "asian",
            Self::ChecksOnly => "checks-only",
        }
    }
}

impl fmt::Display for RepetitionRule {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl FromStr for RepetitionRule {
    type Err = ParseRepetitionRuleError;

    fn from_str(text: &str) -> Result<Self, ParseRepetitionRuleError> {
        Self::ALL
            .into_iter()
            .find(|rule| rule.as_str().eq_ignore_ascii_case(text))
            .ok_or_else(|| ParseRepetitionRuleError(text.to_owned()))
    }
}

/// Why the positions and moves given to [`RepetitionRule::judge_cycle`] do not form a cycle.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum CycleError {
    /// The slices do not hold one more position than moves, or hold no move at all.
    #[error("a cycle needs at least one move and one position more than moves")]
    Length,
    /// The last position does not repeat the first (placement and side to move).
    #[error("the last position does not repeat the first")]
    NotRepeated,
    /// A move is illegal where it stands, or does not lead to the next position.
    #[error("move {ply} ({mv}) does not lead from its position to the next")]
    Broken {
        /// Its index in the moves.
        ply: usize,
        /// The move.
        mv: Move,
    },
    /// A move captures: no cycle can contain one, since a capture cannot be undone.
    #[error("move {ply} ({mv}) captures")]
    Capture {
        /// Its index in the moves.
        ply: usize,
        /// The move.
        mv: Move,
    },
}

impl RepetitionRule {
    /// The ruling on one cycle of play: `positions[i]` and `positions[i + 1]` stand before
    /// and after `moves[i]`, and the last position repeats the first. The same judgement the
    /// match passes on a threefold repetition, applied to the moves since the first of the
    /// repeated positions; an engine calls it on a position of its search that repeats one of
    /// its path or of the game before it, to avoid a forbidden repetition and to claim one
    /// against it.
    ///
    /// # Errors
    ///
    /// A [`CycleError`] when the slices are not a cycle: wrong lengths, an unrepeated end,
    /// a move that is illegal or leads elsewhere, or a capture.
    ///
    /// # Examples
    ///
    /// ```
    /// use xq_rules::{Color, Position, fen::Fen, iccs::Iccs};
    /// use xq_session::{GameResult, RepetitionRule, WinReason};
    ///
    /// // Red's chariot checks from d8 and d9 over and over; Black's general steps aside.
    /// let mut pos = "4k4/9/3R5/9/9/9/9/9/9/3K5 w - - 0 1".parse::<Fen>()?.into_position()?;
    /// let (mut positions, mut moves) = (vec![pos.clone()], Vec::new());
    /// for text in ["d7d9", "e9e8", "d9d8", "e8e9", "d8d9"] {
    ///     let mv = text.parse::<Iccs>()?.to_move(&pos)?;
    ///     pos.play_unchecked(mv);
    ///     positions.push(pos.clone());
    ///     moves.push(mv);
    /// }
    /// // The cycle starts after the first check, on Black's move.
    /// let result = RepetitionRule::Asian.judge_cycle(&positions[1..], &moves[1..])?;
    /// assert_eq!(
    ///     result,
    ///     GameResult::Win { winner: Color::Black, reason: WinReason::PerpetualCheck }
    /// );
    /// # Ok::<_, Box<dyn std::error::Error>>(())
    /// ```
    pub fn judge_cycle(
        self,
        positions: &[Position],
        moves: &[Move],
    ) -> Result<GameResult, CycleError> {
        let played = cycle_played(positions, moves)?;
        Ok(judge(
            &Span {
                positions,
                played: &played,
            },
            self,
        ))
    }
}

/// The moves of a cycle as played, checked to form one.
fn cycle_played(positions: &[Position], moves: &[Move]) -> Result<Vec<Played>, CycleError> {
    let (Some(first), Some(last)) = (positions.first(), positions.last()) else {
        return Err(CycleError::Length);
    };
    if moves.is_empty() || positions.len() != moves.len() + 1 {
        return Err(CycleError::Length);
    }
    if first.zobrist_hash() != last.zobrist_hash() || first.board() != last.board() {
        return Err(CycleError::NotRepeated);
    }
    let mut played = Vec::with_capacity(moves.len());
    for (ply, (&mv, around)) in moves.iter().zip(positions.windows(2)).enumerate() {
        let (before, after) = (&around[0], &around[1]);
        if !before.is_legal(mv) {
            return Err(CycleError::Broken { ply, mv });
        }
        let mut next = before.clone();
        if next.play_unchecked(mv).is_some() {
            return Err(CycleError::Capture { ply, mv });
        }
        if next.zobrist_hash() != after.zobrist_hash() || next.board() != after.board() {
            return Err(CycleError::Broken { ply, mv });
        }
        played.push(Played {
            by: before.turn(),
            mv,
            captured: None,
            gives_check: after.is_check(),
        });
    }
    Ok(played)
}

/// How gravely a side forced a repetition, least first: the single side with the greatest
/// fault loses.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Fault {
    /// No forbidden sequence.
    None,
    /// A perpetual chase.
    Chase,
    /// A perpetual chase of a chariot held on a horse's leg.
    PinnedChariotChase,
    /// A perpetual check.
    Check,
}

/// The result forced by repetition in the current position of `history`, if any.
pub(crate) fn adjudicate(history: &History, rule: RepetitionRule) -> Option<GameResult> {
    let first = third_occurrence(history)?;
    let span = Span {
        positions: &history.positions()[first..],
        played: &history.played()[first..],
    };
    Some(judge(&span, rule))
}

/// The ply of the first of three occurrences of the current position, if it is the third.
fn third_occurrence(history: &History) -> Option<usize> {
    let (positions, hashes) = (history.positions(), history.hashes());
    let now = positions.len() - 1;
    let current = history.current();
    let hash = current.zobrist_hash();
    // Plies since the last capture bound the look-back; a set-up start position may claim more
    // than the match has seen. The same side is to move every second ply.
    let oldest = now.saturating_sub(current.halfmoves() as usize);
    (oldest..=now)
        .rev()
        .step_by(2)
        .filter(|&ply| hashes[ply] == hash && positions[ply].board() == current.board())
        .nth(2)
}

/// The moves of a repetition and the positions around them: `positions[i]` and
/// `positions[i + 1]` are the positions before and after `played[i]`, and the last position
/// repeats the first.
struct Span<'a> {
    positions: &'a [Position],
    played: &'a [Played],
}

/// The ruling on a span under `rule`.
fn judge(span: &Span<'_>, rule: RepetitionRule) -> GameResult {
    ruling(ByColor::new_with(|side| fault(span, side, rule)))
}

/// The ruling when each side committed `faults`: the single side with the gravest fault
/// loses; equal faults (none included) draw.
fn ruling(faults: ByColor<Fault>) -> GameResult {
    let (loser, fault) = match faults.red.cmp(&faults.black) {
        Ordering::Greater => (Color::Red, faults.red),
        Ordering::Less => (Color::Black, faults.black),
        Ordering::Equal => (Color::Red, Fault::None),
    };
    match fault.reason() {
        Some(reason) => GameResult::Win {
            winner: !loser,
            reason,
        },
        None => GameResult::Draw {
            reason: DrawReason::Repetition,
        },
    }
}

impl Fault {
    /// The reason a side loses for this fault; `None` for no fault.
    const fn reason(self) -> Option<WinReason> {
        match self {
            Self::None => None,
            Self::Chase | Self::PinnedChariotChase => Some(WinReason::PerpetualChase),
            Self::Check => Some(WinReason::PerpetualCheck),
        }
    }
}

/// The gravest fault of `side` in the span.
fn fault(span: &Span<'_>, side: Color, rule: RepetitionRule) -> Fault {
    let (mut moves, mut checks) = (0, 0);
    for played in span.played.iter().filter(|played| played.by == side) {
        moves += 1;
        checks += usize::from(played.gives_check);
    }
    if moves == 0 {
        return Fault::None;
    }
    if checks == moves {
        return Fault::Check;
    }
    if checks > 0 || rule == RepetitionRule::ChecksOnly {
        return Fault::None;
    }
    let (chased, pinned_chariots) = chased_throughout(span, side);
    if !pinned_chariots.is_empty() {
        Fault::PinnedChariotChase
    } else if !chased.is_empty() {
        Fault::Chase
    } else {
        Fault::None
    }
}

/// The enemy pieces that every move of `side` in the span chased, and among them the
/// chariots that stood on the leg of one of `side`'s horses aimed at their general each time.
/// Pieces are named by the square they stood on at the start of the span, so that a piece
/// keeps its identity as it moves.
fn chased_throughout(span: &Span<'_>, side: Color) -> (SquareSet, SquareSet) {
    let mut identities = Identities::new();
    let mut chased = all_squares();
    let mut pinned_chariots = chased;
    for (played, around) in span.played.iter().zip(span.positions.windows(2)) {
        if played.by == side {
            let (before, after) = (&around[0], &around[1]);
            let threats = threats(before, after, played.mv, side);
            let held = after.horse_leg_pins(!side) & chariots(after, !side);
            chased &= identities.of(threats);
            pinned_chariots &= identities.of(threats & held);
            if chased.is_empty() {
                break;
            }
        }
        identities.follow(played);
    }
    (chased, pinned_chariots)
}

/// The enemy pieces that `mv`, played by `side` from `before` to `after`, chases: those that
/// enter `side`'s attack set with it, whether a piece now attacks them that could not
/// legally take them before (the moved piece from its new point, or one it uncovered or
/// freed), or an attack that stood before now counts because the move took away their
/// protection (blocked or uncovered a protector's line, pinned a protector).
///
/// The one exception: a move that escapes a threat to one of the mover's own pieces, or
/// answers a check, does not chase by taking protection away, nor by making legal a capture
/// that the check forbade: only by a new attack. The rule book's diagram 61 rules
/// so: Black's horse blocks, move after move, the cannon line that attacks Black's chariot,
/// which also cuts that cannon's protection of a piece the chariot attacks, and Black is not
/// chasing; while in its appendix, Red's soldier, threatened by nothing, takes away the
/// protection of a horse that Red's chariot attacks, move after move, and Red is chasing.
fn threats(before: &Position, after: &Position, mv: Move, side: Color) -> SquareSet {
    let entered = after.attack_set(side) - before.attack_set(side);
    if entered.is_empty() {
        return entered;
    }
    // Answering a check escapes too; the captures that only the check forbade stood before.
    let in_check = before.is_check();
    let escapes =
        in_check || !(moved(before.attack_set(!side), mv) - after.attack_set(!side)).is_empty();
    if !escapes {
        return entered;
    }
    entered
        .iter()
        .filter(|&victim| {
            let stood = if in_check {
                before.attackers(victim, side)
            } else {
                before.capturers(victim, side)
            };
            !(after.chasers(victim, side) - moved(stood, mv)).is_empty()
        })
        .collect()
}

/// `squares` of a position with the piece on `mv.from` moved along with `mv`.
fn moved(mut squares: SquareSet, mv: Move) -> SquareSet {
    if squares.contains(mv.from) {
        squares.remove(mv.from);
        squares.insert(mv.to);
    }
    squares
}

/// Every square: the start of an intersection.
fn all_squares() -> SquareSet {
    Square::all().collect()
}

/// The squares of `color`'s chariots.
fn chariots(pos: &Position, color: Color) -> SquareSet {
    pos.board()
        .pieces()
        .filter(|(_, piece)| piece.color == color && piece.role == Role::Chariot)
        .map(|(square, _)| square)
        .collect()
}

/// Which piece stands where, named by the square each stood on when the span began. A span
/// has no capture, so every piece is there from its start to its end.
struct Identities {
    /// `origin[square]` is the starting square of the piece now on `square`.
    origin: [Square; Square::COUNT],
}

impl Identities {
    fn new() -> Self {
        let mut origin = [Square::A0; Square::COUNT];
        for square in Square::all() {
            origin[square.index() as usize] = square;
        }
        Self { origin }
    }

    /// The identities of the pieces now on `squares`.
    fn of(&self, squares: SquareSet) -> SquareSet {
        squares
            .iter()
            .map(|square| self.origin[square.index() as usize])
            .collect()
    }

    /// Moves the identity of the piece that `played` moved.
    fn follow(&mut self, played: &Played) {
        self.origin[played.mv.to.index() as usize] = self.origin[played.mv.from.index() as usize];
    }
}

#[cfg(test)]
mod tests;
