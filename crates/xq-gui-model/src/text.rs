//! Words and numbers for the status line.

use std::time::Duration;

use xq_rules::{ByColor, Color, Outcome};
use xq_session::{GameResult, WinReason};

/// A side's name as the UI writes it.
#[must_use]
pub(crate) const fn side_name(color: Color) -> &'static str {
    match color {
        Color::Red => "Red",
        Color::Black => "Black",
    }
}

/// A result in words: "Red wins by checkmate", "Draw by agreement". A loss for a forbidden
/// repetition names the side that broke the rule: "Perpetual chase: Red loses".
#[must_use]
pub(crate) fn result_text(result: GameResult) -> String {
    match result {
        GameResult::Win {
            winner,
            reason: reason @ (WinReason::PerpetualCheck | WinReason::PerpetualChase),
        } => format!(
            "{}: {} loses",
            capitalized(&reason.to_string()),
            side_name(!winner)
        ),
        GameResult::Win { winner, reason } => format!("{} wins by {reason}", side_name(winner)),
        GameResult::Draw { reason } => format!("Draw by {reason}"),
    }
}

/// Whose turn it is, as the player of `seats` sees it: "Your turn (Red)" or "Opponent's turn
/// (Black)" to the player of one side, "Red's turn" at one screen or to a spectator.
#[must_use]
pub(crate) fn turn_text(side: Color, seats: ByColor<bool>) -> String {
    let name = side_name(side);
    match (seats[side], seats[!side]) {
        (true, false) => format!("Your turn ({name})"),
        (false, true) => format!("Opponent's turn ({name})"),
        _ => format!("{name}'s turn"),
    }
}

/// `text` with its first letter in upper case, to start a sentence.
#[must_use]
pub(crate) fn capitalized(text: &str) -> String {
    let mut chars = text.chars();
    chars.next().map_or_else(String::new, |first| {
        first.to_uppercase().chain(chars).collect()
    })
}

/// A result whose reason is unknown (a PGN without a termination tag we read).
#[must_use]
pub(crate) fn outcome_text(outcome: Outcome) -> String {
    match outcome {
        Outcome::Decisive { winner } => format!("{} wins", side_name(winner)),
        Outcome::Draw => "Draw".to_owned(),
    }
}

/// A clock reading: `m:ss`, or `h:mm:ss` from an hour up. Tenths show in the last ten seconds,
/// when they matter.
#[must_use]
pub(crate) fn clock_text(left: Duration) -> String {
    let secs = left.as_secs();
    let (h, m, s) = (secs / 3600, secs / 60 % 60, secs % 60);
    if h > 0 {
        format!("{h}:{m:02}:{s:02}")
    } else if secs < 10 {
        format!("{m}:{s:02}.{}", left.subsec_millis() / 100)
    } else {
        format!("{m}:{s:02}")
    }
}

#[cfg(test)]
mod tests {
    use xq_session::DrawReason;

    use super::*;

    #[test]
    fn results_read_as_sentences() {
        let win = GameResult::Win {
            winner: Color::Black,
            reason: WinReason::Checkmate,
        };
        assert_eq!(result_text(win), "Black wins by checkmate");
        let chase = GameResult::Win {
            winner: Color::Black,
            reason: WinReason::PerpetualChase,
        };
        assert_eq!(result_text(chase), "Perpetual chase: Red loses");
        let check = GameResult::Win {
            winner: Color::Red,
            reason: WinReason::PerpetualCheck,
        };
        assert_eq!(result_text(check), "Perpetual check: Black loses");
        let draw = GameResult::Draw {
            reason: DrawReason::Agreement,
        };
        assert_eq!(result_text(draw), "Draw by agreement");
        assert_eq!(outcome_text(Outcome::Draw), "Draw");
    }

    #[test]
    fn the_turn_reads_from_the_players_side() {
        let red = ByColor {
            red: true,
            black: false,
        };
        assert_eq!(turn_text(Color::Red, red), "Your turn (Red)");
        assert_eq!(turn_text(Color::Black, red), "Opponent's turn (Black)");
        let both = ByColor {
            red: true,
            black: true,
        };
        assert_eq!(turn_text(Color::Black, both), "Black's turn");
        assert_eq!(turn_text(Color::Red, ByColor::default()), "Red's turn");
    }

    #[test]
    fn a_sentence_starts_with_a_capital() {
        assert_eq!(capitalized("opponent connected"), "Opponent connected");
        assert_eq!(capitalized(""), "");
    }

    #[test]
    fn clocks_read_like_clocks() {
        assert_eq!(clock_text(Duration::from_secs(300)), "5:00");
        assert_eq!(clock_text(Duration::from_secs(3_725)), "1:02:05");
        assert_eq!(clock_text(Duration::from_millis(9_450)), "0:09.4");
        assert_eq!(clock_text(Duration::ZERO), "0:00.0");
    }
}
