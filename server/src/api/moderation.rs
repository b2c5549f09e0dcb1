//! The moderators' API, under `/api/mod/` (moderators only: anyone else
//! is refused `403 mod/forbidden`, a request without credentials `401
//! auth/required`).
//!
//! - `POST /api/mod/accounts/NAME/ACTION`, ACTION one of `close`,
//!   `reopen`, `mark`, `unmark`, `mute`, `playban` and (an admin's)
//!   `role`; body `{"reason", "text", ...}` (see
//!   [`crate::moderation::actions::Body`]): the moderation log's entry.
//! - `GET /api/mod/log?account=NAME&before=ID&limit=N`: the log, newest
//!   first: `{"entries": [...]}`.

use serde_json::{json, Value};

use super::query::param;
use super::serve::ApiRequest;
use crate::accounts::store::Account;
use crate::moderation::actions::{act, Body, Services};
use crate::moderation::log::MOD_LOG_PAGE;
use crate::moderation::playban::banned_account;
use crate::moderation::{moderator, ModAction, ModError, ModLog};

/// Where the moderators' API is.
pub const MOD_PREFIX: &str = "/api/mod/";

/// Where actions on an account are: `/api/mod/accounts/NAME/ACTION`.
pub const MOD_ACCOUNTS_PREFIX: &str = "/api/mod/accounts/";

/// Where the moderation log is read.
pub const MOD_LOG_PATH: &str = "/api/mod/log";

/// A moderators' endpoint.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ModRoute {
    /// `POST /api/mod/accounts/NAME/ACTION`.
    Act {
        /// The account's name, as asked.
        name: String,
        /// What to do.
        action: ModAction,
    },
    /// `GET /api/mod/log` with its query string.
    Log(String),
}

impl ModRoute {
    /// Whether it changes something.
    pub fn changes(&self) -> bool {
        matches!(self, ModRoute::Act { .. })
    }
}

/// The endpoint `method` `path` (with `query`) asks for: `None` if the
/// path is not under `/api/mod/`; `Err(allowed)` for a method the path
/// does not take; `Ok(None)` for a path below it that is none.
pub fn route(
    method: &str,
    path: &str,
    query: &str,
) -> Option<Result<Option<ModRoute>, &'static str>> {
    if !path.starts_with(MOD_PREFIX) {
        return None;
    }
    let only = |m: &'static str, r: ModRoute| if method == m { Ok(Some(r)) } else { Err(m) };
    if path == MOD_LOG_PATH {
        return Some(only("GET", ModRoute::Log(query.to_owned())));
    }
    let Some(rest) = path.strip_prefix(MOD_ACCOUNTS_PREFIX) else {
        return Some(Ok(None));
    };
    let Some((name, action)) = rest.split_once('/') else {
        return Some(Ok(None));
    };
    let action = ModAction::parse(action).filter(|a| *a != ModAction::Resolve);
    match action {
        Some(action) if !name.is_empty() && !name.contains('/') => Some(only(
            "POST",
            ModRoute::Act {
                name: name.to_owned(),
                action,
            },
        )),
        _ => Some(Ok(None)),
    }
}

/// Refuses `account` with `play/banned` (and `retry_after_ms`) if it is
/// banned from play at `now_ms`: entering a ladder or a tournament.
pub async fn refuse_banned(
    req: ApiRequest<'_>,
    account: &Account,
    now_ms: u64,
) -> Result<(), ModError> {
    let log = ModLog::new(req.store.beside());
    let now = i64::try_from(now_ms).unwrap_or(i64::MAX);
    match banned_account(&log, account, now).await? {
        Some(ban) => Err(ban.into()),
        None => Ok(()),
    }
}

/// Answers `route` for `actor` (signed in), with the request's `body`.
pub async fn answer(
    route: ModRoute,
    actor: Account,
    body: &[u8],
    req: ApiRequest<'_>,
    now_ms: i64,
) -> Result<Value, ModError> {
    match route {
        ModRoute::Act { name, action } => {
            // Who may is checked before the body is read: a player learns
            // nothing of what a body should hold.
            let actor = moderator(actor)?;
            let body = Body::parse(body)?;
            let svc = Services {
                accounts: req.accounts,
                store: req.store,
                ladder: req.ladder,
                tournaments: req.tournaments,
                directory: req.directory,
            };
            let entry = act(svc, actor, &name, action, &body, now_ms).await?;
            Ok(json!(entry))
        }
        ModRoute::Log(query) => {
            moderator(actor)?;
            let account = param(&query, "account").filter(|a| !a.is_empty());
            let before = match param(&query, "before") {
                Some(b) => Some(
                    b.parse::<i64>()
                        .map_err(|_| ModError::BadRequest("before is an entry's id".into()))?,
                ),
                None => None,
            };
            let limit = match param(&query, "limit") {
                Some(l) => l
                    .parse::<usize>()
                    .ok()
                    .filter(|l| (1..=MOD_LOG_PAGE).contains(l))
                    .ok_or_else(|| {
                        ModError::BadRequest(format!("limit is a number from 1 to {MOD_LOG_PAGE}"))
                    })?,
                None => MOD_LOG_PAGE,
            };
            let log = ModLog::new(req.store.beside());
            let entries = log.list(account, before, limit).await?;
            Ok(json!({ "entries": entries }))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn moderation_paths_and_methods_are_routed() {
        assert_eq!(
            route("POST", "/api/mod/accounts/Bob/close", ""),
            Some(Ok(Some(ModRoute::Act {
                name: "Bob".into(),
                action: ModAction::Close
            })))
        );
        assert_eq!(
            route("GET", "/api/mod/accounts/Bob/playban", ""),
            Some(Err("POST"))
        );
        assert_eq!(
            route("GET", "/api/mod/log", "account=Bob"),
            Some(Ok(Some(ModRoute::Log("account=Bob".into()))))
        );
        for none in [
            "/api/mod/accounts/Bob/resolve",
            "/api/mod/accounts/Bob/ban",
            "/api/mod/accounts//close",
            "/api/mod/accounts/Bob",
            "/api/mod/nothing",
        ] {
            assert_eq!(route("POST", none, ""), Some(Ok(None)), "{none}");
        }
        assert_eq!(route("GET", "/api/players/Bob", ""), None);
    }
}
