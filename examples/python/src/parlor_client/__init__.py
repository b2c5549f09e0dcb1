"""A small asyncio client for Parlor's WebSocket protocol, for bot
authors: connect (ws:// or wss://, as a guest or with an API token), get
a seat (a room with built-in bots, a seek, a challenge, the ladder, a
tournament) and play it with a ``choose(view, legal)`` callback; a
dropped connection is resumed. The protocol reference is
``docs/protocol/`` in Parlor's repository.

    import asyncio, random
    from parlor_client import Connection, create_room, join, play

    async def main():
        async with await Connection.open("ws://127.0.0.1:7878") as conn:
            room = await create_room(conn, "nimrod", bots={1: "random"})
            await join(conn, room, 0)
            result = await play(conn, room, lambda view, legal: random.choice(legal))
            print(result.outcome, result.won)

    asyncio.run(main())
"""

from .connection import PROTOCOL_VERSION, Connection
from .errors import ConnectionLost, MoveRefused, ParlorError
from .fairness import deal_problems, new_seed
from .game import Choose, Result, Table, play
from .http import api
from .ladder import enter_ladder, leave_ladder, play_ladder
from .reconnect import Backoff, reconnect
from .rooms import Seat, accept_challenge, challenge, create_room, join, seek
from .tournament import enter_tournament, leave_tournament, play_tournament, tournament_page

__all__ = [
    "PROTOCOL_VERSION", "Backoff", "Choose", "Connection", "ConnectionLost", "MoveRefused",
    "ParlorError", "Result", "Seat", "Table", "accept_challenge", "api", "challenge",
    "create_room", "deal_problems", "enter_ladder", "enter_tournament", "join",
    "leave_ladder", "leave_tournament", "new_seed", "play", "play_ladder", "play_tournament",
    "reconnect", "seek", "tournament_page",
]
