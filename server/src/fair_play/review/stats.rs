//! The review's test: is an account's engine agreement improbable for a
//! human of its pool?
//!
//! For an account with `n` choices of which `k` agreed, the population
//! rate `p0` is the pooled rate of every *other* human account of the
//! pool not marked `engine` (their agreed over their choices), held
//! within [`P0_FLOOR`]..=[`P0_CEILING`]. The account is listed when the
//! one-sided binomial tail `P(X >= k | n, p0)` is below [`ALPHA`] and
//! `n` is at least the minimum asked for (by default
//! [`DEFAULT_MIN_CHOICES`]). The tail is summed exactly, term by term, in
//! log space (no approximation, no underflow for long records).
//!
//! A listing is a signal for a person to look at the games, never a
//! verdict: a strong human can agree with the engine often, and some
//! games (Nimrod) are solved.

use super::store::AccountCounts;
use crate::accounts::Mark;

/// Choices an account needs by default before it is tested: a handful of
/// games says little about a person (a lucky evening), while 30 are
/// enough for a perfect record to stand out against a population near
/// [`P0_FLOOR`] (0.5^30 is about 1e-9); against a stronger population the
/// test itself asks for more (at 0.8, some 42 agreeing choices).
pub const DEFAULT_MIN_CHOICES: u64 = 30;

/// The test's significance: an account is listed when a human of the
/// population would agree at least as often by chance with a probability
/// below this. Small, because every account of a pool is tested (with
/// thousands of accounts, a looser bound would list some honest ones by
/// chance alone).
pub const ALPHA: f64 = 1e-4;

/// The lowest population rate used: a pool of few or weak players agrees
/// rarely, and against their rate any competent human would look like an
/// engine. Agreeing half the time is never improbable by itself.
pub const P0_FLOOR: f64 = 0.5;

/// The highest population rate used: against a population agreeing
/// almost always, nothing could ever be improbable; at 0.95 a perfect
/// record over about 180 choices still is.
pub const P0_CEILING: f64 = 0.95;

/// What one account's test found.
#[derive(Clone, Debug, PartialEq)]
pub struct Tested {
    /// The account's counts.
    pub counts: AccountCounts,
    /// Its rate, agreed over choices.
    pub rate: f64,
    /// The population rate it was tested against.
    pub p0: f64,
    /// `P(X >= agreed | choices, p0)`.
    pub p_value: f64,
}

/// Agreed and choices summed over the population of `all`: every account
/// not marked `engine`.
fn population(all: &[AccountCounts]) -> (u64, u64) {
    all.iter()
        .filter(|a| !counts_as_engine(a))
        .fold((0u64, 0u64), |(k, n), a| {
            (k.saturating_add(a.agreed), n.saturating_add(a.choices))
        })
}

/// Whether `a` is marked `engine`: its record is a program's, not a
/// human's to compare others with.
fn counts_as_engine(a: &AccountCounts) -> bool {
    a.mark.as_deref() == Some(Mark::Engine.as_str())
}

/// The population rate for `a`, given the population's sums `pooled`:
/// the pooled rate of the others (excluding accounts marked `engine`).
fn rate_without(pooled: (u64, u64), a: &AccountCounts) -> f64 {
    let (agreed, choices) = pooled;
    if counts_as_engine(a) {
        return held(agreed, choices);
    }
    held(
        agreed.saturating_sub(a.agreed),
        choices.saturating_sub(a.choices),
    )
}

/// `agreed / choices` within the floor and the ceiling; the ceiling when
/// there is nobody to compare with (then only an overwhelming record is
/// listed).
fn held(agreed: u64, choices: u64) -> f64 {
    if choices == 0 {
        return P0_CEILING;
    }
    (agreed as f64 / choices as f64).clamp(P0_FLOOR, P0_CEILING)
}

/// The population rate an account `account` is tested against: the
/// pooled rate of the other accounts of `all` not marked `engine`, held
/// within [`P0_FLOOR`]..=[`P0_CEILING`].
pub fn population_rate(all: &[AccountCounts], account: &str) -> f64 {
    let pooled = population(all);
    match all.iter().find(|a| a.account_key == account) {
        Some(a) => rate_without(pooled, a),
        None => held(pooled.0, pooled.1),
    }
}

/// `ln C(n, k)`, summed exactly (`k <= n`).
fn ln_choose(n: u64, k: u64) -> f64 {
    let k = k.min(n - k);
    (1..=k)
        .map(|j| ((n - k + j) as f64).ln() - (j as f64).ln())
        .sum()
}

/// The one-sided binomial tail `P(X >= k)` for `X ~ Binomial(n, p)`,
/// summed term by term in log space. `p` outside (0, 1) is taken at its
/// bound (`p = 0`: 0 unless `k = 0`; `p = 1`: 1).
pub fn binomial_tail(n: u64, k: u64, p: f64) -> f64 {
    if k == 0 {
        return 1.0;
    }
    if k > n || p <= 0.0 {
        return 0.0;
    }
    if p >= 1.0 {
        return 1.0;
    }
    let (lp, lq) = (p.ln(), (1.0 - p).ln());
    // ln of the term for i = k, then each next term from the one before:
    // t(i+1) = t(i) * (n - i) / (i + 1) * p / q.
    let mut term = ln_choose(n, k) + k as f64 * lp + (n - k) as f64 * lq;
    let mut terms = Vec::with_capacity(usize::try_from(n - k + 1).unwrap_or(0));
    for i in k..=n {
        terms.push(term);
        if i < n {
            term += ((n - i) as f64).ln() - ((i + 1) as f64).ln() + lp - lq;
        }
    }
    let top = terms.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    let sum: f64 = terms.iter().map(|t| (t - top).exp()).sum();
    (top + sum.ln()).exp().min(1.0)
}

/// Every account of `all` with at least `min_choices` choices, tested
/// against the others; the improbable ones (p-value below [`ALPHA`]),
/// most improbable first.
pub fn improbable(all: &[AccountCounts], min_choices: u64) -> Vec<Tested> {
    let pooled = population(all);
    let mut out: Vec<Tested> = all
        .iter()
        .filter(|a| a.choices >= min_choices.max(1))
        .map(|a| {
            let p0 = rate_without(pooled, a);
            Tested {
                counts: a.clone(),
                rate: a.agreed as f64 / a.choices as f64,
                p0,
                p_value: binomial_tail(a.choices, a.agreed, p0),
            }
        })
        .filter(|t| t.p_value < ALPHA)
        .collect();
    out.sort_by(|a, b| {
        a.p_value
            .total_cmp(&b.p_value)
            .then_with(|| a.counts.account_key.cmp(&b.counts.account_key))
    });
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn acc(key: &str, choices: u64, agreed: u64, mark: Option<&str>) -> AccountCounts {
        AccountCounts {
            account_key: key.into(),
            name: key.into(),
            choices,
            agreed,
            games: 1,
            mark: mark.map(str::to_owned),
        }
    }

    /// The tail by direct summation in plain floating point (fine for
    /// small n), to check the log-space sum against.
    fn direct_tail(n: u64, k: u64, p: f64) -> f64 {
        let mut sum = 0.0;
        for i in k..=n {
            let mut c = 1.0f64;
            for j in 1..=i {
                c = c * (n - i + j) as f64 / j as f64;
            }
            sum += c * p.powi(i as i32) * (1.0 - p).powi((n - i) as i32);
        }
        sum
    }

    #[test]
    fn the_tail_matches_direct_summation_and_its_edges() {
        for (n, k, p) in [(10, 7, 0.5), (30, 30, 0.6), (40, 12, 0.3), (25, 0, 0.9)] {
            let (a, b) = (binomial_tail(n, k, p), direct_tail(n, k, p));
            assert!((a - b).abs() <= 1e-12 + 1e-9 * b, "{n} {k} {p}: {a} vs {b}");
        }
        assert_eq!(binomial_tail(5, 6, 0.5), 0.0);
        assert_eq!(binomial_tail(5, 0, 0.5), 1.0);
        // A perfect record of 2000: below the smallest f64, so it comes
        // out as 0 (never NaN or a sum that lost its terms).
        let tiny = binomial_tail(2000, 2000, 0.5);
        assert!((0.0..1e-300).contains(&tiny));
        let long = binomial_tail(5000, 2600, 0.5);
        assert!(long > 0.001 && long < 0.01, "{long}");
        assert!((binomial_tail(60, 60, 0.5) - 0.5f64.powi(60)).abs() < 1e-25);
    }

    #[test]
    fn the_population_excludes_the_account_and_engines_and_is_clamped() {
        let all = [
            acc("a", 100, 100, None),
            acc("b", 100, 60, None),
            acc("c", 100, 80, None),
            acc("e", 1000, 1000, Some("engine")),
        ];
        assert!((population_rate(&all, "a") - 0.7).abs() < 1e-12);
        assert!((population_rate(&all, "b") - 0.9).abs() < 1e-12);
        let weak = [acc("a", 50, 50, None), acc("b", 100, 10, None)];
        assert_eq!(population_rate(&weak, "a"), P0_FLOOR);
        assert_eq!(population_rate(&weak[..1], "a"), P0_CEILING);
        let strong = [acc("a", 50, 50, None), acc("b", 100, 99, None)];
        assert_eq!(population_rate(&strong, "a"), P0_CEILING);
    }

    #[test]
    fn a_perfect_record_is_listed_and_a_human_one_is_not() {
        let all = [
            acc("bot-like", 60, 60, None),
            acc("mixed", 60, 33, None),
            acc("random", 60, 6, None),
            acc("short", 10, 10, None),
        ];
        let listed = improbable(&all, DEFAULT_MIN_CHOICES);
        let names: Vec<&str> = listed.iter().map(|t| t.counts.name.as_str()).collect();
        assert_eq!(names, ["bot-like"]);
        assert!(listed[0].p_value < ALPHA && listed[0].rate == 1.0);
        // Asking for fewer choices tests the short record too: 10 of 10
        // against 0.5 is about 1e-3, not improbable enough.
        assert_eq!(improbable(&all, 5).len(), 1);
    }
}
