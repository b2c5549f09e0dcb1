#!/usr/bin/env python3
"""A Parlor bot in Python: its moves built from the views the protocol
reference (docs/protocol/) describes, on the parlor_client package.

It creates a room, seats the server's built-in bots in every seat but
the first, takes seat 0 itself and plays the match to its end; or, with
`--seek GAME`, finds opponents by seeking and plays `--games N` matches
one after another (`--token` plays as a bot account, needed for
`--rated`); or, with `--tournament ID` (and `--token`), enters that
event and plays every game its rounds seat it in, until it is over; or,
with `--ladder GAME` (and `--token`), enters the game's bot ladder, plays
`--games N` of the games it is given, and leaves. It builds every move
from its view, with the encodings the protocol reference gives for each
game; the `legal` list in an update is used only to check the bot
itself: a move it builds that `legal` does not hold counts as a
mismatch, and any refusal of its moves ends the run. The exit status is
0 only when the match finished with an outcome and nothing went wrong.
The connection, seats, seeds and game loop are parlor_client's
(`pip install ./examples/python`).

    python3 parlor_bot.py ws://127.0.0.1:7878 --game rummikub --seats 3
    python3 parlor_bot.py ws://127.0.0.1:7878 --token parlor_... --seek nimrod --rated --games 3
    python3 parlor_bot.py ws://127.0.0.1:7878 --token parlor_... --tournament 4f1c2a9e8b7d
    python3 parlor_bot.py ws://127.0.0.1:7878 --token parlor_... --ladder nimrod --games 2
"""

import argparse
import asyncio
import itertools
import json
import math
import os
import sys

import websockets
from parlor_client import (Connection, ConnectionLost, ParlorError, create_room, join, play,
                           play_ladder, play_tournament, seek)

# --- Nimrod (section 18) ------------------------------------------------


def nimrod_lose(a, b):
    """Whether the player to move from piles a <= b loses against perfect
    play: a = floor((b - a) * phi), in integers so that large piles stay
    exact (floor(k * phi) = (k + isqrt(5 k^2)) // 2)."""
    k = b - a
    return a == (k + math.isqrt(5 * k * k)) // 2


def nimrod_move(view):
    a, b = view["piles"]  # always lesser first
    moves = [(x, 0) for x in range(1, a + 1)]
    moves += [(0, y) for y in range(1, b + 1)]
    moves += [(x, x) for x in range(1, a + 1)]
    for x, y in moves:
        if nimrod_lose(*sorted((a - x, b - y))):
            return {"take": [x, y]}
    # No move reaches a lose position: take one rod from the greater pile.
    return {"take": [0, 1]}


# --- Rummikub (section 23) ----------------------------------------------

COLOR_ORDER = {"black": 0, "blue": 1, "red": 2, "yellow": 3}


def block_key(b):
    return (b["number"], COLOR_ORDER[b["color"]])


def crow(blocks):
    """A crow as the table keeps it: sorted by colour name."""
    return {"crow": sorted(blocks, key=lambda b: COLOR_ORDER[b["color"]])}


def rummikub_plays(rack, table):
    """Every playrow and playblock open to `rack` at `table`."""
    held = {(b["number"], b["color"]) for b in rack}
    plays = []
    by_number = {}
    for b in rack:
        by_number.setdefault(b["number"], []).append(b)
    for same in by_number.values():
        for three in itertools.combinations(same, 3):
            plays.append({"playrow": crow(list(three))})
    for b in rack:
        n, c = b["number"], b["color"]
        if (n + 1, c) in held and (n + 2, c) in held:
            run = [{"number": n + i, "color": c} for i in range(3)]
            plays.append({"playrow": {"nrow": run}})
    for row in table:
        if "crow" in row:
            blocks = row["crow"]
            number = blocks[0]["number"]
            colors = {x["color"] for x in blocks}
            if len(blocks) < 4:
                for b in by_number.get(number, []):
                    if b["color"] not in colors:
                        plays.append({"playblock": {"block": b, "row": crow(blocks + [b])}})
        else:
            blocks = row["nrow"]
            first, last = blocks[0], blocks[-1]
            for b in rack:
                if b["color"] != first["color"]:
                    continue
                # `row` is the whole row after the block is added.
                if b["number"] == first["number"] - 1:
                    plays.append({"playblock": {"block": b, "row": {"nrow": [b] + blocks}}})
                if b["number"] == last["number"] + 1:
                    plays.append({"playblock": {"block": b, "row": {"nrow": blocks + [b]}}})
    return plays


def rummikub_move(view):
    plays = rummikub_plays(view["rack"], view["table"])
    if not plays:
        if view["bag"] == 0 and view.get("empty_bag") == "pass":
            return "pass"
        return "draw"

    def value(m):  # rows before single blocks, high numbers first
        if "playrow" in m:
            row = m["playrow"]
            return (1, max(b["number"] for b in next(iter(row.values()))))
        return (0, m["playblock"]["block"]["number"])

    return max(plays, key=value)


# --- Cribbage (section 24) ----------------------------------------------

RANKS = {"ace": 1, "jack": 11, "queen": 12, "king": 13}
SUITS = {"clubs": 0, "diamonds": 1, "hearts": 2, "spades": 3}


def rank(card):
    r = card["rank"]
    return RANKS.get(r, r) if isinstance(r, str) else r


def value(card):
    return min(rank(card), 10)


def card_key(card):
    return (rank(card), SUITS[card["suit"]])


def run_points(ranks):
    """Runs among `ranks` as the show counts them: every longest run,
    each distinct way of making it."""
    counts = {r: ranks.count(r) for r in set(ranks)}
    total, r = 0, 1
    while r <= 13:
        length, ways = 0, 1
        while counts.get(r + length):
            ways *= counts[r + length]
            length += 1
        if length >= 3:
            total += length * ways
        r += max(length, 1)
    return total


def hand_points(cards):
    """Fifteens, pairs, runs and a four-card flush of `cards` (no start
    card: what the bot keeps for sure)."""
    pts = 0
    for k in range(2, len(cards) + 1):
        for combo in itertools.combinations(cards, k):
            if sum(value(c) for c in combo) == 15:
                pts += 2
    for a, b in itertools.combinations(cards, 2):
        if rank(a) == rank(b):
            pts += 2
    pts += run_points([rank(c) for c in cards])
    if len({c["suit"] for c in cards}) == 1 and len(cards) == 4:
        pts += 4
    return pts


def discard_move(view):
    hand = view["hand"]
    n = view["discard_count"]
    mine = view["dealer"] == view["you"] or (
        view["partnerships"] and view["dealer"] % 2 == view["you"] % 2
    )
    best = None
    for throw in itertools.combinations(hand, n):
        keep = [c for c in hand if c not in throw]
        score = hand_points(keep)
        # Throw points into your own crib, never into the opponent's.
        crib = hand_points(list(throw)) if n == 2 else 0
        score += crib if mine else -crib
        score -= sum(value(c) for c in keep) / 100  # low cards peg well
        if best is None or score > best[0]:
            best = (score, sorted(throw, key=card_key))
    return {"discard": best[1]}


def lay_points(series, card, count):
    """What laying `card` scores at once in the play."""
    new = count + value(card)
    pts = 2 if new in (15, 31) else 0
    ranks = [rank(x["card"]) for x in series] + [rank(card)]
    same = 1
    while same < len(ranks) and ranks[-1 - same] == ranks[-1]:
        same += 1
    pts += same * (same - 1)
    for length in range(len(ranks), 2, -1):
        tail = sorted(ranks[-length:])
        if all(tail[i + 1] == tail[i] + 1 for i in range(length - 1)):
            pts += length
            break
    return pts


def play_move(view):
    fits = [c for c in view["hand"] if view["count"] + value(c) <= 31]
    if not fits:
        return None  # never asked: a go is automatic
    best = max(fits, key=lambda c: (lay_points(view["series"], c, view["count"]),
                                    view["count"] + value(c) != 5 and view["count"] + value(c) != 21,
                                    value(c)))
    return {"play": best}


def cribbage_move(view):
    if view["phase"] == "discard":
        return discard_move(view)
    if view["phase"] == "play":
        return play_move(view)
    return None


MOVERS = {"nimrod": nimrod_move, "rummikub": rummikub_move, "cribbage": cribbage_move}
DEFAULT_OPPONENT = {"nimrod": "optimal", "rummikub": "greedy", "cribbage": "expert"}


def canonical(move):
    """A move as JSON text with sorted keys, to compare with `legal`."""
    return json.dumps(move, sort_keys=True)


# --- Playing, through parlor_client -------------------------------------


class Checker:
    """The bot's `choose`: builds each move from the view alone, and
    checks it against `legal` when the update lists it."""

    def __init__(self, verbose):
        self.verbose = verbose
        self.update = None
        self.moves = self.checked = self.mismatches = 0

    def observe(self, update):
        """Called with each update before `choose`: its game and seq."""
        self.update = update

    def choose(self, view, legal):
        game, seq = self.update["game"], self.update["seq"]
        move = MOVERS[game](view)
        if legal is not None:
            self.checked += 1
            if move is None or canonical(move) not in {canonical(m) for m in legal}:
                self.mismatches += 1
                print(f"mismatch at seq {seq}: built {json.dumps(move)}, "
                      f"legal holds {len(legal)} moves", file=sys.stderr)
                if move is None and legal:
                    move = legal[0]
        if move is None:
            raise RuntimeError(f"no move built at seq {seq}")
        if self.verbose:
            print(f"{self.update['room']} seq {seq}: {json.dumps(move)}", file=sys.stderr)
        self.moves += 1
        return move


def tally(summary, results, checker):
    """Adds `results` (one per match) and the checker's counts to `summary`."""
    for r in results:
        summary["games"] += 1
        summary["rooms"].append(r.room)
        if r.outcome is None:
            summary["aborted"] = summary.get("aborted", 0) + 1
        elif r.drawn:
            summary["draws"] += 1
        elif r.won:
            summary["wins"] += 1
        else:
            summary["losses"] += 1
    summary.update(moves=checker.moves, mismatches=checker.mismatches, refusals=0)
    return summary


def new_summary(**head):
    return {**head, "games": 0, "wins": 0, "losses": 0, "draws": 0, "rooms": [],
            "moves": 0, "mismatches": 0, "refusals": 0}


async def play_builtin(url, game, seats, options, opponent, verbose, ca_cert=None, token=None):
    """Creates a room, seats built-in bots in every seat but 0, and plays
    seat 0."""
    checker = Checker(verbose)
    async with await Connection.open(url, token=token, ca_file=ca_cert) as conn:
        room = await create_room(conn, game, seats=seats, options=options,
                                 bots={seat: opponent for seat in range(1, seats)})
        await join(conn, room, 0)
        result = await play(conn, room, checker.choose, observe=checker.observe)
    return {"game": game, "seats": seats, "moves": checker.moves, "checked": checker.checked,
            "mismatches": checker.mismatches, "refusals": 0, "outcome": result.outcome,
            "closed": result.closed, "you": result.seat}


async def seek_games(url, game, seats, options, rated, games, verbose, ca_cert=None, token=None):
    """Plays `games` matches found by seeking (again after each); the
    tally."""
    checker = Checker(verbose)
    results = []
    async with await Connection.open(url, token=token, ca_file=ca_cert) as conn:
        for _ in range(games):
            seat = await seek(conn, game, seats=seats, options=options, rated=rated)
            results.append(await play(conn, seat.room, checker.choose, observe=checker.observe))
    summary = new_summary(game=game, seats=seats, rated=rated)
    summary["aborted"] = 0
    return tally(summary, results, checker)


async def ladder(url, game, games, verbose, ca_cert=None, token=None):
    """Enters `game`'s bot ladder, plays the games it gives (several at
    once) until `games` are taken, then leaves; the tally."""
    checker = Checker(verbose)
    async with await Connection.open(url, token=token, ca_file=ca_cert) as conn:
        results = await play_ladder(conn, game, checker.choose, games, observe=checker.observe)
    return tally(new_summary(ladder=game), results, checker)


async def tournament(url, event, verbose, ca_cert=None, token=None):
    """Enters event `event` (unless entered already) and plays every game
    it is seated in, until the event's page says it is over; the tally and
    the standings."""
    checker = Checker(verbose)
    async with await Connection.open(url, token=token, ca_file=ca_cert) as conn:
        results, page = await play_tournament(conn, event, checker.choose, observe=checker.observe)
    summary = tally(new_summary(tournament=event), results, checker)
    summary.update(status=page["status"], standings=page["standings"])
    return summary


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("server", help="the server's URL, e.g. ws://127.0.0.1:7878 or wss://host:7878")
    p.add_argument("--game", choices=sorted(MOVERS), default="nimrod")
    p.add_argument("--seats", type=int, default=2)
    p.add_argument("--options", type=json.loads, default=None,
                   help='the room options as JSON, e.g. \'{"target": 61}\'')
    p.add_argument("--opponent", default=None,
                   help="the built-in bots' strategy (default: the game's default bot)")
    p.add_argument("--token", default=os.environ.get("PARLOR_TOKEN"),
                   help="an API token: play as its account (default $PARLOR_TOKEN)")
    p.add_argument("--seek", choices=sorted(MOVERS), default=None, metavar="GAME",
                   help="find opponents by seeking GAME instead of playing built-in bots")
    p.add_argument("--rated", action="store_true", help="with --seek: rated matches (needs --token)")
    p.add_argument("--tournament", default=None, metavar="ID",
                   help="enter the tournament ID and play all its games (needs --token)")
    p.add_argument("--ladder", choices=sorted(MOVERS), default=None, metavar="GAME",
                   help="enter GAME's bot ladder, play --games of its games, then leave (needs --token)")
    p.add_argument("--games", type=int, default=1, help="with --seek or --ladder: matches to play")
    p.add_argument("--timeout", type=float, default=600, help="seconds before giving up")
    p.add_argument("--verbose", action="store_true", help="print every move sent")
    p.add_argument("--ca-cert", default=os.environ.get("PARLOR_CA_CERT"),
                   help="for wss://: also trust this CA certificate (PEM; default $PARLOR_CA_CERT)")
    args = p.parse_args()
    game = args.seek or args.ladder or args.game
    if args.ladder:
        job = ladder(args.server, game, args.games, args.verbose, args.ca_cert, args.token)
    elif args.tournament:
        job = tournament(args.server, args.tournament, args.verbose, args.ca_cert, args.token)
    elif args.seek:
        job = seek_games(args.server, game, args.seats, args.options, args.rated, args.games,
                         args.verbose, args.ca_cert, args.token)
    else:
        opponent = args.opponent or DEFAULT_OPPONENT[game]
        job = play_builtin(args.server, game, args.seats, args.options, opponent, args.verbose,
                           args.ca_cert, args.token)
    try:
        report = asyncio.run(asyncio.wait_for(job, args.timeout))
    except (ParlorError, ConnectionLost, RuntimeError, OSError, asyncio.TimeoutError,
            websockets.WebSocketException) as e:
        print(json.dumps({"game": game, "seats": args.seats, "error": str(e) or type(e).__name__}))
        return 1
    print(json.dumps(report))
    clean = report["mismatches"] == 0 and report["refusals"] == 0
    if args.tournament:
        return 0 if clean and report.get("status") == "finished" else 1
    if args.seek or args.ladder:
        return 0 if clean and report["games"] >= args.games else 1
    return 0 if clean and report["outcome"] is not None else 1


if __name__ == "__main__":
    sys.exit(main())
