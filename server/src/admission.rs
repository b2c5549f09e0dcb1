//! Admission of new connections by client address: a token bucket of
//! connection attempts per address, and a cool-down for an address whose
//! connection was closed for flooding.
//!
//! The per-connection message limit (`rate`) stops one connection; this
//! stops a client that reconnects as soon as it is closed, whose handshakes
//! and bursts would otherwise cost the server as much as the flood itself.
//! A refused attempt costs one short HTTP answer: it is turned away before
//! the WebSocket handshake.

use std::collections::HashMap;
use std::net::IpAddr;
use std::sync::{Mutex, MutexGuard};
use std::time::Duration;

use tokio::time::Instant;

pub use crate::limits::AdmissionPolicy;
use crate::limits::MAX_TRACKED_ADDRESSES;

/// Least time between two sweeps of full books: a sweep walks every entry,
/// and books full of live entries must not be walked on every attempt.
const SWEEP_INTERVAL: Duration = Duration::from_secs(1);

/// Why a connection was turned away.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Turned {
    /// The address opens connections faster than the policy allows.
    TooFast,
    /// The address flooded recently; it may come back after this long.
    CoolingDown(Duration),
}

#[derive(Debug)]
struct AddressState {
    tokens: f64,
    last: Instant,
    banned_until: Option<Instant>,
}

#[derive(Debug)]
struct Books {
    by_address: HashMap<IpAddr, AddressState>,
    next_sweep: Option<Instant>,
}

impl Books {
    /// Makes room if the books are full, by dropping entries that carry
    /// no memory any more (no ban in force, a bucket refilled); true if
    /// there is room.
    fn room(&mut self, p: AdmissionPolicy, now: Instant) -> bool {
        if self.by_address.len() < MAX_TRACKED_ADDRESSES {
            return true;
        }
        if self.next_sweep.is_none_or(|t| now >= t) {
            self.next_sweep = Some(now + SWEEP_INTERVAL);
            self.by_address.retain(|_, s| {
                let banned = s.banned_until.is_some_and(|u| now < u);
                let refill = now.saturating_duration_since(s.last).as_secs_f64() * p.per_second;
                banned || s.tokens + refill < p.burst
            });
        }
        self.by_address.len() < MAX_TRACKED_ADDRESSES
    }

    /// `ip`'s entry, made with a full bucket if new; `None` if it is new
    /// and the books are full of live entries.
    fn entry(&mut self, ip: IpAddr, p: AdmissionPolicy, now: Instant) -> Option<&mut AddressState> {
        let k = address_key(ip);
        if !self.by_address.contains_key(&k) && !self.room(p, now) {
            return None;
        }
        Some(self.by_address.entry(k).or_insert(AddressState {
            tokens: p.burst,
            last: now,
            banned_until: None,
        }))
    }
}

/// The admission books of a server.
#[derive(Debug)]
pub struct Admission {
    /// `None`: every address is admitted (e.g. behind a reverse proxy,
    /// where all clients share its address).
    policy: Option<AdmissionPolicy>,
    books: Mutex<Books>,
}

/// The key an address is booked under (by admission and by the room
/// caps): IPv4 addresses as they are, IPv6
/// addresses by their /64 network, which one client usually holds whole
/// (rotating within it must not buy a fresh bucket).
pub fn address_key(ip: IpAddr) -> IpAddr {
    match ip {
        IpAddr::V4(_) => ip,
        IpAddr::V6(v6) => {
            let mut octets = v6.octets();
            octets[8..].fill(0);
            IpAddr::V6(octets.into())
        }
    }
}

impl Admission {
    /// Empty books under `policy` (`None`: admit everyone).
    pub fn new(policy: Option<AdmissionPolicy>) -> Self {
        Admission {
            policy,
            books: Mutex::new(Books {
                by_address: HashMap::new(),
                next_sweep: None,
            }),
        }
    }

    fn books(&self) -> MutexGuard<'_, Books> {
        // Every update is a single assignment: a poisoned map is consistent.
        self.books
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// Accounts for a connection attempt from `ip` at `now`.
    pub fn admit(&self, ip: IpAddr, now: Instant) -> Result<(), Turned> {
        let Some(p) = self.policy else {
            return Ok(());
        };
        let mut books = self.books();
        let Some(state) = books.entry(ip, p, now) else {
            // Books full of live entries (an attack from very many
            // addresses): newcomers are admitted untracked rather than
            // refused, and the global connection cap still holds.
            return Ok(());
        };
        if let Some(until) = state.banned_until {
            if now < until {
                return Err(Turned::CoolingDown(until - now));
            }
            state.banned_until = None;
        }
        let dt = now.saturating_duration_since(state.last).as_secs_f64();
        state.last = now;
        state.tokens = (state.tokens + dt * p.per_second).min(p.burst);
        if state.tokens >= 1.0 {
            state.tokens -= 1.0;
            Ok(())
        } else {
            Err(Turned::TooFast)
        }
    }

    /// Refuses `ip` for the policy's cool-down: one of its connections
    /// was closed for flooding.
    pub fn flooded(&self, ip: IpAddr, now: Instant) {
        let Some(p) = self.policy else {
            return;
        };
        if let Some(state) = self.books().entry(ip, p, now) {
            state.tokens = 0.0;
            state.banned_until = Some(now + p.flood_cooldown);
        }
    }

    /// Gives back the place a connection from `ip` took: it turned out to
    /// fetch one of the web client's embedded files, which costs
    /// microseconds and no task, and a page load fetches a dozen of them
    /// (they would otherwise use up a browser's connection budget in a few
    /// reloads). The connection cap still counts them while they last.
    pub fn refund(&self, ip: IpAddr, now: Instant) {
        let Some(p) = self.policy else {
            return;
        };
        if let Some(state) = self.books().entry(ip, p, now) {
            state.tokens = (state.tokens + 1.0).min(p.burst);
        }
    }

    /// Addresses currently on the books.
    pub fn tracked(&self) -> usize {
        self.books().by_address.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::net::{Ipv4Addr, Ipv6Addr};

    fn policy() -> AdmissionPolicy {
        AdmissionPolicy {
            per_second: 2.0,
            burst: 3.0,
            flood_cooldown: Duration::from_secs(10),
        }
    }

    const A: IpAddr = IpAddr::V4(Ipv4Addr::new(10, 0, 0, 1));
    const B: IpAddr = IpAddr::V4(Ipv4Addr::new(10, 0, 0, 2));

    #[tokio::test(start_paused = true)]
    async fn a_burst_is_admitted_then_the_average_rate() {
        let adm = Admission::new(Some(policy()));
        let t = Instant::now();
        for _ in 0..3 {
            assert_eq!(adm.admit(A, t), Ok(()));
        }
        assert_eq!(adm.admit(A, t), Err(Turned::TooFast));
        // Another address has its own bucket.
        assert_eq!(adm.admit(B, t), Ok(()));
        // Half a second refills one token at two a second.
        let later = t + Duration::from_millis(500);
        assert_eq!(adm.admit(A, later), Ok(()));
        assert_eq!(adm.admit(A, later), Err(Turned::TooFast));
    }

    #[tokio::test(start_paused = true)]
    async fn without_a_policy_everyone_is_admitted() {
        let adm = Admission::new(None);
        let t = Instant::now();
        adm.flooded(A, t);
        for _ in 0..1_000 {
            assert_eq!(adm.admit(A, t), Ok(()));
        }
        assert_eq!(adm.tracked(), 0);
    }

    #[tokio::test(start_paused = true)]
    async fn a_flooder_cools_down_then_may_return() {
        let adm = Admission::new(Some(policy()));
        let t = Instant::now();
        adm.flooded(A, t);
        assert_eq!(
            adm.admit(A, t + Duration::from_secs(4)),
            Err(Turned::CoolingDown(Duration::from_secs(6)))
        );
        assert_eq!(adm.admit(B, t), Ok(()));
        assert_eq!(adm.admit(A, t + Duration::from_secs(10)), Ok(()));
    }

    #[tokio::test(start_paused = true)]
    async fn ipv6_addresses_share_their_slash_64() {
        let adm = Admission::new(Some(policy()));
        let t = Instant::now();
        let host = |last: u16| IpAddr::V6(Ipv6Addr::new(0x2001, 0xdb8, 0, 7, 0, 0, 0, last));
        for i in 0..3 {
            assert_eq!(adm.admit(host(i), t), Ok(()));
        }
        assert_eq!(adm.admit(host(99), t), Err(Turned::TooFast));
        let elsewhere = IpAddr::V6(Ipv6Addr::new(0x2001, 0xdb8, 0, 8, 0, 0, 0, 1));
        assert_eq!(adm.admit(elsewhere, t), Ok(()));
    }

    #[tokio::test(start_paused = true)]
    async fn settled_addresses_are_forgotten_when_the_books_fill() {
        let adm = Admission::new(Some(policy()));
        let t = Instant::now();
        for i in 0..MAX_TRACKED_ADDRESSES {
            let ip = IpAddr::V4(Ipv4Addr::from(0x0a00_0000 + i as u32));
            assert_eq!(adm.admit(ip, t), Ok(()));
        }
        assert_eq!(adm.tracked(), MAX_TRACKED_ADDRESSES);
        adm.flooded(A, t + Duration::from_secs(5));
        // Five seconds on, every bucket has refilled: only the ban is kept,
        // besides the newcomer.
        let newcomer = IpAddr::V4(Ipv4Addr::new(192, 0, 2, 1));
        assert_eq!(adm.admit(newcomer, t + Duration::from_secs(5)), Ok(()));
        assert!(adm.tracked() <= 3, "{} still tracked", adm.tracked());
        assert!(matches!(
            adm.admit(A, t + Duration::from_secs(6)),
            Err(Turned::CoolingDown(_))
        ));
    }
}
