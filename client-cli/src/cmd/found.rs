//! Playing a match that a seek or a challenge found, as `parlor play`
//! plays a room, then the rematches the players agree to.

use std::io::{IsTerminal, Write};

use parlor_cli::input::Input;
use parlor_cli::lobby::Seated;
use parlor_cli::play::{play_seated, Ending, PlayOptions};
use parlor_cli::rematch::{self, Offer};
use parlor_cli::Client;
use parlor_games::GameKind;
use serde_json::Value;
use tokio::sync::mpsc;

/// How to play found matches.
#[derive(Debug)]
pub struct Found {
    /// The game.
    pub game: GameKind,
    /// The server's URL (for the printed resume command).
    pub server: String,
    /// Display name of a guest.
    pub name: String,
    /// Show error codes beside refusals.
    pub verbose: bool,
    /// `--rematch`: offer one after every match without asking.
    pub rematch: bool,
}

impl Found {
    /// Whether and how to offer rematches: ask a person at a terminal,
    /// offer at once with `--rematch`, else (a script) not at all.
    fn offer(&self) -> Option<Offer> {
        if self.rematch {
            Some(Offer::Always)
        } else if std::io::stdin().is_terminal() {
            Some(Offer::Ask)
        } else {
            None
        }
    }
}

/// Plays the match at `seated`, then any rematches; how the last ended.
pub async fn play_found(
    client: &mut Client,
    found: &Found,
    mut seated: Seated,
    input: &mut mpsc::Receiver<Input>,
    out: &mut impl Write,
) -> Result<Ending, String> {
    loop {
        let opts = PlayOptions {
            game: found.game,
            name: found.name.clone(),
            room: Some(seated.room.clone()),
            seat: Some(seated.seat),
            vs: None,
            seats: None,
            options: Value::Null,
            clock: None,
            resume: None,
            server: found.server.clone(),
            private: false,
            verbose: found.verbose,
        };
        let ending = play_seated(client, &opts, seated.room.clone(), seated.seat, input, out)
            .await
            .map_err(|e| e.to_string())?;
        let _ = out.flush();
        let (Ending::Finished(_) | Ending::Closed, Some(how)) = (&ending, found.offer()) else {
            return Ok(ending);
        };
        match rematch::offer(client, &seated.room, how, input, out)
            .await
            .map_err(|e| e.to_string())?
        {
            Some(next) => seated = next,
            None => return Ok(ending),
        }
    }
}
