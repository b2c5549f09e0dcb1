"""The bot ladder: a bot account enters a game's ladder, and while it is
connected the server keeps pairing it in rated games (`ladder_game`)."""

from __future__ import annotations

from typing import List, Optional

from .connection import Connection
from .errors import ConnectionLost
from .game import Choose, Observe, Result, Table, carry_on, refusal


async def enter_ladder(conn: Connection, game: str) -> None:
    """Enters `game`'s ladder (a bot account only: ``ladder/bots_only``,
    ``auth/required`` and ``ladder/off`` are raised as `ParlorError`)."""
    await conn.request({"type": "ladder_join", "game": game}, "ladder_joined")


async def leave_ladder(conn: Connection, game: str) -> None:
    """Leaves `game`'s ladder; its games being played go on."""
    await conn.request({"type": "ladder_leave", "game": game}, "ladder_left")


async def play_ladder(conn: Connection, game: str, choose: Choose, games: int, *,
                      observe: Optional[Observe] = None, resume: bool = True) -> List[Result]:
    """Enters `game`'s ladder, joins every seat it gives (`ladder_game`,
    or `my_games` for games of an earlier run), several at once, and once
    `games` are taken leaves the ladder and plays out the ones held (with
    any given meanwhile: at least `games`); their results, in the order
    they ended. A dropped connection is replaced,
    as in `play`; the ladder keeps the entry meanwhile."""
    await enter_ladder(conn, game)
    await conn.send({"type": "my_games"})
    table = Table(choose, observe)
    taken: List[str] = []
    entered = True
    while entered or len(table.results) < len(taken):
        try:
            if entered and len(taken) >= games:
                await conn.send({"type": "ladder_leave", "game": game})
                entered = False
            msg = await conn.recv()
            kind = msg.get("type")
            offered = []
            if kind == "ladder_game" and msg.get("game") == game:
                offered = [(msg["room"], msg["seat"])]
            elif kind == "games":
                offered = [(g["room"], g["seat"]) for g in msg.get("games", []) if g.get("game") == game]
            for room, seat in offered:
                # A game given before the leave took effect is ours too:
                # unplayed, it would be lost on time.
                if room not in taken:
                    taken.append(room)
                    await conn.send({"type": "join", "room": room, "seat": seat,
                                     "client_seed": conn.seed_for(room)})
            if kind == "update" and msg.get("room") in taken:
                await table.on_update(conn, msg)
            elif kind == "error":
                error = refusal(msg, taken)
                if error is not None:
                    raise error
        except ConnectionLost as lost:
            if not resume or not lost.mendable:
                raise
            await carry_on(conn, table, taken)
            if not entered:
                # The leave may not have arrived: say it again.
                await conn.send({"type": "ladder_leave", "game": game})
    return list(table.results.values())
