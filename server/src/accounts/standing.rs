//! An account's standing with the server's moderators: its role, and what
//! moderation has done to it (closed, marked, muted, play-banned). Roles
//! are granted on the server machine (`parlor-server accounts role`) or
//! by an admin; the rest by moderators, each action in the moderation log.

use serde::{Deserialize, Serialize};

/// What an account may do to others' accounts.
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize,
)]
#[serde(rename_all = "lowercase")]
pub enum Role {
    /// Plays; may report and block.
    #[default]
    Player,
    /// Also closes, marks, mutes and play-bans players, reads the reports
    /// and the moderation log.
    Moderator,
    /// Also grants `moderator` over the API; no moderator may act on one.
    Admin,
}

impl Role {
    /// The role as stored and shown.
    pub fn as_str(self) -> &'static str {
        match self {
            Role::Player => "player",
            Role::Moderator => "moderator",
            Role::Admin => "admin",
        }
    }

    /// The role stored as `s`, if it is one.
    pub fn parse(s: &str) -> Option<Self> {
        match s {
            "player" => Some(Role::Player),
            "moderator" => Some(Role::Moderator),
            "admin" => Some(Role::Admin),
            _ => None,
        }
    }

    /// Whether the role may moderate.
    pub fn moderates(self) -> bool {
        self >= Role::Moderator
    }
}

/// A fair-play mark: the account's rated play is not what it seems.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Mark {
    /// A human account assisted by a program.
    Engine,
    /// An account that farms or sandbags ratings.
    Booster,
}

impl Mark {
    /// The mark as stored and shown.
    pub fn as_str(self) -> &'static str {
        match self {
            Mark::Engine => "engine",
            Mark::Booster => "booster",
        }
    }

    /// The mark stored as `s`, if it is one.
    pub fn parse(s: &str) -> Option<Self> {
        match s {
            "engine" => Some(Mark::Engine),
            "booster" => Some(Mark::Booster),
            _ => None,
        }
    }
}

/// An account's role and what moderation holds against it now.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Standing {
    /// Its role.
    pub role: Role,
    /// Closed by a moderator since (ms since the epoch): it cannot sign in.
    pub closed_ms: Option<i64>,
    /// Its fair-play mark, if marked.
    pub mark: Option<Mark>,
    /// Muted in chat until (ms since the epoch).
    pub muted_until_ms: Option<i64>,
    /// Banned from play until (ms since the epoch).
    pub playban_until_ms: Option<i64>,
}

impl Standing {
    /// Whether the account is closed.
    pub fn closed(&self) -> bool {
        self.closed_ms.is_some()
    }

    /// Until when the account is banned from play, if it is at `now_ms`.
    pub fn playban_at(&self, now_ms: i64) -> Option<i64> {
        self.playban_until_ms.filter(|&until| until > now_ms)
    }

    /// Until when the account is muted, if it is at `now_ms`.
    pub fn muted_at(&self, now_ms: i64) -> Option<i64> {
        self.muted_until_ms.filter(|&until| until > now_ms)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn roles_and_marks_read_back_what_they_store_and_rank() {
        for r in [Role::Player, Role::Moderator, Role::Admin] {
            assert_eq!(Role::parse(r.as_str()), Some(r));
        }
        for m in [Mark::Engine, Mark::Booster] {
            assert_eq!(Mark::parse(m.as_str()), Some(m));
        }
        assert_eq!(Role::parse("root"), None);
        assert!(!Role::Player.moderates());
        assert!(Role::Moderator.moderates() && Role::Admin.moderates());
    }

    #[test]
    fn bans_and_mutes_hold_until_their_end_only() {
        let s = Standing {
            playban_until_ms: Some(1_000),
            muted_until_ms: Some(2_000),
            ..Standing::default()
        };
        assert_eq!(s.playban_at(999), Some(1_000));
        assert_eq!(s.playban_at(1_000), None);
        assert_eq!(s.muted_at(1_500), Some(2_000));
        assert_eq!(s.muted_at(2_000), None);
        assert!(!s.closed());
    }
}
