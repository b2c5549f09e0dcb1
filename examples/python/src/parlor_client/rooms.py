"""Getting a seat: make a room (with built-in bots in it), join one, seek
opponents, challenge a player or accept a challenge."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Dict, Mapping, Optional

from .connection import Connection
from .errors import ParlorError
from .fairness import new_seed


@dataclass(frozen=True)
class Seat:
    """A seat held in a room."""

    room: str
    seat: int


def _extra(options: Any, clock: Any) -> Dict[str, Any]:
    out: Dict[str, Any] = {}
    if options is not None:
        out["options"] = options
    if clock is not None:
        out["clock"] = clock
    return out


async def create_room(conn: Connection, game: str, *, seats: Optional[int] = None,
                      options: Any = None, clock: Any = None,
                      bots: Optional[Mapping[int, str]] = None) -> str:
    """Makes a room of `game` (the game's fewest seats, default options
    and no clock unless given) and seats a built-in bot of the strategy
    `bots[seat]` in each seat named there; the room's id."""
    create: Dict[str, Any] = {"type": "create_room", "game": game, **_extra(options, clock)}
    if seats is not None:
        create["seats"] = seats
    room = (await conn.request(create, "room_created"))["room"]
    for seat, strategy in sorted((bots or {}).items()):
        await conn.request({"type": "add_bot", "room": room, "seat": seat, "strategy": strategy},
                           "bot_added", room)
    return str(room)


async def join(conn: Connection, room: str, seat: Optional[int] = None) -> Seat:
    """Takes `seat` in `room` (any free one, or the account's own, if not
    given), with a fresh client seed; the seat held."""
    msg: Dict[str, Any] = {"type": "join", "room": room, "client_seed": conn.seed_for(room)}
    if seat is not None:
        msg["seat"] = seat
    joined = await conn.request(msg, "joined", room)
    return Seat(room, int(joined["seat"]))


async def seek(conn: Connection, game: str, *, seats: Optional[int] = None,
               options: Any = None, clock: Any = None, rated: bool = False) -> Seat:
    """Seeks a match of `game` and waits until one is found; the seat the
    match gives. A seek lost with a cluster node is sent again; one that
    ended otherwise raises `ParlorError` (``seek/ended``)."""
    # The seed says this client answers `seed_wanted`; the deal never
    # uses it, the server having seen it before the room existed.
    msg: Dict[str, Any] = {"type": "seek", "game": game, "rated": rated,
                           "client_seed": new_seed(), **_extra(options, clock)}
    if seats is not None:
        msg["seats"] = seats
    while True:
        seek_id = (await conn.request(msg, "seeking"))["seek"]
        found = await conn.expect(("matched", "seek_ended"), match=lambda m: m.get("seek") == seek_id)
        if found["type"] == "matched":
            return Seat(str(found["room"]), int(found["seat"]))
        if found.get("reason") != "lost":
            raise ParlorError("seek/ended", f"the seek ended unmatched: {found.get('reason')}")
        # Lost with a cluster node that went away: seek again.


async def challenge(conn: Connection, to: str, game: str, *, options: Any = None,
                    clock: Any = None, rated: bool = False) -> str:
    """Challenges account `to` to a two-seat match of `game` and waits
    for the answer; the room, once accepted. Declined, expired or
    withdrawn: `ParlorError` (``challenge/declined``, ...)."""
    msg = {"type": "challenge", "to": to, "game": game, "rated": rated,
           "client_seed": new_seed(), **_extra(options, clock)}
    made = await conn.request(msg, "challenge_made")
    return await _challenge_room(conn, made["challenge"])


async def accept_challenge(conn: Connection, challenge_id: Optional[int] = None) -> str:
    """Accepts challenge `challenge_id`, or else waits for the next
    challenge made to this connection's account and accepts it; the
    room."""
    if challenge_id is None:
        me = (conn.account or {}).get("name")
        made = await conn.expect("challenge_made", match=lambda m: m.get("to") == me)
        challenge_id = int(made["challenge"])
    await conn.send({"type": "accept", "challenge": challenge_id,
                     "client_seed": new_seed()})
    return await _challenge_room(conn, challenge_id)


async def _challenge_room(conn: Connection, challenge_id: int) -> str:
    ended = await conn.expect("challenge_ended", match=lambda m: m.get("challenge") == challenge_id)
    if ended.get("end") != "accepted":
        raise ParlorError(f"challenge/{ended.get('end')}",
                          f"the challenge ended {ended.get('end')}"
                          + (f" ({ended['reason']})" if "reason" in ended else ""))
    return str(ended["room"])
