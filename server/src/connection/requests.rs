//! Answering each request a client sends.

use std::sync::Arc;

use parlor_games::GameKind;
use parlor_protocol::{
    encode, negotiate, ClientMsg, ErrorCode, RoomId, ServerMsg, MIN_PROTOCOL_VERSION,
    PROTOCOL_VERSION,
};
use tokio_tungstenite::tungstenite::Utf8Bytes;
use uuid::Uuid;

use super::entries::Entry;
use super::standing::MayPlay;
use super::Session;
use crate::directory::{ListQuery, NewRoom};
use crate::limits::MAX_NAME_CHARS;
use crate::outbox::CLOSE_TAKEN_OVER;
use crate::room::RoomRequest;

impl Session {
    pub(super) async fn on_msg(&mut self, msg: ClientMsg) {
        match msg {
            // Answered by `hello`, from `on_text` (it may close).
            ClientMsg::Hello { .. } => {}
            ClientMsg::Resume { token } => self.resume(token).await,
            ClientMsg::ListRooms {
                game,
                status,
                cursor,
                limit,
            } => self.list_rooms(game, status, cursor, limit).await,
            ClientMsg::CreateRoom {
                game,
                seats,
                options,
                clock,
                private,
            } => {
                if self.may_play(None).await == MayPlay::Refused {
                    return;
                }
                let req = NewRoom {
                    game,
                    seats,
                    options,
                    clock,
                    private,
                    creator: Some(self.token),
                    creator_addr: Some(self.peer.addr),
                    rated: false,
                    by_account: self.account.is_some(),
                    scheduled: None,
                    matched: Vec::new(),
                };
                let answer = match self.shared.directory.create(req).await {
                    Ok(c) => ServerMsg::RoomCreated {
                        room: c.room,
                        game,
                        seats: c.seats,
                        commitment: c.commitment,
                    },
                    Err(refused) => refused.into(),
                };
                self.out.send(&answer);
            }
            ClientMsg::Join {
                room,
                seat,
                client_seed,
            } => {
                if self.may_play(Some(&room)).await == MayPlay::Refused {
                    return;
                }
                self.forward(
                    room,
                    RoomRequest::Join {
                        seat,
                        client_seed,
                        await_seed: false,
                    },
                    true,
                )
            }
            ClientMsg::Spectate { room } => self.forward(room, RoomRequest::Spectate, true),
            ClientMsg::AddBot {
                room,
                seat,
                strategy,
            } => self.forward(room, RoomRequest::AddBot { seat, strategy }, false),
            ClientMsg::Play {
                room,
                seat,
                seq,
                mv,
            } => self.forward(room, RoomRequest::Play { seat, seq, mv }, false),
            ClientMsg::Leave { room } => self.forward(room, RoomRequest::Leave, false),
            ClientMsg::Abort { room } => self.forward(room, RoomRequest::Abort, false),
            ClientMsg::GetLog { room, predict } => self.get_log(room, predict).await,
            ClientMsg::Analyze { game, tool, input } => self.analyze(game, tool, input),
            ClientMsg::Seek {
                game,
                seats,
                options,
                clock,
                rated,
                bots,
                bots_after_ms,
                client_seed,
            } => {
                if !self.promise_seed(client_seed.as_deref()) {
                    return;
                }
                self.seek(super::asks::SeekAsk {
                    game,
                    seats,
                    options,
                    clock,
                    rated,
                    bots,
                    bots_after_ms,
                })
                .await
            }
            ClientMsg::CancelSeek { seek } => self.cancel_seek(seek).await,
            ClientMsg::Challenge {
                to,
                game,
                options,
                clock,
                rated,
                seat,
                client_seed,
            } => {
                if !self.promise_seed(client_seed.as_deref()) {
                    return;
                }
                self.challenge(super::asks::ChallengeAsk {
                    to,
                    game,
                    options,
                    clock,
                    rated,
                    seat,
                })
                .await
            }
            ClientMsg::CancelChallenge { challenge } => self.cancel_challenge(challenge).await,
            ClientMsg::Accept {
                challenge,
                client_seed,
            } => {
                if self.promise_seed(client_seed.as_deref()) {
                    self.accept(challenge).await;
                }
            }
            ClientMsg::Decline { challenge, reason } => self.decline(challenge, reason).await,
            ClientMsg::Rematch { room, client_seed } => {
                if self.may_play(Some(&room)).await == MayPlay::Refused {
                    return;
                }
                if self.promise_seed(client_seed.as_deref()) {
                    self.rematch(room);
                }
            }
            ClientMsg::Seed { room, client_seed } => {
                self.forward(room, RoomRequest::Seed { client_seed }, false)
            }
            ClientMsg::MyGames => self.my_games().await,
            ClientMsg::CreateTournament(req) => self.create_tournament(*req).await,
            ClientMsg::JoinTournament { id } => {
                if self.may_play(None).await != MayPlay::Refused {
                    self.entry(Entry::TournamentJoin(id)).await
                }
            }
            ClientMsg::LeaveTournament { id } => self.entry(Entry::TournamentLeave(id)).await,
            ClientMsg::LadderJoin { game } => {
                if self.may_play(None).await != MayPlay::Refused {
                    self.entry(Entry::LadderJoin(game)).await
                }
            }
            ClientMsg::LadderLeave { game } => self.entry(Entry::LadderLeave(game)).await,
            ClientMsg::Say {
                room,
                text,
                phrase,
                to,
            } => self.say(room, text, phrase, to).await,
            ClientMsg::Ping { id } => {
                self.out.send(&ServerMsg::Pong { id });
            }
        }
    }

    /// Answers `hello`. A token (in `hello`, or a bearer token or session
    /// cookie on the upgrade) makes the connection its account's, under
    /// the account's name; a token that is not valid is refused with
    /// `auth/invalid_token` and the connection closed (rather than going
    /// on as a guest: a bot whose token was revoked must notice, not play
    /// unnamed). A guest's name must hold only what an account name may
    /// and must not be an account's: else `room/bad_name`, and the
    /// connection may say `hello` again with another name.
    pub(super) async fn hello(
        &mut self,
        version: u32,
        name: Option<String>,
        token: Option<String>,
    ) -> Option<super::drive::Flow> {
        if self.greeted {
            self.out.send(&ServerMsg::error(
                ErrorCode::RequestHelloTwice,
                "hello was already accepted",
            ));
            return None;
        }
        let Some(version) = negotiate(version) else {
            self.out.send(&ServerMsg::error(
                ErrorCode::ProtocolVersion,
                // Not echoing the number: a negative one was read as 0.
                format!("this server speaks protocol versions {MIN_PROTOCOL_VERSION} to {PROTOCOL_VERSION} (or any higher one, answered with {PROTOCOL_VERSION}); versions below {MIN_PROTOCOL_VERSION} do not exist"),
            ));
            return None;
        };
        let credential = token
            .map(crate::accounts::Credential::Bearer)
            .or_else(|| self.credential.take());
        if let Some(credential) = credential {
            // Bound before the check: a credential that ends during it
            // still finds this connection.
            if let Some(hash) = credential.hash() {
                self.shared.directory.bind_credential(self.conn, hash);
            }
            match self.shared.accounts.by_credential(&credential).await {
                Ok(account) => {
                    self.shared
                        .matchmaker
                        .sign_in(&crate::accounts::name_key(&account.name), self.conn);
                    self.account = Some(account);
                }
                Err(e) => {
                    let code = match e {
                        crate::accounts::AccountError::InvalidToken => ErrorCode::AuthInvalidToken,
                        crate::accounts::AccountError::Closed => ErrorCode::AuthClosed,
                        _ => ErrorCode::ServerBusy,
                    };
                    self.out.send(&ServerMsg::error(code, e.to_string()));
                    return Some(super::drive::Flow::Close(1008, code));
                }
            }
        }
        let name: String = name
            .unwrap_or_default()
            .chars()
            .take(MAX_NAME_CHARS)
            .collect();
        let name = name.trim();
        let name = if name.is_empty() { "anonymous" } else { name };
        self.name = match &self.account {
            Some(account) => Arc::from(account.name.as_str()),
            None => {
                if let Err(e) = crate::accounts::check_guest_name(name) {
                    self.out.send(&ServerMsg::error(
                        ErrorCode::RoomBadName,
                        format!("{e}: a guest's name follows an account name's rules; say hello again with another name"),
                    ));
                    return None;
                }
                if self.shared.accounts.is_taken(name).await {
                    self.out.send(&ServerMsg::error(
                        ErrorCode::RoomBadName,
                        format!("{name:?} is an account's name: log in as it, or say hello again with another name"),
                    ));
                    return None;
                }
                Arc::from(name)
            }
        };
        self.greeted = true;
        self.out.send(&ServerMsg::Welcome {
            version,
            session: Uuid::new_v4(),
            token: self.token,
            games: GameKind::ALL.to_vec(),
            account: self.account.as_ref().map(|a| parlor_protocol::AccountInfo {
                name: a.name.clone(),
                kind: a.kind.as_str().to_owned(),
                role: Some(a.standing.role.as_str().to_owned()),
            }),
        });
        if let Some(account) = &self.account {
            // Challenges made before this connection signed in.
            let key = crate::accounts::name_key(&account.name);
            for info in self.shared.matchmaker.challenges_to(&key).await {
                self.out.send(&ServerMsg::ChallengeMade(info));
            }
        }
        None
    }

    async fn list_rooms(
        &mut self,
        game: Option<GameKind>,
        status: Option<parlor_protocol::RoomStatus>,
        cursor: Option<String>,
        limit: Option<u32>,
    ) {
        let after = match cursor {
            None => None,
            Some(c) => match RoomId::new(c) {
                Some(id) => Some(id),
                None => {
                    self.out.send(&ServerMsg::error(
                        ErrorCode::RequestMalformed,
                        "the cursor is not one a `rooms` page gave",
                    ));
                    return;
                }
            },
        };
        let directory = Arc::clone(&self.shared.directory);
        let page = directory
            .list(&ListQuery {
                game,
                status,
                after,
                limit,
            })
            .await;
        self.out.send(&match page {
            Ok(page) => ServerMsg::Rooms {
                rooms: page.rooms,
                next: page.next,
            },
            Err(refused) => refused.into(),
        });
    }

    async fn resume(&mut self, token: Uuid) {
        let directory = Arc::clone(&self.shared.directory);
        if token != self.token && !directory.seats_of(self.token).is_empty() {
            // Switching tokens would strand the seats taken under this one.
            self.out.send(&ServerMsg::error(
                ErrorCode::SessionResumeConflict,
                "this connection already holds seats under its own token; resume on a new connection",
            ));
            return;
        }
        let seats = match directory.seats_for_resume(token).await {
            Ok(seats) => seats,
            Err(e) => {
                self.out.send(&ServerMsg::error(
                    ErrorCode::ServerUnreachable,
                    format!("your seats cannot be looked up now ({e}); try again shortly"),
                ));
                return;
            }
        };
        if seats.is_empty() {
            self.out.send(&ServerMsg::error(
                ErrorCode::SessionUnknownToken,
                "no seat is held under that resume token",
            ));
            return;
        }
        // This connection now speaks for the token; its seats are shown
        // here, and a connection that spoke for it before is told and
        // closed (unless it is this account's: then both go on).
        self.detach_all();
        directory.release(self.token, self.conn);
        self.token = token;
        let account = self
            .account
            .as_ref()
            .map(|a| crate::accounts::name_key(&a.name));
        if let Some(old) = directory.take_over(token, self.conn, account.as_deref()) {
            old.send(&ServerMsg::error(
                ErrorCode::SessionTakenOver,
                "your session was resumed on another connection",
            ));
            old.close(CLOSE_TAKEN_OVER, ErrorCode::SessionTakenOver);
        }
        self.out.send(&ServerMsg::Resumed {
            token,
            seats: seats.clone(),
        });
        let mut rooms: Vec<RoomId> = seats.into_iter().map(|s| s.room).collect();
        rooms.dedup();
        for room in rooms {
            self.forward(room, RoomRequest::Resume, true);
        }
    }

    /// Every accepted step is in the store before anyone hears of it, so
    /// the store answers for live rooms and closed ones alike.
    async fn get_log(&mut self, room: RoomId, predict: bool) {
        let directory = Arc::clone(&self.shared.directory);
        match crate::chat::log_with_chat(directory.store(), room.clone()).await {
            Ok(Some(log))
                if (log.outcome.is_some() || log.closed.is_some())
                    && !directory.store().embargoed(&log).await.unwrap_or(true) =>
            {
                let game = log.header.game;
                let analysis = predict.then(|| parlor_protocol::log_analysis(&log));
                // A long match's log is hundreds of kilobytes of JSON:
                // encoded off the shard, whose other connections would
                // wait for it (measured: move p99 x2.8 at 5,000 moves/s
                // beside 18 logs of 4,000 steps a second).
                match tokio::task::spawn_blocking(move || encode(&ServerMsg::Log(log))).await {
                    Ok(text) => {
                        self.out.send_text(Utf8Bytes::from(text));
                    }
                    Err(e) => {
                        tracing::error!(error = %e, "encoding a log failed");
                        self.out.send(&ServerMsg::room_error(
                            &room,
                            ErrorCode::ServerInternal,
                            "the log could not be encoded",
                        ));
                        return;
                    }
                }
                match analysis {
                    None => {}
                    Some(Some(Ok((tool, input)))) => self.analyze(game, tool.into(), input),
                    Some(Some(Err(e))) => {
                        self.out.send(&ServerMsg::room_error(
                            &room,
                            ErrorCode::AnalysisBadInput,
                            e.to_string(),
                        ));
                    }
                    Some(None) => {
                        self.out.send(&ServerMsg::room_error(
                            &room,
                            ErrorCode::AnalysisUnknownTool,
                            format!("{game} offers no analysis of a finished match"),
                        ));
                    }
                }
            }
            Ok(Some(log)) => {
                let why = if log.outcome.is_some() || log.closed.is_some() {
                    "this game shares its deal with games still being played; its log is public once they are over"
                } else {
                    "the log is public once the match is over"
                };
                self.out.send(&ServerMsg::room_error(
                    &room,
                    ErrorCode::RoomNotFinished,
                    why,
                ));
            }
            Ok(None) => {
                self.out.send(&ServerMsg::room_error(
                    &room,
                    ErrorCode::RoomNotFound,
                    format!("no room {room}"),
                ));
            }
            Err(e) => {
                self.out.send(&ServerMsg::room_error(
                    &room,
                    ErrorCode::ServerStorage,
                    e.to_string(),
                ));
            }
        }
    }
}
