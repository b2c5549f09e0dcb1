//! The web client's files, embedded in the binary: nothing to install
//! beside the server, and nothing fetched from elsewhere (the page works
//! on a LAN with no internet).

/// The kinds of file the client is made of.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ContentType {
    /// The page.
    Html,
    /// Its style sheet.
    Css,
    /// A JavaScript module.
    JavaScript,
    /// A drawing.
    Svg,
    /// Data for the page (a replay's positions).
    Json,
}

impl ContentType {
    /// The `Content-Type` header's value.
    pub fn mime(self) -> &'static str {
        match self {
            ContentType::Html => "text/html; charset=utf-8",
            ContentType::Css => "text/css; charset=utf-8",
            ContentType::JavaScript => "text/javascript; charset=utf-8",
            ContentType::Svg => "image/svg+xml",
            ContentType::Json => "application/json",
        }
    }
}

/// One file, served at `path`.
#[derive(Debug, PartialEq, Eq)]
pub struct Asset {
    /// The URL path, from `/`.
    pub path: &'static str,
    /// What it is.
    pub content_type: ContentType,
    /// Its bytes.
    pub body: &'static [u8],
}

/// Lists files under `server/web/` with their types.
macro_rules! assets {
    ($($path:literal => $kind:ident),* $(,)?) => {
        &[$(Asset {
            path: concat!("/", $path),
            content_type: ContentType::$kind,
            body: include_bytes!(concat!(env!("CARGO_MANIFEST_DIR"), "/web/", $path)),
        }),*]
    };
}

/// Every file the server serves.
pub static ASSETS: &[Asset] = assets! {
    "index.html" => Html,
    "style.css" => Css,
    "favicon.svg" => Svg,
    "js/main.js" => JavaScript,
    "js/dom.js" => JavaScript,
    "js/net.js" => JavaScript,
    "js/games.js" => JavaScript,
    "js/lobby.js" => JavaScript,
    "js/room.js" => JavaScript,
    "js/replay.js" => JavaScript,
    "js/plot.js" => JavaScript,
    "js/nimrod.js" => JavaScript,
    "js/rummikub.js" => JavaScript,
    "js/cribbage.js" => JavaScript,
    "js/mitsudomoe.js" => JavaScript,
    "js/api.js" => JavaScript,
    "js/forms.js" => JavaScript,
    "js/account.js" => JavaScript,
    "js/header.js" => JavaScript,
    "js/sound.js" => JavaScript,
    "js/clocks.js" => JavaScript,
    "js/tokens.js" => JavaScript,
    "js/player.js" => JavaScript,
    "js/seek.js" => JavaScript,
    "js/challenges.js" => JavaScript,
    "js/mygames.js" => JavaScript,
    "js/waiting.js" => JavaScript,
    "js/theme.js" => JavaScript,
    "js/title.js" => JavaScript,
    "js/motion.js" => JavaScript,
    "js/pegboard.js" => JavaScript,
    "js/boards.js" => JavaScript,
    "js/leaderboard.js" => JavaScript,
    "js/ratingplot.js" => JavaScript,
    "js/playerratings.js" => JavaScript,
    "js/eventwords.js" => JavaScript,
    "js/tournaments.js" => JavaScript,
    "js/tournamentform.js" => JavaScript,
    "js/tournament.js" => JavaScript,
    "js/eventtables.js" => JavaScript,
    "js/eventnotice.js" => JavaScript,
    "js/eventchat.js" => JavaScript,
    "js/ladder.js" => JavaScript,
    "js/lib/dates.js" => JavaScript,
    "js/lib/options.js" => JavaScript,
    "js/lib/links.js" => JavaScript,
    "panels.css" => Css,
    "js/panelstyle.js" => JavaScript,
    "js/roomside.js" => JavaScript,
    "js/chat.js" => JavaScript,
    "js/report.js" => JavaScript,
    "js/modpage.js" => JavaScript,
    "js/people.js" => JavaScript,
    "js/following.js" => JavaScript,
    "js/ratingchange.js" => JavaScript,
    "js/tabs.js" => JavaScript,
    "js/turnalerts.js" => JavaScript,
};
