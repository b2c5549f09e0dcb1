"""What can go wrong, as exceptions a bot can branch on."""

from __future__ import annotations

from typing import Any, Optional

from .message import Message

# The codes of a move the rules or the move's shape refused: the position
# is unchanged and no new update will come for it.
MOVE_REFUSED_CODES = frozenset({"action/illegal_move", "action/bad_move"})

# Close codes after which connecting again would not help: another
# connection took the seats over (4001), the token or session ended
# (4002), or the server refused the connection's credentials (1008).
FINAL_CLOSE_CODES = frozenset({4001, 4002, 1008})


class ParlorError(Exception):
    """A refusal: the server's stable `code` (``area/reason``) and its
    message for people. Codes under ``client/`` come from this package
    itself (an answer it could not use), not from the server.

    `room` is the room the refusal concerns, `detail` the server's
    machine-readable details (for ``action/illegal_move``, the game's
    reason) and `status` the HTTP status for a refusal of the HTTP API.
    """

    def __init__(self, code: str, message: str, *, room: Optional[str] = None,
                 detail: Any = None, status: Optional[int] = None) -> None:
        super().__init__(f"{code}: {message}")
        self.code = code
        self.message = message
        self.room = room
        self.detail = detail
        self.status = status

    @staticmethod
    def from_message(msg: Message) -> ParlorError:
        """The exception for the server's `error` message (or HTTP error
        body) `msg`: a `MoveRefused` for a refused move."""
        kind = MoveRefused if msg.get("code") in MOVE_REFUSED_CODES else ParlorError
        return kind(str(msg.get("code", "client/unknown")), str(msg.get("message", "")),
                    room=msg.get("room"), detail=msg.get("detail"))


class MoveRefused(ParlorError):
    """A move refused as illegal or malformed (``action/illegal_move``,
    ``action/bad_move``): the position has not changed."""


class ConnectionLost(Exception):
    """The WebSocket closed or broke; `code` and `reason` are the close
    frame's, when there was one."""

    def __init__(self, code: Optional[int] = None, reason: str = "") -> None:
        super().__init__(f"connection lost (close code {code}{': ' + reason if reason else ''})")
        self.code = code
        self.reason = reason

    @property
    def mendable(self) -> bool:
        """Whether connecting again and resuming may carry on: not when
        the server closed for good reason (taken over, credentials)."""
        return self.code not in FINAL_CLOSE_CODES
