//! What a run of games says about two engines' strength: the score and the Elo difference, with
//! its 95% confidence interval.
//!
//! The interval is the usual normal approximation on the per-game score (1, ½ or 0): the mean
//! plus or minus 1.96 standard errors, each bound turned into Elo with the logistic curve.
//! A bound at or past 0% or 100% has no finite Elo and is shown as infinite.

use std::fmt;

/// The two-sided 95% quantile of the normal distribution.
const Z95: f64 = 1.959_964;

/// Wins, draws and losses, from the first engine's side.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Tally {
    /// Games the first engine won.
    pub(crate) wins: u32,
    /// Drawn games.
    pub(crate) draws: u32,
    /// Games the first engine lost.
    pub(crate) losses: u32,
}

impl Tally {
    /// The games counted.
    pub(crate) fn games(&self) -> u32 {
        self.wins + self.draws + self.losses
    }

    /// The first engine's mean score per game, 0 to 1; `None` before any game.
    pub(crate) fn score(&self) -> Option<f64> {
        let games = self.games();
        (games > 0).then(|| (f64::from(self.wins) + f64::from(self.draws) / 2.0) / f64::from(games))
    }

    /// The Elo difference (first engine minus second) and its 95% interval, `None` before any
    /// game.
    pub(crate) fn elo(&self) -> Option<Estimate> {
        let score = self.score()?;
        let games = f64::from(self.games());
        let variance = (f64::from(self.wins) * (1.0 - score).powi(2)
            + f64::from(self.draws) * (0.5 - score).powi(2)
            + f64::from(self.losses) * score.powi(2))
            / games;
        let margin = Z95 * (variance / games).sqrt();
        Some(Estimate {
            elo: elo_of(score),
            low: elo_of(score - margin),
            high: elo_of(score + margin),
        })
    }
}

/// An Elo difference with its interval; infinities where a score reaches 0 or 1.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Estimate {
    /// The point estimate.
    pub(crate) elo: f64,
    /// The interval's lower bound.
    pub(crate) low: f64,
    /// The interval's upper bound.
    pub(crate) high: f64,
}

/// The Elo difference that gives an expected score of `score`.
fn elo_of(score: f64) -> f64 {
    if score <= 0.0 {
        f64::NEG_INFINITY
    } else if score >= 1.0 {
        f64::INFINITY
    } else {
        -400.0 * (1.0 / score - 1.0).log10()
    }
}

impl fmt::Display for Estimate {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let show = |elo: f64| {
            if elo.is_finite() {
                format!("{elo:+.0}")
            } else if elo > 0.0 {
                "+inf".to_owned()
            } else {
                "-inf".to_owned()
            }
        };
        write!(
            f,
            "{} (95%: {} to {})",
            show(self.elo),
            show(self.low),
            show(self.high)
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tally(wins: u32, draws: u32, losses: u32) -> Tally {
        Tally {
            wins,
            draws,
            losses,
        }
    }

    #[test]
    fn an_even_score_is_zero_elo_with_a_symmetric_interval() {
        let estimate = tally(10, 0, 10).elo().expect("test value");
        assert!(estimate.elo.abs() < 1e-9);
        assert!((estimate.low + estimate.high).abs() < 1e-9);
        // 20 games of ±½: the standard error is 0.5/√20, so the bounds are at 28.1% and 71.9%.
        assert!((estimate.high - 163.3).abs() < 0.1, "{estimate}");
    }

    #[test]
    fn draws_narrow_the_interval() {
        let decisive = tally(10, 0, 10).elo().expect("test value");
        let drawn = tally(5, 10, 5).elo().expect("test value");
        assert!(drawn.high < decisive.high);
        assert!(drawn.elo.abs() < 1e-9);
    }

    #[test]
    fn a_known_score_gives_the_known_difference() {
        // 75% is 190.8 Elo; 3 wins and a loss.
        let estimate = tally(3, 0, 1).elo().expect("test value");
        assert!((estimate.elo - 190.85).abs() < 0.01, "{estimate}");
    }

    #[test]
    fn a_clean_sweep_is_infinite_and_shown_so() {
        let estimate = tally(4, 0, 0).elo().expect("test value");
        assert_eq!(estimate.elo, f64::INFINITY);
        assert_eq!(estimate.to_string(), "+inf (95%: +inf to +inf)");
        let lost = tally(0, 0, 3).elo().expect("test value");
        assert!(lost.to_string().starts_with("-inf"));
    }

    #[test]
    fn no_games_no_estimate() {
        assert_eq!(Tally::default().score(), None);
        assert_eq!(Tally::default().elo(), None);
    }
}
