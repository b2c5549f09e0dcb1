"""Tournaments: enter an event, play every game its rounds seat this
account in, until the event's page says it is over."""

from __future__ import annotations

import asyncio
from typing import List, Optional, Set, Tuple

from .connection import Connection
from .errors import ConnectionLost, ParlorError
from .game import Choose, Observe, Result, Table, carry_on, refusal
from .http import api
from .message import Message

# Seconds between two reads of the event's page, which alone tells that
# the event is over: soon enough after its last game, and one small
# request a second per bot.
PAGE_POLL = 1.0

# The page's statuses of an event that will seat nobody any more.
OVER = frozenset({"finished", "cancelled"})


async def enter_tournament(conn: Connection, tournament: str) -> bool:
    """Enters event `tournament` (an account only); False when it was
    entered already (also once it runs: a bot started again carries on).
    Other refusals (``tournament/started``, ``tournament/full``, ...)
    raise `ParlorError`."""
    try:
        await conn.request({"type": "join_tournament", "id": tournament}, "tournament_joined")
    except ParlorError as e:
        if e.code == "tournament/already_entered":
            return False
        # A running event refuses every entry, its own players' too.
        if e.code == "tournament/started" and await entered(conn, tournament):
            return False
        raise
    return True


async def entered(conn: Connection, tournament: str) -> bool:
    """Whether this connection's account plays in event `tournament`
    (entered, not withdrawn), by the event's page."""
    me = str((conn.account or {}).get("name", "")).lower()
    players = (await tournament_page(conn, tournament)).get("players", [])
    return any(str(p.get("name", "")).lower() == me and not p.get("withdrawn") for p in players)


async def leave_tournament(conn: Connection, tournament: str) -> None:
    """Leaves (or, once it runs, withdraws from) event `tournament`."""
    await conn.request({"type": "leave_tournament", "id": tournament}, "tournament_left")


async def tournament_page(conn: Connection, tournament: str) -> Message:
    """The event's page over the HTTP API: status, rounds, standings..."""
    page = await api(conn.url, "GET", f"/api/tournaments/{tournament}", ca_file=conn.ca_file)
    return dict(page)


async def play_tournament(conn: Connection, tournament: str, choose: Choose, *,
                          observe: Optional[Observe] = None,
                          resume: bool = True) -> Tuple[List[Result], Message]:
    """Enters event `tournament` (unless entered already) and plays every
    game it is seated in (a duplicate set's two at once), joining each
    seat the event announces (`tournament_game`) or `my_games` lists,
    until the event's page says it is over; the games' results and the
    last page (its ``status`` and ``standings``)."""
    await enter_tournament(conn, tournament)
    game = (await tournament_page(conn, tournament))["game"]
    await conn.send({"type": "my_games"})
    table = Table(choose, observe)
    rooms: Set[str] = set()
    loop = asyncio.get_running_loop()
    next_check = 0.0
    # The read in progress: left running across page checks rather than
    # cancelled, since a read cut short could lose a message or a seed.
    reading: Optional[asyncio.Future[Message]] = None
    try:
        while True:
            if loop.time() >= next_check:
                next_check = loop.time() + PAGE_POLL
                page = await tournament_page(conn, tournament)
                if page.get("status") in OVER:
                    return list(table.results.values()), page
            reading = reading or asyncio.ensure_future(conn.recv())
            done, _ = await asyncio.wait({reading}, timeout=PAGE_POLL)
            if not done:
                continue
            read, reading = reading, None
            try:
                if await on_message(conn, tournament, game, read.result(), table, rooms):
                    next_check = 0.0
            except ConnectionLost as lost:
                if not resume or not lost.mendable:
                    raise
                await carry_on(conn, table, rooms)
                await conn.send({"type": "my_games"})
    finally:
        if reading is not None:
            reading.cancel()


async def on_message(conn: Connection, tournament: str, game: str, msg: Message,
                     table: Table, rooms: Set[str]) -> bool:
    """Joins the seats `msg` offers, plays its update, raises its refusal;
    whether the event's page should be read at once (it was cancelled)."""
    kind = msg.get("type")
    offered = []
    if kind == "tournament_game" and msg.get("tournament") == tournament:
        offered = [(msg["room"], msg["seat"])]
    elif kind == "games":
        offered = [(g["room"], g["seat"]) for g in msg.get("games", []) if g.get("game") == game]
    for room, seat in offered:
        if room not in rooms:
            rooms.add(room)
            await conn.send({"type": "join", "room": room, "seat": seat,
                             "client_seed": conn.seed_for(room)})
    if kind == "update" and msg.get("room") in rooms:
        await table.on_update(conn, msg)
    elif kind == "error":
        error = refusal(msg, rooms)
        if error is not None:
            raise error
    return kind == "tournament_cancelled" and msg.get("tournament") == tournament
