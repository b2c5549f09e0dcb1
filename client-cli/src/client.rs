//! A protocol client over one WebSocket connection.

use futures_util::{SinkExt, StreamExt};
use parlor_protocol::{decode_server, encode, ClientMsg, ErrorCode, ServerMsg, PROTOCOL_VERSION};
use tokio::net::TcpStream;
use tokio_tungstenite::tungstenite::Message;
use tokio_tungstenite::{MaybeTlsStream, WebSocketStream};
use uuid::Uuid;

/// Why a client call failed.
#[derive(Debug, thiserror::Error)]
pub enum ClientError {
    /// The connection failed.
    #[error("connection error: {0}")]
    Ws(#[from] tokio_tungstenite::tungstenite::Error),
    /// TLS could not be set up (the CA file).
    #[error("TLS: {0}")]
    Tls(String),
    /// The server closed the connection.
    #[error("the server closed the connection{}", .0.as_deref().map(|r| format!(": {r}")).unwrap_or_default())]
    Closed(Option<String>),
    /// The server sent something this client does not understand.
    #[error("unexpected message from the server: {0}")]
    Protocol(String),
    /// The server refused a request.
    #[error("{message} ({code})")]
    Refused {
        /// Stable code.
        code: ErrorCode,
        /// For people.
        message: String,
    },
}

/// The API token every connection of this process sends in `hello`
/// (`parlor --token`, `PARLOR_TOKEN`), set once at start-up.
static TOKEN: std::sync::OnceLock<String> = std::sync::OnceLock::new();

/// Makes every later [`Client::connect`] act as the account of `token`.
pub fn use_token(token: String) {
    let _ = TOKEN.set(token);
}

/// The API token set by [`use_token`], if any: the HTTP calls that act as
/// the account (entering a tournament) send it too.
pub fn token() -> Option<&'static str> {
    TOKEN.get().map(String::as_str)
}

/// A connected, greeted client.
#[derive(Debug)]
pub struct Client {
    ws: WebSocketStream<MaybeTlsStream<TcpStream>>,
    token: Uuid,
    /// The account `hello`'s token signed in as; `None` for a guest.
    account: Option<parlor_protocol::AccountInfo>,
}

impl Client {
    /// Connects to `url` (`ws://host:port`, or `wss://host:port` trusting
    /// the CAs of [`crate::tls`]) and says hello as `name`.
    pub async fn connect(url: &str, name: &str) -> Result<Client, ClientError> {
        Client::connect_as(url, name, TOKEN.get().map(String::as_str)).await
    }

    /// [`Client::connect`], as the account of the API token `token` if
    /// given (sent in `hello`; the server then shows the account's name).
    pub async fn connect_as(
        url: &str,
        name: &str,
        token: Option<&str>,
    ) -> Result<Client, ClientError> {
        let connector = if url.starts_with("wss:") {
            let config = crate::tls::config().map_err(ClientError::Tls)?;
            Some(tokio_tungstenite::Connector::Rustls(config))
        } else {
            None
        };
        let (ws, _) =
            tokio_tungstenite::connect_async_tls_with_config(url, None, false, connector).await?;
        let mut client = Client {
            ws,
            token: Uuid::nil(),
            account: None,
        };
        client
            .send(&ClientMsg::Hello {
                version: PROTOCOL_VERSION,
                name: Some(name.to_owned()),
                token: token.map(str::to_owned),
            })
            .await?;
        match client.recv().await? {
            ServerMsg::Welcome { token, account, .. } => {
                client.token = token;
                client.account = account;
                Ok(client)
            }
            ServerMsg::Error { code, message, .. } => Err(ClientError::Refused { code, message }),
            other => Err(ClientError::Protocol(format!(
                "expected welcome, got {other:?}"
            ))),
        }
    }

    /// The resume token: `resume` with it after a dropped connection.
    pub fn token(&self) -> Uuid {
        self.token
    }

    /// The account this connection plays as (`None`: a guest).
    pub fn account(&self) -> Option<&parlor_protocol::AccountInfo> {
        self.account.as_ref()
    }

    /// Sends a message.
    pub async fn send(&mut self, msg: &ClientMsg) -> Result<(), ClientError> {
        self.ws.send(Message::Text(encode(msg).into())).await?;
        Ok(())
    }

    /// The next message from the server (pings are answered by the
    /// WebSocket layer and skipped, and so are messages of types this
    /// client does not know).
    pub async fn recv(&mut self) -> Result<ServerMsg, ClientError> {
        loop {
            match self.ws.next().await {
                None => return Err(ClientError::Closed(None)),
                Some(Err(e)) => return Err(e.into()),
                Some(Ok(Message::Text(t))) => match decode_server(t.as_str()) {
                    Ok(msg) => {
                        self.answer_seed_wanted(&msg).await?;
                        return Ok(msg);
                    }
                    // A newer server's message (a type, or a value, this
                    // client does not know) is skipped: the protocol lets
                    // clients ignore what they do not understand.
                    Err(e) if has_type(t.as_str()) => {
                        tracing::debug!("skipped a server message: {}", e.message);
                    }
                    Err(e) => return Err(ClientError::Protocol(e.message)),
                },
                Some(Ok(Message::Close(frame))) => {
                    return Err(ClientError::Closed(
                        frame.map(|f| format!("{} ({})", f.reason, u16::from(f.code))),
                    ));
                }
                Some(Ok(_)) => {}
            }
        }
    }

    /// Sends a fresh seed for a seat taken for this client that waits
    /// for one (`joined` with `seed_wanted`): it comes after `joined`
    /// showed the room's commitment, so neither the server nor the other
    /// players can have chosen the deal around it. Every flow that is
    /// seated (play, bot, seek, challenge, rematch, ladder, tournament)
    /// reads its messages here, so every one contributes.
    async fn answer_seed_wanted(&mut self, msg: &ServerMsg) -> Result<(), ClientError> {
        if let ServerMsg::Joined {
            room,
            seed_wanted: true,
            ..
        } = msg
        {
            self.send(&ClientMsg::Seed {
                room: room.clone(),
                client_seed: client_seed(),
            })
            .await?;
        }
        Ok(())
    }

    /// Sends `msg` and waits for the first reply that `want` accepts; a
    /// server error arriving first is returned as `Refused`.
    pub async fn request<T>(
        &mut self,
        msg: &ClientMsg,
        mut want: impl FnMut(ServerMsg) -> Option<T>,
    ) -> Result<T, ClientError> {
        self.send(msg).await?;
        loop {
            match self.recv().await? {
                ServerMsg::Error { code, message, .. } => {
                    return Err(ClientError::Refused { code, message })
                }
                other => {
                    if let Some(t) = want(other) {
                        return Ok(t);
                    }
                }
            }
        }
    }

    /// Takes back the seats held under `token`.
    pub async fn resume(
        &mut self,
        token: Uuid,
    ) -> Result<Vec<parlor_protocol::SeatRef>, ClientError> {
        let seats = self
            .request(&ClientMsg::Resume { token }, |m| match m {
                ServerMsg::Resumed { seats, .. } => Some(seats),
                _ => None,
            })
            .await?;
        self.token = token;
        Ok(seats)
    }
}

/// Whether `text` is a JSON object with a `type`: a message, if not one
/// this client can read.
fn has_type(text: &str) -> bool {
    serde_json::from_str::<serde_json::Value>(text).is_ok_and(|v| v["type"].is_string())
}

/// A fresh client seed for `join` and `seed` (and the promise of one
/// that `seek`, `challenge`, `accept` and `rematch` carry): 16 random
/// bytes in hex, so that the
/// deal depends on something neither the server nor the other players
/// could know in advance.
pub fn client_seed() -> String {
    let bytes: [u8; 16] = rand::random();
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn messages_are_told_from_garbage() {
        assert!(has_type(r#"{"type": "from_the_future", "x": 1}"#));
        assert!(!has_type(r#"{"kind": "update"}"#));
        assert!(!has_type("not json"));
        assert!(!has_type(r#"{"type": 3}"#));
        assert!(decode_server(r#"{"type": "from_the_future"}"#).is_err());
    }
}
