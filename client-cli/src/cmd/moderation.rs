//! `parlor mod ...`: a moderator's actions on accounts and the
//! moderation log, over the server's `/api/mod/` API as the moderator's
//! account (`--token`, or the one `parlor login` kept). A refusal is
//! printed with its code and exits with status 1.

use std::process::ExitCode;

use parlor_cli::account::{self, Auth};
use parlor_cli::api::escape;
use serde_json::{json, Value};

use super::account_server;

/// `parlor mod`'s subcommands.
#[derive(Debug, clap::Subcommand)]
pub enum ModCmd {
    /// Close an account: it cannot sign in, its connections end, the
    /// matches it plays are resigned, it leaves ladders and tournaments.
    Close(Act),
    /// Reopen a closed account (its owner logs in again).
    Reopen(Act),
    /// Mark an account: off leaderboards and ladders, rated play only
    /// against other marked accounts.
    Mark(MarkArgs),
    /// Take an account's mark away.
    Unmark(Act),
    /// Mute an account in chat for some minutes.
    Mute(Timed),
    /// Ban an account from starting or joining games for some minutes.
    Playban(Timed),
    /// Grant or take the moderator role (admins only).
    Role(RoleArgs),
    /// The moderation log, newest first.
    Log(LogArgs),
}

/// What every action says: whom, why, and where.
#[derive(Debug, clap::Args)]
pub struct Act {
    /// The account's name.
    name: String,
    /// Why, from the closed set: fair_play, boosting, abuse, spam, name,
    /// request, mistake, other.
    #[arg(long)]
    reason: String,
    /// Why, in words (for moderators only).
    #[arg(long, default_value = "")]
    text: String,
    /// Print the log's entry as JSON.
    #[arg(long)]
    json: bool,
    /// Server URL (default: the one you logged in to).
    #[arg(long)]
    server: Option<String>,
}

/// `parlor mod mark`'s arguments.
#[derive(Debug, clap::Args)]
pub struct MarkArgs {
    #[command(flatten)]
    act: Act,
    /// engine (a program's help) or booster (farms or sandbags ratings).
    #[arg(long)]
    mark: String,
    /// Void the account's rated results from this time on (ms since the
    /// Unix epoch).
    #[arg(long, value_name = "MS")]
    void_from: Option<i64>,
}

/// `parlor mod mute` and `playban`'s arguments.
#[derive(Debug, clap::Args)]
pub struct Timed {
    #[command(flatten)]
    act: Act,
    /// For how long, in minutes (1 to 43200, 30 days).
    #[arg(long)]
    minutes: i64,
}

/// `parlor mod role`'s arguments.
#[derive(Debug, clap::Args)]
pub struct RoleArgs {
    /// The account's name.
    name: String,
    /// moderator or player.
    role: String,
    /// Why, from the closed set (see `parlor mod close --help`).
    #[arg(long, default_value = "request")]
    reason: String,
    /// Why, in words.
    #[arg(long, default_value = "")]
    text: String,
    /// Print the log's entry as JSON.
    #[arg(long)]
    json: bool,
    /// Server URL (default: the one you logged in to).
    #[arg(long)]
    server: Option<String>,
}

/// `parlor mod log`'s arguments.
#[derive(Debug, clap::Args)]
pub struct LogArgs {
    /// Only this account's entries.
    #[arg(long)]
    account: Option<String>,
    /// Only entries older than this id (the next page).
    #[arg(long)]
    before: Option<i64>,
    /// At most this many entries (1 to 100).
    #[arg(long)]
    limit: Option<u32>,
    /// Print the server's answer as JSON.
    #[arg(long)]
    json: bool,
    /// Server URL (default: the one you logged in to).
    #[arg(long)]
    server: Option<String>,
}

/// The moderator's token.
fn token() -> Result<String, String> {
    parlor_cli::client::token()
        .map(str::to_owned)
        .ok_or_else(|| {
            "moderating acts as your account: give --token, or log in with `parlor login`".into()
        })
}

/// Runs `parlor mod ...`: exit status 0, or 1 when the server refused
/// (connection and usage errors are `Err`).
pub async fn run(cmd: ModCmd) -> Result<ExitCode, String> {
    match cmd {
        ModCmd::Close(a) => act(a, "close", json!({})).await,
        ModCmd::Reopen(a) => act(a, "reopen", json!({})).await,
        ModCmd::Unmark(a) => act(a, "unmark", json!({})).await,
        ModCmd::Mark(m) => {
            let mut extra = json!({"mark": m.mark});
            if let Some(from) = m.void_from {
                extra["void_from_ms"] = json!(from);
            }
            act(m.act, "mark", extra).await
        }
        ModCmd::Mute(t) => act(t.act, "mute", json!({"minutes": t.minutes})).await,
        ModCmd::Playban(t) => act(t.act, "playban", json!({"minutes": t.minutes})).await,
        ModCmd::Role(r) => {
            let a = Act {
                name: r.name,
                reason: r.reason,
                text: r.text,
                json: r.json,
                server: r.server,
            };
            act(a, "role", json!({"role": r.role})).await
        }
        ModCmd::Log(l) => log(l).await,
    }
}

/// Does `action` to `a.name`, with the body's `extra` fields.
async fn act(a: Act, action: &str, mut extra: Value) -> Result<ExitCode, String> {
    let url = account_server(a.server);
    let auth = Auth::Bearer(token()?);
    extra["reason"] = json!(a.reason);
    extra["text"] = json!(a.text);
    let path = format!("/api/mod/accounts/{}/{action}", escape(&a.name));
    let (status, v) = account::call(&url, "POST", &path, &auth, Some(&extra)).await?;
    if status != 200 {
        eprintln!("parlor: {}", account::refusal(status, &v));
        return Ok(ExitCode::FAILURE);
    }
    if a.json {
        println!(
            "{}",
            serde_json::to_string_pretty(&v).map_err(|e| e.to_string())?
        );
    } else {
        println!("{}", line(&v));
    }
    Ok(ExitCode::SUCCESS)
}

/// Prints the log.
async fn log(l: LogArgs) -> Result<ExitCode, String> {
    let url = account_server(l.server);
    let auth = Auth::Bearer(token()?);
    let mut query = Vec::new();
    if let Some(a) = &l.account {
        query.push(format!("account={}", escape(a)));
    }
    if let Some(b) = l.before {
        query.push(format!("before={b}"));
    }
    if let Some(n) = l.limit {
        query.push(format!("limit={n}"));
    }
    let path = if query.is_empty() {
        "/api/mod/log".to_owned()
    } else {
        format!("/api/mod/log?{}", query.join("&"))
    };
    let (status, v) = account::call(&url, "GET", &path, &auth, None).await?;
    if status != 200 {
        eprintln!("parlor: {}", account::refusal(status, &v));
        return Ok(ExitCode::FAILURE);
    }
    if l.json {
        println!(
            "{}",
            serde_json::to_string_pretty(&v).map_err(|e| e.to_string())?
        );
        return Ok(ExitCode::SUCCESS);
    }
    let entries = v["entries"].as_array().cloned().unwrap_or_default();
    if entries.is_empty() {
        println!("The moderation log has no such entries.");
    }
    for e in &entries {
        println!("{}", line(e));
    }
    Ok(ExitCode::SUCCESS)
}

/// One log entry on a line: `#id moderator action account (reason): text
/// detail`.
fn line(e: &Value) -> String {
    let s = |k: &str| e[k].as_str().unwrap_or("").to_owned();
    let mut out = format!(
        "#{} {} {} {} ({})",
        e["id"],
        s("moderator"),
        s("action"),
        s("account"),
        s("reason")
    );
    let text = s("text");
    if !text.is_empty() {
        out.push_str(&format!(": {text}"));
    }
    if let Some(d) = e.get("detail").filter(|d| !d.is_null()) {
        out.push_str(&format!(" {d}"));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_entry_reads_on_one_line() {
        let e = json!({"id": 3, "moderator": "mia", "action": "playban", "account": "Pam",
                       "reason": "abuse", "text": "insults", "detail": {"minutes": 60}});
        assert_eq!(
            line(&e),
            "#3 mia playban Pam (abuse): insults {\"minutes\":60}"
        );
    }
}
