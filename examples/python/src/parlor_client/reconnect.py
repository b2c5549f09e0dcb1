"""Coming back after a dropped connection (a server restart, a crash, a
lost cluster node): wait a little, longer each try, connect again, say
hello with the same API token and `resume` with the resume token, which
gives back every seat held."""

from __future__ import annotations

import asyncio
import random
from typing import TYPE_CHECKING, List, Optional

from .errors import ConnectionLost, ParlorError
from .message import Message

if TYPE_CHECKING:
    from .connection import Connection

# Seconds before the first try: a restarting server is back within a
# second or so, and a few hundred milliseconds keeps a field of bots from
# all knocking at once.
FIRST_WAIT = 0.25

# The longest wait between tries: a server that is back is noticed within
# this, while a long outage costs one attempt per bot this often.
MAX_WAIT = 5.0

# Each wait is its nominal length plus or minus this share of it, so that
# bots dropped together spread their tries.
JITTER = 0.25

# Seconds of trying before giving up: longer than a restart or a cluster
# failover takes, shorter than an event's clocks would let games wait.
GIVE_UP_AFTER = 120.0

# Refusals of a `resume` that a later try may not get: a cluster that
# cannot reach its database or the room's node for a moment.
RETRY_CODES = frozenset({"server/unreachable", "server/busy"})


class Backoff:
    """The waits between tries: doubling from `FIRST_WAIT` up to
    `MAX_WAIT`, each jittered by `JITTER`."""

    def __init__(self, rng: Optional[random.Random] = None) -> None:
        self._next = FIRST_WAIT
        self._rng = rng or random.Random()

    def wait(self) -> float:
        """The next wait, in seconds."""
        nominal = self._next
        self._next = min(self._next * 2, MAX_WAIT)
        return nominal * (1 + JITTER * self._rng.uniform(-1.0, 1.0))


async def reconnect(conn: Connection, *, give_up_after: float = GIVE_UP_AFTER) -> List[Message]:
    """Replaces `conn`'s dropped WebSocket by a new one that has resumed
    its seats; the seats taken back (``[{"room", "seat"}]``, none when
    the token held none any more). Tries with `Backoff` for
    `give_up_after` seconds, then raises the last `ConnectionLost`."""
    token = conn.resume_token
    backoff = Backoff()
    loop = asyncio.get_running_loop()
    give_up = loop.time() + give_up_after
    while True:
        await asyncio.sleep(backoff.wait())
        try:
            await conn.redial()
            seats: List[Message] = []
            if token is not None:
                try:
                    seats = await conn.resume(token)
                except ParlorError as e:
                    # Nothing held under the token (every match ended
                    # meanwhile): a fresh start under the new one.
                    if e.code != "session/unknown_token":
                        raise
            conn.reconnects += 1
            return seats
        except (ConnectionLost, ParlorError) as e:
            if isinstance(e, ParlorError) and e.code not in RETRY_CODES:
                raise
            if loop.time() >= give_up:
                raise
