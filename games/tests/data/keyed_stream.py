#!/usr/bin/env python3
"""Writes keyed_stream.json: what the keyed chance stream and the keyed
deals must be, computed independently of the Rust code, from the rules in
the rustdoc of parlor_games::deal, parlor_games::rng and each game's
setup. Needs Python 3 and the `cryptography` package:

    python3 games/tests/data/keyed_stream.py > games/tests/data/keyed_stream.json

games/tests/games/golden_deals.rs checks the Rust code against the output.
"""
import hashlib
import json
import struct

from cryptography.hazmat.primitives.ciphers import Cipher, algorithms


def deal_key(seed: bytes, salt: bytes, client_seeds) -> bytes:
    data = seed + salt
    for s in client_seeds:
        b = (s or "").encode()
        data += bytes([len(b)]) + b
    return hashlib.sha256(data).digest()


class Stream:
    def __init__(self, key: bytes):
        chacha = algorithms.ChaCha20(key, bytes(16))
        self.enc = Cipher(chacha, mode=None).encryptor()

    def word(self) -> int:
        return struct.unpack("<Q", self.enc.update(bytes(8)))[0]

    def below(self, n: int) -> int:
        zone = n * (2**64 // n)
        while True:
            x = self.word()
            if x < zone:
                return x % n

    def shuffle(self, items: list) -> None:
        for i in range(len(items) - 1, 0, -1):
            j = self.below(i + 1)
            items[i], items[j] = items[j], items[i]


COLOURS = ["black", "blue", "red", "yellow"]
SUITS = ["clubs", "diamonds", "hearts", "spades"]
RANK_NAMES = {1: "ace", 11: "jack", 12: "queen", 13: "king"}


def block(n, c):
    return {"number": n, "color": COLOURS[c]}


def card(i):
    rank = i // 4 + 1
    return {"rank": RANK_NAMES.get(rank, rank), "suit": SUITS[i % 4]}


def rummikub(key, seats, rack):
    s = Stream(key)
    blocks = [(n, c) for n in range(1, 14) for c in range(4)]
    s.shuffle(blocks)
    racks = [sorted(blocks[i * rack:(i + 1) * rack]) for i in range(seats)]
    return {
        "racks": [[block(*b) for b in r] for r in racks],
        "bag": [block(*b) for b in blocks[seats * rack:]],
    }


def cribbage(key, seats):
    s = Stream(key)
    dealer = s.below(seats)
    deck = list(range(52))
    s.shuffle(deck)
    size = 6 if seats == 2 else 5
    hands = [[] for _ in range(seats)]
    for i in range(size * seats):
        hands[(dealer + 1 + i) % seats].append(deck.pop())
    crib = [deck.pop()] if seats == 3 else []
    # The cut, once everyone has thrown: nothing draws in between.
    start = deck[s.below(len(deck))]
    return {
        "dealer": dealer,
        "hands": [[card(c) for c in sorted(h)] for h in hands],
        "crib": [card(c) for c in crib],
        "start": card(start),
    }


def nimrod(key, lo, hi):
    s = Stream(key)
    a = lo + s.below(hi - lo + 1)
    b = lo + s.below(hi - lo + 1)
    return sorted([a, b])


SECRET_SEED = bytes(range(32))
SECRET_SALT = bytes(range(0xA0, 0xB0))
KEYS = {
    "zero": bytes(32),
    "ff": bytes([0xFF] * 32),
    "dealt": deal_key(SECRET_SEED, SECRET_SALT, ["alice", None]),
}

out = {"note": "Written by keyed_stream.py beside this file (Python 3 and the cryptography package), independently of the Rust code.", "keys": {}}
for name, key in KEYS.items():
    s = Stream(key)
    words = [s.word() for _ in range(8)]
    belows = [[n, s.below(n)] for n in [1, 2, 3, 7, 52, 1000, 2**32 + 1, 2**63 + 1]]
    items = list(range(20))
    s.shuffle(items)
    out["keys"][name] = {
        "key": key.hex(),
        "words": [str(w) for w in words],
        "belows": [[n, str(x)] for n, x in belows],
        "shuffle_after": items,
        "rummikub": {str(seats): rummikub(key, seats, 7) for seats in [2, 4]},
        "cribbage": {str(seats): cribbage(key, seats) for seats in [2, 3]},
        "nimrod_1_1000": nimrod(key, 1, 1000),
    }
print(json.dumps(out, indent=1))
