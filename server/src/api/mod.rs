//! The HTTP endpoints: what a request other than a WebSocket upgrade
//! means, and its answer. `http` is the wire underneath (heads, bodies,
//! writing answers); nothing here parses or writes bytes itself.
//!
//! - [`route`](mod@route): the one route table: every `/api/...` path, the replay's,
//!   `/healthz` and `/metrics`; any other path is the web client's files
//!   (`http::route`).
//! - [`error`]: [`ApiError`], the one error of every endpoint, built from
//!   each domain's own error and mapped in one place to an HTTP status
//!   and an `ErrorCode` (the catalogue the WebSocket uses too); answered
//!   as `{"code": "area/reason", "message": ...}`.
//! - [`serve`](mod@serve): a JSON endpoint's answer: its body (at most
//!   [`MAX_API_BODY_BYTES`], `Content-Length` only) read whole, so the
//!   connection can be kept alive after it, the handler run, the answer
//!   written.
//! - [`auth`]: the credentials a request presents (bearer token, session
//!   cookie, HTTP Basic for a new token) and the cookie's origin check.
//! - The endpoints: [`accounts`] (accounts, login, logout, tokens),
//!   [`password`] (changing it, ending other credentials), [`players`],
//!   [`ratings`], [`tournaments`], [`event_chat`] (a tournament page's
//!   chat), [`ladder`], [`reports`] (players'
//!   reports and the moderators' queue), [`blocks`], [`fairplay`] (the
//!   moderators' fair-play review), [`moderation`] (the moderators'
//!   actions and log), [`logs`] (many finished matches' logs at once, for
//!   verifiers); and in plain
//!   form [`replay`], [`openapi`] (the API's OpenAPI document) and
//!   [`ops`] (health, metrics, and the operations listener).

pub mod accounts;
pub mod auth;
pub mod blocks;
pub mod error;
pub mod event_chat;
pub mod fairplay;
pub mod follows;
pub mod ladder;
pub mod logs;
pub mod moderation;
pub mod openapi;
pub mod ops;
pub mod password;
pub mod players;
pub mod query;
pub mod ratings;
pub mod replay;
pub mod reports;
pub mod route;
pub mod serve;
pub mod tournaments;

pub use auth::{bearer, origin_allowed, session_cookie, SESSION_COOKIE};
pub use error::ApiError;
pub use ops::{answer, serve_ops, Context, MAX_OPS_CONNECTIONS};
pub use replay::MAX_REPLAY_STEPS;
pub use route::{route, Endpoint, Plain, Route, HEALTH_PATH, METRICS_PATH, REPLAY_PREFIX};
pub use serve::{serve, ApiRequest, API_BODY_TIMEOUT, MAX_API_BODY_BYTES};
