//! Glicko-2, exactly as Glickman's "Example of the Glicko-2 system"
//! describes one rating period, with Parlor's settings: every account
//! starts at 1500 / 350 / 0.06, tau is 0.5, the volatility is found by the
//! Illinois iteration to within 0.000001, and after an update the rating
//! deviation is kept within [45, 350].
//!
//! Everything here is plain `f64` arithmetic in a fixed order, so the same
//! inputs give bit-identical outputs on every machine: a ledger folds to
//! the same ratings wherever it is folded.

use serde::{Deserialize, Serialize};

/// The factor between the Glicko and the Glicko-2 scale (Glickman's
/// 173.7178, which is 400 / ln 10 rounded as the paper rounds it).
pub const SCALE: f64 = 173.7178;

/// The rating every scale is centred on.
const CENTRE: f64 = 1500.0;

/// The most steps the volatility iteration may take. It converges in a
/// handful for any real input; the cap only guards against a non-finite
/// value looping for ever.
const MAX_ITERATIONS: u32 = 10_000;

/// A player's rating on the Glicko scale.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Rating {
    /// The rating (1500 for a newcomer).
    pub rating: f64,
    /// The rating deviation, how unsure the rating is.
    pub rd: f64,
    /// The volatility, how erratic the player's results are.
    pub vol: f64,
}

/// One game of a rating period, seen from the player being rated: whom
/// it was against and how it ended.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct GameResult {
    /// The opponent's rating before the period.
    pub opponent: Rating,
    /// 1 for a win, 0.5 for a draw, 0 for a loss.
    pub score: f64,
}

/// The system's settings.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Glicko2 {
    /// Where every account starts.
    pub initial: Rating,
    /// The system constant: how much the volatility may change in a period.
    pub tau: f64,
    /// When the volatility iteration stops: both ends within this.
    pub epsilon: f64,
    /// The least rating deviation after an update: a rating stays open to
    /// change however many games were played.
    pub rd_min: f64,
    /// The most rating deviation: never less sure than a newcomer.
    pub rd_max: f64,
}

impl Glicko2 {
    /// Parlor's settings (documented in the protocol's rating section).
    pub const PARLOR: Glicko2 = Glicko2 {
        initial: Rating {
            rating: 1500.0,
            rd: 350.0,
            vol: 0.06,
        },
        tau: 0.5,
        epsilon: 0.000_001,
        rd_min: 45.0,
        rd_max: 350.0,
    };

    /// The player's rating after one rating period holding `results` (all
    /// against the opponents' ratings before the period). With no results
    /// only the deviation grows, as step 6 does for a player who did not
    /// compete.
    pub fn rate(&self, player: Rating, results: &[GameResult]) -> Rating {
        let mu = (player.rating - CENTRE) / SCALE;
        let phi = player.rd / SCALE;
        let sigma = player.vol;
        if results.is_empty() {
            let phi_star = (phi * phi + sigma * sigma).sqrt();
            return Rating {
                rating: player.rating,
                rd: self.clamp_rd(phi_star * SCALE),
                vol: sigma,
            };
        }
        // Steps 3 and 4: the estimated variance and the improvement.
        let mut inv_v = 0.0;
        let mut sum = 0.0;
        for r in results {
            let mu_j = (r.opponent.rating - CENTRE) / SCALE;
            let g_j = g(r.opponent.rd / SCALE);
            let e_j = expected(mu, mu_j, g_j);
            inv_v += g_j * g_j * e_j * (1.0 - e_j);
            sum += g_j * (r.score - e_j);
        }
        let v = 1.0 / inv_v;
        let delta = v * sum;
        // Step 5: the new volatility.
        let sigma_new = self.volatility(phi, sigma, v, delta);
        // Steps 6 and 7: the new deviation and rating.
        let phi_star = (phi * phi + sigma_new * sigma_new).sqrt();
        let phi_new = 1.0 / (1.0 / (phi_star * phi_star) + 1.0 / v).sqrt();
        let mu_new = mu + phi_new * phi_new * sum;
        // Step 8: back to the Glicko scale, the deviation then bounded.
        Rating {
            rating: SCALE * mu_new + CENTRE,
            rd: self.clamp_rd(SCALE * phi_new),
            vol: sigma_new,
        }
    }

    /// The rating after `days` whole days without a rated game: the
    /// deviation grows once a day as step 6 does for a player who did not
    /// compete (phi* = sqrt(phi^2 + sigma^2)), never past the initial
    /// deviation. `days` applications add `days * sigma^2` to phi^2, which
    /// is computed at once, so a long absence costs no more than a short one.
    pub fn idle(&self, player: Rating, days: u64) -> Rating {
        if days == 0 {
            return player;
        }
        let phi = player.rd / SCALE;
        let grown = (phi * phi + days as f64 * player.vol * player.vol).sqrt();
        Rating {
            rd: (grown * SCALE).min(self.initial.rd),
            ..player
        }
    }

    fn clamp_rd(&self, rd: f64) -> f64 {
        rd.clamp(self.rd_min, self.rd_max)
    }

    /// Step 5: the volatility by the Illinois iteration (the regula falsi
    /// variant in Glickman's paper), on x = ln(sigma^2).
    fn volatility(&self, phi: f64, sigma: f64, v: f64, delta: f64) -> f64 {
        let tau = self.tau;
        let a = (sigma * sigma).ln();
        let phi2 = phi * phi;
        let f = |x: f64| {
            let ex = x.exp();
            let d = phi2 + v + ex;
            ex * (delta * delta - phi2 - v - ex) / (2.0 * d * d) - (x - a) / (tau * tau)
        };
        let mut big_a = a;
        let mut big_b = if delta * delta > phi2 + v {
            (delta * delta - phi2 - v).ln()
        } else {
            let mut k = 1.0;
            let mut steps = 0;
            while f(a - k * tau) < 0.0 && steps < MAX_ITERATIONS {
                k += 1.0;
                steps += 1;
            }
            a - k * tau
        };
        let mut f_a = f(big_a);
        let mut f_b = f(big_b);
        let mut steps = 0;
        while (big_b - big_a).abs() > self.epsilon && steps < MAX_ITERATIONS {
            let big_c = big_a + (big_a - big_b) * f_a / (f_b - f_a);
            let f_c = f(big_c);
            if f_c * f_b <= 0.0 {
                big_a = big_b;
                f_a = f_b;
            } else {
                f_a /= 2.0;
            }
            big_b = big_c;
            f_b = f_c;
            steps += 1;
        }
        (big_a / 2.0).exp()
    }
}

/// Glickman's g(phi): how much an opponent's uncertainty discounts a game.
fn g(phi: f64) -> f64 {
    1.0 / (1.0 + 3.0 * phi * phi / (std::f64::consts::PI * std::f64::consts::PI)).sqrt()
}

/// The expected score against an opponent at `mu_j` with discount `g_j`.
fn expected(mu: f64, mu_j: f64, g_j: f64) -> f64 {
    1.0 / (1.0 + (-g_j * (mu - mu_j)).exp())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn r(rating: f64, rd: f64) -> Rating {
        Rating {
            rating,
            rd,
            vol: 0.06,
        }
    }

    #[test]
    fn g_and_e_match_the_papers_intermediate_values() {
        // The paper's step 3 table: g(phi_j) 0.9955, 0.9531, 0.7242 and
        // E 0.639, 0.432, 0.303 for the example's three opponents.
        let mu = 0.0;
        for (opp, g_want, e_want) in [
            (r(1400.0, 30.0), 0.9955, 0.639),
            (r(1550.0, 100.0), 0.9531, 0.432),
            (r(1700.0, 300.0), 0.7242, 0.303),
        ] {
            let g_j = g(opp.rd / SCALE);
            let e = expected(mu, (opp.rating - CENTRE) / SCALE, g_j);
            assert!((g_j - g_want).abs() < 5e-5, "g {g_j} vs {g_want}");
            assert!((e - e_want).abs() < 5e-4, "E {e} vs {e_want}");
        }
    }

    #[test]
    fn no_games_only_widens_the_deviation() {
        let p = r(1600.0, 100.0);
        let after = Glicko2::PARLOR.rate(p, &[]);
        assert_eq!(after.rating, p.rating);
        let phi = 100.0 / SCALE;
        let want = (phi * phi + 0.06 * 0.06).sqrt() * SCALE;
        assert!((after.rd - want).abs() < 1e-9);
        assert!(after.rd > p.rd);
    }
}
