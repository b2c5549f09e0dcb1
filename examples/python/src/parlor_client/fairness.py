"""Client seeds and the check of a revealed deal (the protocol
reference's "Fair dealing": the server commits to its seed, every player
adds one after seeing the commitment, the log reveals them all)."""

from __future__ import annotations

import hashlib
import secrets
from typing import List, Optional

from .message import Message

# Bytes of randomness in a seed: 64 bits is more than anyone can grind
# against, and its hex form stays far below the protocol's 64 characters.
SEED_BYTES = 8


def new_seed() -> str:
    """A fresh client seed (hex digits, as the protocol allows)."""
    return secrets.token_hex(SEED_BYTES)


def deal_problems(deal: Message, commitment: Optional[str], seat: Optional[int],
                  seed: Optional[str]) -> List[str]:
    """What is wrong with the revealed `deal` (a log header's ``deal``)
    for a player who saw `commitment` and gave `seed` for `seat`: the
    server seed and salt must hash to the commitment, and the seed must
    be the seat's in the deal. An empty list: the deal is as promised."""
    problems = []
    try:
        revealed = bytes.fromhex(deal["server_seed"]) + bytes.fromhex(deal["salt"])
    except (KeyError, TypeError, ValueError):
        return ["the log reveals no server seed and salt"]
    digest = hashlib.sha256(revealed).hexdigest()
    if digest != deal.get("commitment"):
        problems.append("the server seed and salt do not hash to the log's commitment")
    if commitment is not None and digest != commitment:
        problems.append("the server seed and salt do not hash to the commitment shown before the deal")
    if seed is not None and seat is not None:
        seeds = deal.get("client_seeds") or []
        if seat >= len(seeds) or seeds[seat] != seed:
            problems.append(f"seat {seat}'s seed in the deal is not the one this client sent")
    return problems
