"""The game loop: for every update that asks this client to act, call
``choose(view, legal)`` and send the move it returns, once per `seq`,
until the match ends (the protocol reference's "How a bot plays")."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Dict, Iterable, List, Optional

from .connection import MOVE_CROSSED_CODES, Connection
from .errors import ConnectionLost, ParlorError
from .message import Message
from .reconnect import reconnect

# Builds a move from the seat's view and its legal moves (None when the
# update leaves them out: more than 512, or a game that does not list
# them). Returns the move as the game's JSON value.
Choose = Callable[[Any, Optional[List[Any]]], Any]

# Sees every update of the rooms played, before `choose` is asked.
Observe = Callable[[Message], None]


@dataclass
class Result:
    """How a match ended for the seat played."""

    room: str
    seat: Optional[int]
    # `{"result": "win", "winners": [...]}` or `{"result": "draw"}`; None
    # when the room closed without one (see `closed`).
    outcome: Optional[Message]
    # Why the room closed without an outcome (`aborted`, `abandoned`...).
    closed: Optional[str]
    # Moves this client sent in the match.
    moves: int

    @property
    def won(self) -> bool:
        return self.outcome is not None and self.outcome.get("result") == "win" \
            and self.seat in self.outcome.get("winners", [])

    @property
    def drawn(self) -> bool:
        return self.outcome is not None and self.outcome.get("result") == "draw"

    @property
    def lost(self) -> bool:
        return self.outcome is not None and not self.won and not self.drawn


class Table:
    """The seats one connection plays, in any number of rooms at once:
    answers each update that asks for a move, once per `seq`."""

    def __init__(self, choose: Choose, observe: Optional[Observe] = None) -> None:
        self.choose = choose
        self.observe = observe
        self.answered: Dict[str, int] = {}
        self.moves: Dict[str, int] = {}
        self.results: Dict[str, Result] = {}

    async def on_update(self, conn: Connection, msg: Message) -> Optional[Result]:
        """Plays update `msg`: sends `choose`'s move when the seat is to
        act and this `seq` is unanswered; the result once the match is
        over (the first time only)."""
        room = str(msg["room"])
        if room in self.results:
            return None
        if self.observe is not None:
            self.observe(msg)
        you = msg.get("you")
        if msg.get("status") == "finished":
            result = Result(room, you, msg.get("outcome"), msg.get("closed"), self.moves.get(room, 0))
            self.results[room] = result
            return result
        if you is None or you not in msg.get("to_act", []) or self.answered.get(room) == msg["seq"]:
            return None
        move = self.choose(msg.get("view"), msg.get("legal"))
        self.answered[room] = msg["seq"]
        self.moves[room] = self.moves.get(room, 0) + 1
        await conn.send({"type": "play", "room": room, "seat": you, "seq": msg["seq"], "move": move})
        return None

    def forget_answers(self) -> None:
        """After a reconnection: the moves in flight may not have arrived,
        so the resumed update of an answered `seq` is asked again."""
        self.answered.clear()


async def carry_on(conn: Connection, table: Table, rooms: Iterable[str]) -> None:
    """After a dropped connection: connects again and resumes (see
    `reconnect`); a room of `rooms` whose seat came not back had its
    match end meanwhile, and gets its result from the log."""
    seats = await reconnect(conn)
    table.forget_answers()
    resumed = {s.get("room") for s in seats}
    for room in rooms:
        if room not in resumed and room not in table.results:
            log = await conn.request({"type": "get_log", "room": room}, "log", room)
            table.results[room] = Result(room, conn.seats.get(room), log.get("outcome"),
                                         log.get("closed"), table.moves.get(room, 0))


def refusal(msg: Message, rooms: Any) -> Optional[ParlorError]:
    """The error to raise for `error` message `msg` while playing `rooms`:
    None for a move that crossed another step, or a room not played."""
    if msg.get("code") in MOVE_CROSSED_CODES:
        return None
    room = msg.get("room")
    if room is not None and room not in rooms:
        return None
    return ParlorError.from_message(msg)


async def play(conn: Connection, room: str, choose: Choose, *,
               observe: Optional[Observe] = None, resume: bool = True) -> Result:
    """Plays the connection's seat in `room` until the match ends; its
    result. A refused move raises `MoveRefused` (the position is
    unchanged), any other refusal `ParlorError`. With `resume`, a dropped
    connection is replaced and the seat resumed (see `reconnect`)."""
    table = Table(choose, observe)
    while True:
        try:
            msg = await conn.recv()
            kind = msg.get("type")
            if kind == "update" and msg.get("room") == room:
                result = await table.on_update(conn, msg)
                if result is not None:
                    return result
            elif kind == "error":
                error = refusal(msg, {room})
                if error is not None:
                    raise error
        except ConnectionLost as lost:
            if not resume or not lost.mendable:
                raise
            await carry_on(conn, table, [room])
            if room in table.results:
                return table.results[room]
