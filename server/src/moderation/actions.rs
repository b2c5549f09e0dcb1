//! What a moderator does to an account, and what each action changes:
//! close and reopen, mark and unmark, mute, play-ban, and (an admin's)
//! grant or take the moderator role. Every action is checked (who may,
//! on whom, with a reason from the closed set), done, and appended to
//! the moderation log, whose entry is the answer.

use serde::Deserialize;
use serde_json::{json, Value};

use super::log::{Entry, ModAction, ModLog, NewEntry};
use super::playban::utc_minute;
use super::standing_store::{Column, StandingStore};
use super::{may_act_on, moderator, ModError, ModReason, MAX_MOD_TEXT_CHARS};
use crate::accounts::store::Account;
use crate::accounts::{name_key, AccountError, Accounts, Mark, Role};
use crate::directory::Directory;
use crate::ladder::Ladder;
use crate::room::RoomCmd;
use crate::store::{Store, StoreError};
use crate::tournaments::Tournaments;

/// The longest mute or play ban, in minutes: 30 days. Longer than that
/// is what closing an account is for.
pub const MAX_SANCTION_MINUTES: i64 = 30 * 24 * 60;

/// The most unfinished matches of a closed account resigned at once:
/// more than any account plays at a time (correspondence games
/// included), and a bound on one request's work.
pub const MAX_RESIGNED_AT_ONCE: usize = 500;

/// What moderation acts through: the services an action changes.
#[derive(Clone, Copy, Debug)]
pub struct Services<'a> {
    /// The accounts (to end a closed account's credentials).
    pub accounts: &'a Accounts,
    /// The match log and the database beside it.
    pub store: &'a Store,
    /// The ladders a closed account leaves.
    pub ladder: &'a Ladder,
    /// The tournaments a closed account leaves.
    pub tournaments: &'a Tournaments,
    /// The rooms whose matches a closed account resigns.
    pub directory: &'a Directory,
}

/// An action's body, as sent: every field any action takes, each
/// checked by the action that needs it.
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Body {
    /// A reason from the closed set ([`ModReason`]).
    pub reason: Option<String>,
    /// Why, in the moderator's words (at most [`MAX_MOD_TEXT_CHARS`]).
    #[serde(default)]
    pub text: String,
    /// For `mark`: `engine` or `booster`.
    pub mark: Option<String>,
    /// For `mark`: void the account's rated results from this time on
    /// (ms since the epoch, not in the future).
    pub void_from_ms: Option<i64>,
    /// For `mute` and `playban`: for how long, 1 to
    /// [`MAX_SANCTION_MINUTES`].
    pub minutes: Option<i64>,
    /// For `role`: `moderator` or `player`.
    pub role: Option<String>,
}

impl Body {
    /// The body of a request, `{}` if empty.
    pub fn parse(bytes: &[u8]) -> Result<Body, ModError> {
        if bytes.iter().all(u8::is_ascii_whitespace) {
            return Ok(Body::default());
        }
        serde_json::from_slice(bytes)
            .map_err(|e| ModError::BadRequest(format!("the body is not an action's JSON: {e}")))
    }

    fn reason(&self) -> Result<ModReason, ModError> {
        let all = || {
            ModReason::ALL
                .iter()
                .map(|r| r.as_str())
                .collect::<Vec<_>>()
                .join(", ")
        };
        let Some(reason) = &self.reason else {
            return Err(ModError::BadRequest(format!(
                "say why: \"reason\" is one of {}",
                all()
            )));
        };
        ModReason::parse(reason).ok_or_else(|| {
            ModError::BadRequest(format!("no reason {reason:?}: it is one of {}", all()))
        })
    }

    fn text(&self) -> Result<String, ModError> {
        if self.text.chars().count() > MAX_MOD_TEXT_CHARS {
            return Err(ModError::BadRequest(format!(
                "the text has at most {MAX_MOD_TEXT_CHARS} characters"
            )));
        }
        Ok(self.text.trim().to_owned())
    }

    fn minutes(&self) -> Result<i64, ModError> {
        match self.minutes {
            Some(m) if (1..=MAX_SANCTION_MINUTES).contains(&m) => Ok(m),
            _ => Err(ModError::BadRequest(format!(
                "\"minutes\" is a whole number from 1 to {MAX_SANCTION_MINUTES} (30 days)"
            ))),
        }
    }
}

/// `actor` (as signed in) does `action` to the account called `name`,
/// with `body`, at `now_ms`: the log's entry for it.
pub async fn act(
    svc: Services<'_>,
    actor: Account,
    name: &str,
    action: ModAction,
    body: &Body,
    now_ms: i64,
) -> Result<Entry, ModError> {
    let actor = moderator(actor)?;
    if action == ModAction::Role && actor.standing.role != Role::Admin {
        return Err(ModError::Forbidden);
    }
    let reason = body.reason()?;
    let text = body.text()?;
    let accounts = svc.accounts.store();
    let target = accounts
        .by_name(name)
        .await?
        .ok_or_else(|| ModError::UnknownAccount(name.to_owned()))?;
    may_act_on(actor.standing.role, target.standing.role)?;
    let standing = StandingStore::new(svc.store.beside());
    let detail = match action {
        ModAction::Close => close(svc, &standing, &target, now_ms).await?,
        ModAction::Reopen => {
            if !target.standing.closed() {
                return Err(ModError::BadRequest(format!(
                    "{} is not closed",
                    target.name
                )));
            }
            standing
                .set_time(&target.name, Column::ClosedMs, None)
                .await?;
            None
        }
        ModAction::Mark => mark(svc, &standing, &target, body, now_ms).await?,
        ModAction::Unmark => {
            let Some(was) = target.standing.mark else {
                return Err(ModError::BadRequest(format!(
                    "{} is not marked",
                    target.name
                )));
            };
            standing.set_mark(&target.name, None).await?;
            Some(json!({"mark": was}))
        }
        ModAction::Mute | ModAction::Playban => {
            let minutes = body.minutes()?;
            let until_ms = now_ms.saturating_add(minutes.saturating_mul(60_000));
            let column = if action == ModAction::Mute {
                Column::MutedUntilMs
            } else {
                Column::PlaybanUntilMs
            };
            standing
                .set_time(&target.name, column, Some(until_ms))
                .await?;
            Some(json!({"minutes": minutes, "until_ms": until_ms, "until": utc_minute(until_ms)}))
        }
        ModAction::Role => {
            let role =
                match body.role.as_deref().map(Role::parse) {
                    Some(Some(r @ (Role::Moderator | Role::Player))) => r,
                    Some(Some(Role::Admin)) => return Err(ModError::BadRequest(
                        "admin is granted only on the server machine (parlor-server accounts role)"
                            .into(),
                    )),
                    _ => {
                        return Err(ModError::BadRequest(
                            "\"role\" is \"moderator\" or \"player\"".into(),
                        ))
                    }
                };
            standing.set_role(&target.name, role).await?;
            Some(json!({"role": role}))
        }
        ModAction::Resolve => {
            return Err(ModError::BadRequest(
                "reports are resolved under /api/mod/reports".into(),
            ))
        }
    };
    let entry = NewEntry {
        at_ms: now_ms,
        moderator: actor.name.clone(),
        action,
        account: Some(target.name.clone()),
        room: None,
        reason,
        text,
        detail,
    };
    let log = ModLog::new(svc.store.beside());
    let id = log.append(entry.clone()).await?;
    tracing::info!(moderator = %actor.name, account = %target.name, action = action.as_str(), reason = reason.as_str(), "moderation");
    Ok(logged(id, entry))
}

/// The log's entry `e`, stored as `id`.
pub fn logged(id: i64, e: NewEntry) -> Entry {
    Entry {
        id,
        at_ms: e.at_ms,
        moderator: e.moderator,
        action: e.action,
        account: e.account,
        room: e.room,
        reason: e.reason,
        text: e.text,
        detail: e.detail,
    }
}

/// Closes `target`: it cannot sign in, its credentials and connections
/// end, the matches it plays are resigned, and it leaves every ladder and
/// tournament. The detail says how many of each.
async fn close(
    svc: Services<'_>,
    standing: &StandingStore,
    target: &Account,
    now_ms: i64,
) -> Result<Option<Value>, ModError> {
    if target.standing.closed() {
        return Err(ModError::BadRequest(format!(
            "{} is closed already",
            target.name
        )));
    }
    // Closed first: a login racing the rest is refused from here on.
    standing
        .set_time(&target.name, Column::ClosedMs, Some(now_ms))
        .await?;
    let ended = svc
        .accounts
        .end_all_credentials(target)
        .await
        .map_err(|e| match e {
            AccountError::Store(e) => ModError::Store(e),
            other => unavailable(&other.to_string()),
        })?;
    let key = name_key(&target.name);
    let games = svc.store.games_of(&key, MAX_RESIGNED_AT_ONCE).await?;
    let mut resigned = 0;
    for g in &games {
        let cmd = RoomCmd::Resign {
            account: key.clone(),
        };
        match svc.directory.route(&g.record.room, cmd) {
            Ok(()) => resigned += 1,
            Err(e) => {
                tracing::warn!(room = %g.record.room, ?e, "a closed account's match could not be told to resign it");
            }
        }
    }
    let ladders = svc
        .ladder
        .leave_every(target)
        .await
        .map_err(|e| unavailable(&e.message))?;
    let tournaments = svc
        .tournaments
        .leave_every(&target.name)
        .await
        .map_err(|e| unavailable(&e.message))?;
    Ok(Some(json!({
        "credentials_ended": ended,
        "matches_resigned": resigned,
        "ladders_left": ladders,
        "tournaments_left": tournaments,
    })))
}

/// A failure of the records an action changes, as the database's.
fn unavailable(why: &str) -> ModError {
    ModError::Store(StoreError::Unavailable(why.to_owned()))
}

/// Marks `target` `engine` or `booster`, voiding its rated results from
/// `void_from_ms` if given.
async fn mark(
    svc: Services<'_>,
    standing: &StandingStore,
    target: &Account,
    body: &Body,
    now_ms: i64,
) -> Result<Option<Value>, ModError> {
    let mark = match body.mark.as_deref().map(Mark::parse) {
        Some(Some(m)) => m,
        _ => {
            return Err(ModError::BadRequest(
                "\"mark\" is \"engine\" or \"booster\"".into(),
            ))
        }
    };
    if let Some(from) = body.void_from_ms {
        if !(0..=now_ms).contains(&from) {
            return Err(ModError::BadRequest(
                "\"void_from_ms\" is a time (ms since the epoch) not in the future".into(),
            ));
        }
    }
    // The void first: it is idempotent (a match is voided once), so a
    // mark that then fails to be stored is simply asked for again.
    let mut voided = Vec::new();
    if let Some(from) = body.void_from_ms {
        let key = crate::accounts::name_key(&target.name);
        let from = u64::try_from(from).unwrap_or(0);
        let at = u64::try_from(now_ms).unwrap_or(0);
        voided = svc.store.void_rated(&key, from, at, mark.as_str()).await?;
    }
    standing.set_mark(&target.name, Some(mark)).await?;
    let mut detail = json!({"mark": mark});
    if let Some(from) = body.void_from_ms {
        detail["void_from_ms"] = json!(from);
        // The correction lines appended to the public ledger, by number.
        let lines: Vec<u64> = voided.iter().map(|l| l.n).collect();
        detail["correction_lines"] = json!(lines);
    }
    Ok(Some(detail))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bad(r: Result<impl std::fmt::Debug, ModError>) -> String {
        match r {
            Err(ModError::BadRequest(why)) => why,
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn bodies_are_checked_field_by_field() {
        assert!(bad(Body::parse(b"[1]")).contains("not an action's JSON"));
        assert!(bad(Body::parse(br#"{"reason": "abuse", "ban": true}"#)).contains("ban"));
        let empty = Body::parse(b" ").unwrap();
        assert!(bad(empty.reason()).contains("fair_play, boosting"));
        let body = Body::parse(br#"{"reason": "spam", "text": " flood ", "minutes": 30}"#).unwrap();
        assert_eq!(body.reason().unwrap(), ModReason::Spam);
        assert_eq!(body.text().unwrap(), "flood");
        assert_eq!(body.minutes().unwrap(), 30);
        for minutes in [0, -5, MAX_SANCTION_MINUTES + 1] {
            let b = Body {
                minutes: Some(minutes),
                ..Body::default()
            };
            assert!(bad(b.minutes()).contains("43200"));
        }
        let long = Body {
            text: "é".repeat(MAX_MOD_TEXT_CHARS + 1),
            ..Body::default()
        };
        assert!(bad(long.text()).contains("at most"));
        let just = Body {
            text: "é".repeat(MAX_MOD_TEXT_CHARS),
            ..Body::default()
        };
        assert!(just.text().is_ok(), "characters are counted, not bytes");
    }
}
