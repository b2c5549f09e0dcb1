//! `parlor register`, `login`, `logout` and `token`: accounts and API
//! tokens on a server. `login` keeps an API token in the user's config
//! directory (see `parlor_cli::account`); `token` and `logout` use it.
//! It also keeps the device cookie the server gives a login and presents
//! it on later logins, so that strangers' failed logins for the name do
//! not keep this machine out.

use std::io::BufRead;

use parlor_cli::account::{self, Auth};
use serde_json::json;

use super::DEFAULT_SERVER;

/// Where and how a password is read.
#[derive(Debug, clap::Args)]
pub struct PasswordArgs {
    /// Server URL.
    #[arg(long, default_value = DEFAULT_SERVER)]
    server: String,
    /// Read the password from the first line of standard input instead
    /// of a prompt (for scripts).
    #[arg(long)]
    password_stdin: bool,
}

/// `parlor register`'s arguments.
#[derive(Debug, clap::Args)]
pub struct RegisterArgs {
    /// The account's name: 3-20 letters, digits, `_` and `-`.
    name: String,
    /// Make a bot's account (it plays with API tokens).
    #[arg(long)]
    bot: bool,
    #[command(flatten)]
    password: PasswordArgs,
}

/// `parlor login`'s arguments.
#[derive(Debug, clap::Args)]
pub struct LoginArgs {
    /// The account's name.
    name: String,
    #[command(flatten)]
    password: PasswordArgs,
}

/// `parlor token`'s subcommands.
#[derive(Debug, clap::Subcommand)]
pub enum TokenCmd {
    /// Make an API token (printed once) for a bot or a script.
    Create {
        /// What the token is for.
        #[arg(long, default_value = "")]
        label: String,
        #[command(flatten)]
        on: TokenServer,
    },
    /// List your API tokens (never the tokens themselves).
    List {
        #[command(flatten)]
        on: TokenServer,
    },
    /// Revoke the token with this id.
    Revoke {
        /// The token's id, from `parlor token list`.
        id: i64,
        #[command(flatten)]
        on: TokenServer,
    },
}

/// Which server `parlor token` speaks to.
#[derive(Debug, clap::Args)]
pub struct TokenServer {
    /// The server (default: the one `parlor login` logged in to). Without
    /// `--token`, it must be that one: the login's token is good there
    /// alone.
    #[arg(long)]
    server: Option<String>,
}

impl TokenCmd {
    fn server(&self) -> Option<&str> {
        match self {
            TokenCmd::Create { on, .. } | TokenCmd::List { on } | TokenCmd::Revoke { on, .. } => {
                on.server.as_deref()
            }
        }
    }
}

/// The server and credential `parlor token` uses: `--server` with
/// `--token`; else the login's server and token (`--server`, if given,
/// must be the login's).
fn token_target(
    server: Option<&str>,
    token: Option<String>,
    kept: Option<(String, i64, String)>,
) -> Result<(String, String), String> {
    match (server, token, kept) {
        (Some(s), Some(t), _) => Ok((s.to_owned(), t)),
        (Some(s), None, Some((ks, _, kt))) if ks == s => Ok((ks, kt)),
        (Some(s), None, Some((ks, _, _))) => Err(format!(
            "you are logged in to {ks}, not {s}: log in there first (parlor login NAME --server {s}) or give --token"
        )),
        (None, t, Some((ks, _, kt))) => Ok((ks, t.unwrap_or(kt))),
        (_, _, None) => Err("log in first: parlor login NAME".into()),
    }
}

/// The password: piped with `--password-stdin`, else asked for on the
/// terminal without echoing it (rpassword turns the echo off); from a
/// pipe without the flag it is read as a line, as with the flag.
fn read_password(a: &PasswordArgs) -> Result<String, String> {
    let terminal = std::io::IsTerminal::is_terminal(&std::io::stdin());
    if !a.password_stdin && terminal {
        return rpassword::prompt_password("Password: ")
            .map_err(|e| format!("cannot read the password: {e}"));
    }
    let mut line = String::new();
    std::io::stdin()
        .lock()
        .read_line(&mut line)
        .map_err(|e| format!("cannot read the password: {e}"))?;
    Ok(line.trim_end_matches(['\r', '\n']).to_owned())
}

/// Runs `parlor register`.
pub async fn register(a: RegisterArgs) -> Result<(), String> {
    let password = read_password(&a.password)?;
    let kind = if a.bot { "bot" } else { "human" };
    let body = json!({"name": a.name, "password": password, "kind": kind});
    let (status, v) = account::call(
        &a.password.server,
        "POST",
        "/api/accounts",
        &Auth::None,
        Some(&body),
    )
    .await?;
    if status != 201 {
        return Err(account::refusal(status, &v));
    }
    println!(
        "Registered {} ({}). Log in with: parlor login {} --server {}",
        v["name"].as_str().unwrap_or(&a.name),
        kind,
        a.name,
        a.password.server
    );
    Ok(())
}

/// Runs `parlor login`: makes an API token with the name and password and
/// keeps it.
pub async fn login(a: LoginArgs) -> Result<(), String> {
    let password = read_password(&a.password)?;
    let server = &a.password.server;
    let device = account::load_device(server, &a.name);
    let answer = account::call_with_device(
        server,
        "POST",
        "/api/tokens",
        &Auth::Basic(a.name.clone(), password),
        Some(&json!({"label": "parlor login"})),
        device.as_deref(),
    )
    .await?;
    let (status, v) = (answer.status, answer.json);
    if status != 201 {
        return Err(account::refusal(status, &v));
    }
    if let Some(device) = answer.device {
        // Without it the login still worked: only say why.
        if let Err(e) = account::save_device(server, &a.name, &device) {
            eprintln!("parlor: cannot keep the device cookie: {e}");
        }
    }
    let (Some(token), Some(id)) = (v["token"].as_str(), v["id"].as_i64()) else {
        return Err("the server's answer has no token".into());
    };
    let path = account::save_token(server, id, token)?;
    println!("Logged in as {}; token kept in {}", a.name, path.display());
    Ok(())
}

/// Runs `parlor logout`: revokes the kept token and forgets it.
pub async fn logout() -> Result<(), String> {
    let Some((server, id, token)) = account::load_token() else {
        println!("Not logged in.");
        return Ok(());
    };
    let path = format!("/api/tokens/{id}");
    match account::call(&server, "DELETE", &path, &Auth::Bearer(token), None).await {
        Ok((204 | 401, _)) => {}
        Ok((status, v)) => eprintln!("parlor: {}", account::refusal(status, &v)),
        Err(e) => eprintln!("parlor: {e} (the token is forgotten here all the same)"),
    }
    account::forget_token()?;
    println!("Logged out.");
    Ok(())
}

/// Runs `parlor token ...` with the kept token (or `--token`).
pub async fn token(cmd: TokenCmd, token: Option<String>) -> Result<(), String> {
    let (server, token) = token_target(cmd.server(), token, account::load_token())?;
    let auth = Auth::Bearer(token);
    match cmd {
        TokenCmd::Create { label, .. } => {
            let (status, v) = account::call(
                &server,
                "POST",
                "/api/tokens",
                &auth,
                Some(&json!({ "label": label })),
            )
            .await?;
            if status != 201 {
                return Err(account::refusal(status, &v));
            }
            println!("{}", v["token"].as_str().unwrap_or_default());
            eprintln!("(id {}; shown once: keep it)", v["id"]);
        }
        TokenCmd::List { .. } => {
            let (status, v) = account::call(&server, "GET", "/api/tokens", &auth, None).await?;
            if status != 200 {
                return Err(account::refusal(status, &v));
            }
            for t in v["tokens"].as_array().into_iter().flatten() {
                println!("{}\t{}", t["id"], t["label"].as_str().unwrap_or_default());
            }
        }
        TokenCmd::Revoke { id, .. } => {
            let path = format!("/api/tokens/{id}");
            let (status, v) = account::call(&server, "DELETE", &path, &auth, None).await?;
            if status != 204 {
                return Err(account::refusal(status, &v));
            }
            println!("Revoked token {id}.");
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn token_commands_use_the_logins_server_or_a_token_given_with_another() {
        let kept = || Some(("ws://a:1".to_owned(), 1, "kept".to_owned()));
        let at = |s: &str, t: &str| Ok((s.to_owned(), t.to_owned()));
        assert_eq!(token_target(None, None, kept()), at("ws://a:1", "kept"));
        assert_eq!(
            token_target(Some("ws://a:1"), None, kept()),
            at("ws://a:1", "kept")
        );
        let other = token_target(Some("ws://b:2"), None, kept());
        assert!(other.is_err_and(|e| e.contains("logged in to ws://a:1")));
        assert_eq!(
            token_target(Some("ws://b:2"), Some("given".into()), None),
            at("ws://b:2", "given")
        );
        assert!(token_target(None, None, None).is_err());
    }
}
