"""One connection to a Parlor server: the WebSocket (ws:// or wss://),
`hello` and `welcome`, an optional API token, JSON messages out and in,
and the seeds the protocol's fair dealing asks of a player."""

from __future__ import annotations

import asyncio
import collections
import json
import ssl
from typing import Any, Callable, Deque, Dict, List, Optional, Tuple, Union

from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed, WebSocketException

from .errors import ConnectionLost, ParlorError
from .fairness import new_seed
from .message import Message

# The protocol version this client speaks (the protocol reference's
# "Handshake"); a server that answers another one is not understood.
PROTOCOL_VERSION = 1

# Refusals of a move that crossed another step or the end of a match: the
# next update asks again (or the match is over), so they are no failure.
MOVE_CROSSED_CODES = frozenset({"action/stale_seq", "action/not_your_turn"})

# Seconds for the TCP, TLS and WebSocket handshakes: the server drops a
# connection that has not said hello within 10 s, so waiting longer is moot.
OPEN_TIMEOUT = 10.0

# Messages kept aside while waiting for one reply. A wait is short (a
# request's answer) or quiet (a seek); past this many the oldest are
# dropped, which costs nothing but stale updates, each superseded by the
# next update of its room.
BACKLOG_LIMIT = 1000

# The name a guest shows when none is given.
DEFAULT_NAME = "python-bot"


def tls_context(url: str, ca_file: Optional[str]) -> Optional[ssl.SSLContext]:
    """For a wss:// URL: the system's trusted roots, plus `ca_file` (a PEM
    file, e.g. a test's own CA) if given; None for ws://."""
    if not url.startswith("wss://"):
        return None
    context = ssl.create_default_context()
    if ca_file:
        context.load_verify_locations(cafile=ca_file)
    return context


def _lost(e: ConnectionClosed) -> ConnectionLost:
    close = e.rcvd
    return ConnectionLost(close.code if close else None, close.reason if close else "")


class Connection:
    """A connection to the server at `url`, as guest `name` or as the
    account of the API token `token` (``parlor_...``).

    Open one with ``await Connection.open(url, ...)`` (or ``async with
    await Connection.open(...) as conn``). ``resume_token`` is the token
    the connection's seats are held under; ``account`` the account it
    signed in as (None for a guest); ``ws`` the underlying `websockets`
    connection.
    """

    def __init__(self, url: str, *, name: str = DEFAULT_NAME, token: Optional[str] = None,
                 ca_file: Optional[str] = None) -> None:
        self.url = url
        self.name = name
        self.api_token = token
        self.ca_file = ca_file
        self.ws: Optional[ClientConnection] = None
        self.welcome: Dict[str, Any] = {}
        self.resume_token: Optional[str] = None
        # Per room: the commitment shown, the seat held, the seed sent.
        self.commitments: Dict[str, str] = {}
        self.seats: Dict[str, int] = {}
        self.seeds: Dict[str, str] = {}
        # How often a dropped connection was replaced (see `reconnect`).
        self.reconnects = 0
        self._backlog: Deque[Message] = collections.deque(maxlen=BACKLOG_LIMIT)

    @classmethod
    async def open(cls, url: str, *, name: str = DEFAULT_NAME, token: Optional[str] = None,
                   ca_file: Optional[str] = None) -> Connection:
        """Connects and says hello; raises `ParlorError` when refused (a
        bad token: ``auth/invalid_token``) and `ConnectionLost` when the
        server cannot be reached."""
        conn = cls(url, name=name, token=token, ca_file=ca_file)
        await conn.redial()
        return conn

    @property
    def account(self) -> Optional[Message]:
        return self.welcome.get("account")

    @property
    def games(self) -> List[str]:
        return list(self.welcome.get("games", []))

    async def redial(self) -> Message:
        """Opens a fresh WebSocket and says hello (with the API token, if
        any); the `welcome`. Seats held under the old resume token stay
        there: `resume` takes them over."""
        if self.ws is not None:
            await self.ws.close()
        self._backlog.clear()
        context = tls_context(self.url, self.ca_file)
        try:
            self.ws = await connect(self.url, open_timeout=OPEN_TIMEOUT, ssl=context)
        except (OSError, asyncio.TimeoutError, WebSocketException) as e:
            raise ConnectionLost(None, str(e) or type(e).__name__) from e
        hello: Dict[str, Any] = {"type": "hello", "version": PROTOCOL_VERSION, "name": self.name}
        if self.api_token:
            hello["token"] = self.api_token
        welcome = await self.request(hello, "welcome")
        if welcome.get("version") != PROTOCOL_VERSION:
            raise ParlorError("client/version",
                              f"the server speaks protocol version {welcome.get('version')}, "
                              f"this client {PROTOCOL_VERSION}")
        if self.api_token and not welcome.get("account"):
            raise ParlorError("client/no_account", "the token was not taken: no account in welcome")
        self.welcome = welcome
        self.resume_token = welcome["token"]
        return welcome

    async def resume(self, token: str) -> List[Message]:
        """Takes back every seat held under `token` (`resume`); the seats,
        ``[{"room", "seat"}]``. A `joined` and an `update` per seat follow."""
        resumed = await self.request({"type": "resume", "token": token}, "resumed")
        self.resume_token = resumed["token"]
        return list(resumed["seats"])

    async def send(self, msg: Message) -> None:
        """Sends one message."""
        if self.ws is None:
            raise ConnectionLost(None, "not connected")
        try:
            await self.ws.send(json.dumps(msg))
        except ConnectionClosed as e:
            raise _lost(e) from e

    async def recv(self) -> Message:
        """The next message: one kept aside while waiting for a reply
        first, then the socket's. Raises `ConnectionLost`."""
        if self._backlog:
            return self._backlog.popleft()
        return await self._read()

    async def request(self, msg: Message, want: Union[str, Tuple[str, ...]],
                      room: Optional[str] = None) -> Message:
        """Sends `msg` and returns the reply of type `want` (about `room`,
        if given); a refusal raises `ParlorError`."""
        await self.send(msg)
        return await self.expect(want, room)

    async def expect(self, want: Union[str, Tuple[str, ...]], room: Optional[str] = None,
                     match: Optional[Callable[[Message], bool]] = None) -> Message:
        """Reads until a message of type `want` (or of one of the types
        `want` lists; about `room`, and for
        which `match` holds, if given) and returns it; others are kept
        for `recv`. A refusal (not of a move that crossed another step)
        that concerns no room or this `room` raises `ParlorError`."""
        types = (want,) if isinstance(want, str) else want
        while True:
            msg = await self._read()
            if msg.get("type") in types and (room is None or msg.get("room") == room) \
                    and (match is None or match(msg)):
                return msg
            if msg.get("type") == "error" and msg.get("code") not in MOVE_CROSSED_CODES \
                    and msg.get("room") in (None, room):
                raise ParlorError.from_message(msg)
            self._backlog.append(msg)

    async def close(self) -> None:
        if self.ws is not None:
            await self.ws.close()

    async def __aenter__(self) -> Connection:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    def seed_for(self, room: str) -> str:
        """A fresh client seed for `room`, kept to check the deal later."""
        seed = new_seed()
        self.seeds[room] = seed
        return seed

    async def _read(self) -> Message:
        if self.ws is None:
            raise ConnectionLost(None, "not connected")
        try:
            frame = await self.ws.recv()
        except ConnectionClosed as e:
            raise _lost(e) from e
        try:
            msg = json.loads(frame)
        except ValueError as e:
            raise ParlorError("client/bad_json", f"the server sent a frame that is not JSON: {e}") from e
        if not isinstance(msg, dict):
            raise ParlorError("client/bad_json", "the server sent JSON that is not an object")
        await self._note(msg)
        return msg

    async def _note(self, msg: Message) -> None:
        """Keeps what fair dealing needs, and answers `seed_wanted`: a seat
        taken for us (a seek, a challenge, an event's game) waits for our
        seed now that `joined` has shown the room's commitment."""
        kind, room = msg.get("type"), msg.get("room")
        if not isinstance(room, str):
            return
        if kind in ("room_created", "joined") and "commitment" in msg:
            self.commitments[room] = msg["commitment"]
        if kind == "joined":
            self.seats[room] = msg.get("seat", 0)
            if msg.get("seed_wanted"):
                await self.send({"type": "seed", "room": room, "client_seed": self.seed_for(room)})
