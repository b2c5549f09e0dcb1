//! Talking at the table from the terminal: `/say TEXT` and `/gg` while
//! playing or watching, and the room's chat printed as it comes.

use parlor_protocol::{Channel, ChatLine, ClientMsg, ErrorCode, Phrase, RoomId};

/// A chat line the person typed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ChatCommand {
    /// `/say TEXT`: say the text.
    Say(String),
    /// `/gg`: the "Good game" phrase.
    Phrase(Phrase),
}

impl ChatCommand {
    /// The chat command a typed line is, if it is one (`/say` with no
    /// text is one, which the server refuses as empty).
    pub fn read(line: &str) -> Option<ChatCommand> {
        let line = line.trim_start();
        if line.eq_ignore_ascii_case("/gg") {
            return Some(ChatCommand::Phrase(Phrase::GoodGame));
        }
        let (word, rest) = line.split_once(' ').unwrap_or((line, ""));
        word.eq_ignore_ascii_case("/say")
            .then(|| ChatCommand::Say(rest.trim().to_owned()))
    }

    /// The message that says it in `room` (on the speaker's own channel).
    pub fn message(self, room: &RoomId) -> ClientMsg {
        let (text, phrase) = match self {
            ChatCommand::Say(text) => (Some(text), None),
            ChatCommand::Phrase(p) => (None, Some(p)),
        };
        ClientMsg::Say {
            room: room.clone(),
            text,
            phrase,
            to: None,
        }
    }
}

/// A message as the terminal shows it: `[chat] NAME: TEXT` for the
/// players', `[spectators] NAME: TEXT` for the spectators'.
pub fn shown(line: &ChatLine) -> String {
    let channel = match line.to {
        Channel::Players => "chat",
        Channel::Spectators => "spectators",
    };
    format!("[{channel}] {}: {}", line.name, line.text)
}

/// Whether a refusal is chat's (it concerns no move).
pub fn is_chat_refusal(code: ErrorCode) -> bool {
    matches!(
        code,
        ErrorCode::ChatRateLimited
            | ErrorCode::ChatMuted
            | ErrorCode::ChatBadText
            | ErrorCode::ChatNotAllowed
            | ErrorCode::ChatGuestsCasualOnly
    )
}

/// What the chat commands do, for `help`.
pub const HELP: &str = "Type `/say TEXT` to talk at the table (`/gg` says \"Good game\").";

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn say_and_gg_are_read_and_moves_are_not() {
        assert_eq!(
            ChatCommand::read("/say  good luck "),
            Some(ChatCommand::Say("good luck".into()))
        );
        assert_eq!(
            ChatCommand::read("/SAY"),
            Some(ChatCommand::Say(String::new()))
        );
        assert_eq!(
            ChatCommand::read("/gg"),
            Some(ChatCommand::Phrase(Phrase::GoodGame))
        );
        assert_eq!(ChatCommand::read("a 3"), None);
        assert_eq!(ChatCommand::read("/sayhi"), None);
    }

    #[test]
    fn lines_show_their_channel() {
        let mut line = ChatLine {
            id: 1,
            at_ms: 0,
            name: "ann".into(),
            to: Channel::Players,
            text: "hi".into(),
            phrase: None,
        };
        assert_eq!(shown(&line), "[chat] ann: hi");
        line.to = Channel::Spectators;
        assert_eq!(shown(&line), "[spectators] ann: hi");
    }
}
