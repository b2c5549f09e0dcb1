//! `parlor-server accounts role NAME ROLE`: granting roles on the server
//! machine. It opens the server's database (the SQLite file, or the
//! cluster's PostgreSQL), sets the role, appends the action to the
//! moderation log (moderator `server`), says what it did and exits. It
//! runs beside a running server: plain statements, which on SQLite wait
//! out the server's writes.

use std::path::PathBuf;
use std::process::ExitCode;

use serde_json::json;

use super::log::{ModAction, ModLog, NewEntry};
use super::standing_store::StandingStore;
use super::ModReason;
use crate::accounts::store::AccountStore;
use crate::accounts::Role;
use crate::store::{open_beside, StoreError};

/// The moderator the log names for what the server machine's own
/// command did.
pub const SERVER_MODERATOR: &str = "server";

/// `parlor-server accounts ...`.
#[derive(Debug, clap::Subcommand)]
pub enum AccountsCommand {
    /// Give an account a role: player, moderator or admin. Works while
    /// the server runs; the change is in the moderation log (by
    /// `server`). Moderators close, mark, mute and play-ban players;
    /// admins also grant and take `moderator` over the API.
    Role {
        /// The account's name (any case).
        name: String,
        /// The role: player, moderator or admin.
        #[arg(value_parser = ["player", "moderator", "admin"])]
        role: String,
        /// The server's SQLite database.
        #[arg(long, default_value = "parlor.db")]
        db: PathBuf,
        /// The cluster's PostgreSQL database instead, as given to the
        /// server's --cluster.
        #[arg(long, value_name = "URL", conflicts_with = "db")]
        cluster: Option<String>,
        /// Why, for the log: the owner's request (`request`, the default),
        /// or any reason of the closed set.
        #[arg(long, default_value = "request")]
        reason: String,
        /// Why, in words, for the log.
        #[arg(long, default_value = "")]
        text: String,
    },
}

/// Why the command failed.
#[derive(Debug, thiserror::Error)]
pub enum CommandError {
    /// The database failed.
    #[error(transparent)]
    Store(#[from] StoreError),
    /// No account has the name.
    #[error("no account is named {0}")]
    UnknownAccount(String),
    /// The arguments are not valid.
    #[error("{0}")]
    Bad(String),
}

impl AccountsCommand {
    /// Runs the command: what it did on standard output, why it failed
    /// on standard error (exit code 1).
    pub async fn run(self) -> ExitCode {
        match self.act().await {
            Ok(said) => {
                println!("{said}");
                ExitCode::SUCCESS
            }
            Err(e) => {
                eprintln!("parlor-server: {e}");
                ExitCode::FAILURE
            }
        }
    }

    async fn act(self) -> Result<String, CommandError> {
        let AccountsCommand::Role {
            name,
            role,
            db,
            cluster,
            reason,
            text,
        } = self;
        let role = Role::parse(&role).ok_or_else(|| {
            CommandError::Bad(format!("no role {role:?}: player, moderator or admin"))
        })?;
        let reason = ModReason::parse(&reason).ok_or_else(|| {
            let all: Vec<_> = ModReason::ALL.iter().map(|r| r.as_str()).collect();
            CommandError::Bad(format!("no reason {reason:?}: one of {}", all.join(", ")))
        })?;
        let beside = open_beside(&db, cluster.as_deref()).await?;
        let account = AccountStore::new(beside.clone())
            .by_name(&name)
            .await?
            .ok_or_else(|| CommandError::UnknownAccount(name.clone()))?;
        let was = account.standing.role;
        if !StandingStore::new(beside.clone())
            .set_role(&account.name, role)
            .await?
        {
            return Err(CommandError::UnknownAccount(name));
        }
        ModLog::new(beside)
            .append(NewEntry {
                at_ms: crate::clock::now_ms_signed(),
                moderator: SERVER_MODERATOR.to_owned(),
                action: ModAction::Role,
                account: Some(account.name.clone()),
                room: None,
                reason,
                text,
                detail: Some(json!({"role": role, "was": was})),
            })
            .await?;
        Ok(format!(
            "{}: role {} (was {})",
            account.name,
            role.as_str(),
            was.as_str()
        ))
    }
}
