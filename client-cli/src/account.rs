//! The account API from the terminal: a small HTTP/1.1 client for the
//! server's `/api/` endpoints, and the API token kept in the user's
//! config directory (`$XDG_CONFIG_HOME/parlor/token`, else
//! `~/.config/parlor/token`, readable by the user only), with the device
//! cookies logins were given beside it (`parlor/device`, as private).

use std::path::PathBuf;

use base64::Engine;
use serde_json::Value;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

/// The environment variable that gives a token to every command.
pub const TOKEN_ENV: &str = "PARLOR_TOKEN";

/// Largest answer read: the API's answers are a few KiB.
const MAX_ANSWER_BYTES: usize = 1024 * 1024;

/// How to authenticate an API request.
#[derive(Clone)]
pub enum Auth {
    /// None (registration).
    None,
    /// HTTP Basic with name and password.
    Basic(String, String),
    /// An API token.
    Bearer(String),
}

impl std::fmt::Debug for Auth {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Auth::None => "None",
            Auth::Basic(..) => "Basic(..)",
            Auth::Bearer(_) => "Bearer(..)",
        })
    }
}

/// `host:port` of a `ws://` server URL.
fn authority(server: &str) -> Result<&str, String> {
    if server.starts_with("wss://") {
        return Err("this build reaches the account API over ws:// (plain HTTP) only".into());
    }
    let rest = server
        .strip_prefix("ws://")
        .or_else(|| server.strip_prefix("http://"))
        .ok_or_else(|| format!("{server:?} is not a ws:// URL"))?;
    Ok(rest.split('/').next().unwrap_or(rest))
}

/// Sends `method path` with `body` to the server at `server`; the status
/// and the JSON answer (`null` if none).
pub async fn call(
    server: &str,
    method: &str,
    path: &str,
    auth: &Auth,
    body: Option<&Value>,
) -> Result<(u16, Value), String> {
    let answer = call_with_device(server, method, path, auth, body, None).await?;
    Ok((answer.status, answer.json))
}

/// An API answer with the device cookie it set, if it set one.
#[derive(Debug)]
pub struct Answer {
    /// The HTTP status.
    pub status: u16,
    /// The JSON body (`null` if none).
    pub json: Value,
    /// The value of the `parlor_device` cookie the answer set.
    pub device: Option<String>,
}

/// [`call`], presenting the device cookie `device` (see [`load_device`])
/// and reading back the one a login sets.
pub async fn call_with_device(
    server: &str,
    method: &str,
    path: &str,
    auth: &Auth,
    body: Option<&Value>,
    device: Option<&str>,
) -> Result<Answer, String> {
    let host = authority(server)?;
    let body = body.map(Value::to_string).unwrap_or_default();
    let auth = match auth {
        Auth::None => String::new(),
        Auth::Basic(name, password) => format!(
            "Authorization: Basic {}\r\n",
            base64::engine::general_purpose::STANDARD.encode(format!("{name}:{password}"))
        ),
        Auth::Bearer(token) => format!("Authorization: Bearer {token}\r\n"),
    };
    let auth = match device {
        Some(d) => format!("{auth}Cookie: {DEVICE_COOKIE}={d}\r\n"),
        None => auth,
    };
    let request = format!(
        "{method} {path} HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\n\
         Content-Type: application/json\r\nContent-Length: {}\r\n{auth}\r\n{body}",
        body.len()
    );
    let mut stream = TcpStream::connect(host)
        .await
        .map_err(|e| format!("{server}: {e}"))?;
    stream
        .write_all(request.as_bytes())
        .await
        .map_err(|e| format!("{server}: {e}"))?;
    let mut all = Vec::new();
    (&mut stream)
        .take(MAX_ANSWER_BYTES as u64)
        .read_to_end(&mut all)
        .await
        .map_err(|e| format!("{server}: {e}"))?;
    let end = all
        .windows(4)
        .position(|w| w == b"\r\n\r\n")
        .ok_or_else(|| format!("{server}: not an HTTP answer"))?;
    let head = String::from_utf8_lossy(&all[..end]);
    let status = head
        .split(' ')
        .nth(1)
        .and_then(|s| s.parse().ok())
        .ok_or_else(|| format!("{server}: not an HTTP answer"))?;
    let json = serde_json::from_slice(&all[end + 4..]).unwrap_or(Value::Null);
    let device = head.split("\r\n").find_map(|line| {
        let (name, value) = line.split_once(':')?;
        if !name.trim().eq_ignore_ascii_case("set-cookie") {
            return None;
        }
        let pair = value.trim().split(';').next()?;
        let value = pair.strip_prefix(DEVICE_COOKIE)?.strip_prefix('=')?;
        Some(value.to_owned())
    });
    Ok(Answer {
        status,
        json,
        device,
    })
}

/// The name of the cookie a server gives a device that logged in: later
/// logins presenting it for the same account are not kept out by
/// strangers' failed logins.
pub const DEVICE_COOKIE: &str = "parlor_device";

/// The most device cookies kept (one per server and account): a handful
/// is all anyone uses; the oldest goes first.
const MAX_KEPT_DEVICES: usize = 32;

/// Where device cookies are kept: beside the token, readable by the user
/// only (`parlor/device`, a JSON list of `{server, name, device}`).
pub fn device_path() -> Result<PathBuf, String> {
    Ok(token_path()?.with_file_name("device"))
}

/// The kept entries.
fn devices() -> Vec<Value> {
    device_path()
        .ok()
        .and_then(|p| std::fs::read_to_string(p).ok())
        .and_then(|t| serde_json::from_str::<Vec<Value>>(&t).ok())
        .unwrap_or_default()
}

/// Whether a kept entry is for `server` and the account `name` (any case).
fn is_for(entry: &Value, server: &str, name: &str) -> bool {
    entry["server"].as_str() == Some(server)
        && entry["name"]
            .as_str()
            .is_some_and(|n| n.eq_ignore_ascii_case(name))
}

/// The device cookie kept for the account `name` on `server`, if any.
pub fn load_device(server: &str, name: &str) -> Option<String> {
    devices()
        .into_iter()
        .find(|e| is_for(e, server, name))
        .and_then(|e| e["device"].as_str().map(str::to_owned))
}

/// Keeps `device`, the cookie `server` gave the account `name`,
/// readable by the user only.
pub fn save_device(server: &str, name: &str, device: &str) -> Result<PathBuf, String> {
    let path = device_path()?;
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    }
    let mut kept = devices();
    kept.retain(|e| !is_for(e, server, name));
    kept.push(serde_json::json!({"server": server, "name": name, "device": device}));
    let excess = kept.len().saturating_sub(MAX_KEPT_DEVICES);
    kept.drain(..excess);
    let text = Value::Array(kept).to_string();
    write_private(&path, &text).map_err(|e| format!("{}: {e}", path.display()))?;
    Ok(path)
}

/// The server's refusal as a message: `code: message`.
pub fn refusal(status: u16, v: &Value) -> String {
    match (v["code"].as_str(), v["message"].as_str()) {
        (Some(code), Some(message)) => format!("{code}: {message}"),
        _ => format!("the server answered {status}"),
    }
}

/// Where the token is kept.
pub fn token_path() -> Result<PathBuf, String> {
    let dir = match std::env::var_os("XDG_CONFIG_HOME").filter(|d| !d.is_empty()) {
        Some(d) => PathBuf::from(d),
        None => PathBuf::from(
            std::env::var_os("HOME").ok_or("neither XDG_CONFIG_HOME nor HOME is set")?,
        )
        .join(".config"),
    };
    Ok(dir.join("parlor").join("token"))
}

/// Keeps `token` (and the server and id it belongs to) for later
/// commands, readable by the user only.
pub fn save_token(server: &str, id: i64, token: &str) -> Result<PathBuf, String> {
    let path = token_path()?;
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    }
    let text = serde_json::json!({"server": server, "id": id, "token": token}).to_string();
    write_private(&path, &text).map_err(|e| format!("{}: {e}", path.display()))?;
    Ok(path)
}

#[cfg(unix)]
fn write_private(path: &std::path::Path, text: &str) -> std::io::Result<()> {
    use std::io::Write;
    use std::os::unix::fs::{OpenOptionsExt, PermissionsExt};
    let mut f = std::fs::OpenOptions::new()
        .write(true)
        .create(true)
        .truncate(true)
        .mode(0o600)
        .open(path)?;
    // An older file keeps its mode: set it again.
    f.set_permissions(std::fs::Permissions::from_mode(0o600))?;
    f.write_all(text.as_bytes())
}

#[cfg(not(unix))]
fn write_private(path: &std::path::Path, text: &str) -> std::io::Result<()> {
    std::fs::write(path, text)
}

/// The kept token: `(server, id, token)`, if any.
pub fn load_token() -> Option<(String, i64, String)> {
    let text = std::fs::read_to_string(token_path().ok()?).ok()?;
    let v: Value = serde_json::from_str(&text).ok()?;
    Some((
        v["server"].as_str()?.to_owned(),
        v["id"].as_i64()?,
        v["token"].as_str()?.to_owned(),
    ))
}

/// Forgets the kept token.
pub fn forget_token() -> Result<(), String> {
    let path = token_path()?;
    match std::fs::remove_file(&path) {
        Ok(()) => Ok(()),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(()),
        Err(e) => Err(format!("{}: {e}", path.display())),
    }
}
