#!/usr/bin/env python3
"""A Parlor bot in Python, written from the protocol reference (docs/protocol/) alone.

It creates a room, seats the server's built-in bots in every seat but
the first, takes seat 0 itself and plays the match to its end; or, with
`--seek GAME`, finds opponents by seeking and plays `--games N` matches
one after another (`--token` plays as a bot account, needed for
`--rated`); or, with `--tournament ID` (and `--token`), enters that
event and plays every game its rounds seat it in, until it is over; or,
with `--ladder GAME` (and `--token`), enters the game's bot ladder, plays
`--games N` of the games it is given, and leaves. It
builds
every move from its view, with the encodings the protocol document gives
for each game; the `legal` list in an update is used only to check the
bot itself: a move it builds that `legal` does not hold counts as a
mismatch, and so does any refusal of its moves. The exit status is 0
only when the match finished with an outcome and nothing went wrong.

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
import secrets
import ssl
import sys
import urllib.error
import urllib.request

import websockets

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


# --- The protocol -------------------------------------------------------


def tls_context(url, ca_cert):
    """For a wss:// URL: the system's trusted roots, plus `ca_cert` (a PEM
    file, e.g. a test's own CA) if given; None for ws://."""
    if not url.startswith("wss://"):
        return None
    context = ssl.create_default_context()
    if ca_cert:
        context.load_verify_locations(cafile=ca_cert)
    return context


async def connect(url, ca_cert):
    context = tls_context(url, ca_cert)
    return await websockets.connect(url, **({"ssl": context} if context else {}))


class Conn:
    """One connection: JSON messages out and in."""

    def __init__(self, ws):
        self.ws = ws

    async def send(self, msg):
        await self.ws.send(json.dumps(msg))

    async def recv(self):
        msg = json.loads(await self.ws.recv())
        # A seat taken for us (a seek matched, a tournament's or the
        # ladder's game) waits for our seed, now that `joined` has shown
        # the room's commitment: send a fresh one ("Fair dealing").
        if msg["type"] == "joined" and msg.get("seed_wanted"):
            await self.send({"type": "seed", "room": msg["room"],
                             "client_seed": secrets.token_hex(8)})
        return msg

    async def reply(self, want):
        """The next message of type `want`; an error instead fails.
        Errors about a move that crossed the end of a match are ignored."""
        while True:
            msg = await self.recv()
            if msg["type"] == want:
                return msg
            if msg["type"] == "error" and msg["code"] not in IGNORED:
                raise RuntimeError(f'{msg["code"]}: {msg["message"]}')

    async def hello(self, token):
        """Says hello (as the account of the API token `token`, if given)."""
        hello = {"type": "hello", "version": 1, "name": "python-bot"}
        if token:
            hello["token"] = token
        await self.send(hello)
        welcome = await self.reply("welcome")
        if token and not welcome.get("account"):
            raise RuntimeError("the token was not taken: no account in welcome")
        return welcome


# A move that crossed another step, or the end of the match: the next
# update asks again (or the match is over).
IGNORED = ("action/stale_seq", "action/not_your_turn")


def new_report(game, seats):
    return {"game": game, "seats": seats, "moves": 0, "checked": 0,
            "mismatches": 0, "refusals": 0, "outcome": None}


async def play_room(conn, room, game, report, verbose):
    """Plays the connection's seat in `room` until the match ends."""
    mover = MOVERS[game]
    answered = None
    while True:
        msg = await conn.recv()
        kind = msg["type"]
        if kind == "error":
            code = msg["code"]
            if code in IGNORED:
                continue
            report["refusals"] += 1
            print(f"refused: {code}: {msg['message']}", file=sys.stderr)
            if code in ("action/illegal_move", "action/bad_move"):
                answered = None  # the position is unchanged: it will be asked again below
                continue
            raise RuntimeError(f"{code}: {msg['message']}")
        if kind != "update" or msg["room"] != room:
            continue
        if msg["status"] == "finished":
            report["outcome"] = msg.get("outcome")
            report["closed"] = msg.get("closed")
            report["you"] = msg.get("you")
            return report
        if msg.get("you") not in msg["to_act"] or msg["seq"] == answered:
            continue
        move = mover(msg["view"])
        legal = msg.get("legal")
        if legal is not None:
            report["checked"] += 1
            if move is None or canonical(move) not in {canonical(m) for m in legal}:
                report["mismatches"] += 1
                print(f"mismatch at seq {msg['seq']}: built {json.dumps(move)}, "
                      f"legal holds {len(legal)} moves", file=sys.stderr)
                if move is None:
                    move = legal[0]
        if move is None:
            raise RuntimeError(f"no move built at seq {msg['seq']}")
        if verbose:
            print(f"seq {msg['seq']}: {json.dumps(move)}", file=sys.stderr)
        answered = msg["seq"]
        report["moves"] += 1
        await conn.send({"type": "play", "room": room, "seat": msg["you"],
                         "seq": msg["seq"], "move": move})


async def play(url, game, seats, options, opponent, verbose, ca_cert=None, token=None):
    """Creates a room, seats built-in bots in every seat but 0, and plays
    seat 0."""
    report = new_report(game, seats)
    async with await connect(url, ca_cert) as ws:
        conn = Conn(ws)
        await conn.hello(token)
        create = {"type": "create_room", "game": game, "seats": seats}
        if options is not None:
            create["options"] = options
        await conn.send(create)
        room = (await conn.reply("room_created"))["room"]
        for seat in range(1, seats):
            await conn.send({"type": "add_bot", "room": room, "seat": seat, "strategy": opponent})
            await conn.reply("bot_added")
        await conn.send({"type": "join", "room": room, "seat": 0,
                         "client_seed": secrets.token_hex(8)})
        await conn.reply("joined")
        return await play_room(conn, room, game, report, verbose)


async def seek_games(url, game, seats, options, rated, games, verbose, ca_cert=None, token=None):
    """Plays `games` matches found by seeking (again after each); a report
    per match and the tally."""
    summary = {"game": game, "seats": seats, "rated": rated, "games": 0, "wins": 0,
               "losses": 0, "draws": 0, "aborted": 0, "rooms": [], "moves": 0,
               "mismatches": 0, "refusals": 0}
    async with await connect(url, ca_cert) as ws:
        conn = Conn(ws)
        await conn.hello(token)
        for _ in range(games):
            # The seed says we answer `seed_wanted`; it is not the deal's.
            seek = {"type": "seek", "game": game, "seats": seats, "rated": rated,
                    "client_seed": secrets.token_hex(8)}
            if options is not None:
                seek["options"] = options
            await conn.send(seek)
            seek_id = (await conn.reply("seeking"))["seek"]
            while True:
                msg = await conn.recv()
                if msg["type"] == "matched" and msg["seek"] == seek_id:
                    break
                if msg["type"] == "seek_ended" and msg["seek"] == seek_id:
                    if msg["reason"] != "lost":
                        raise RuntimeError(f"the seek ended unmatched: {msg['reason']}")
                    # Lost with a cluster node that went away: seek again.
                    await conn.send(seek)
                    seek_id = (await conn.reply("seeking"))["seek"]
                if msg["type"] == "error" and msg["code"] not in IGNORED:
                    raise RuntimeError(f'{msg["code"]}: {msg["message"]}')
            room = msg["room"]
            report = await play_room(conn, room, game, new_report(game, seats), verbose)
            summary["games"] += 1
            summary["rooms"].append(room)
            for key in ("moves", "mismatches", "refusals"):
                summary[key] += report[key]
            outcome = report["outcome"]
            if outcome is None:
                summary["aborted"] += 1
            elif outcome["result"] == "draw":
                summary["draws"] += 1
            elif report["you"] in outcome["winners"]:
                summary["wins"] += 1
            else:
                summary["losses"] += 1
    return summary


def http_url(url, path):
    """The HTTP URL of `path` on the server at WebSocket `url`."""
    scheme = "https" if url.startswith("wss://") else "http"
    return f"{scheme}://{url.split('://', 1)[1].rstrip('/')}{path}"


def http_json(url, path, token=None, method="GET", ca_cert=None):
    """One HTTP API request; its status and JSON body."""
    req = urllib.request.Request(http_url(url, path), method=method, data=b"" if method == "POST" else None)
    if token:
        req.add_header("Authorization", f"Bearer {token}")
    try:
        with urllib.request.urlopen(req, timeout=10, context=tls_context(url, ca_cert)) as r:
            return r.status, json.load(r)
    except urllib.error.HTTPError as e:
        return e.code, json.load(e)


async def on_update(conn, msg, summary, answered, done, verbose):
    """Plays update `msg` of one of several games being played at once:
    counts the game once it is over, answers when its seat is to act."""
    room, game = msg["room"], msg["game"]
    if room in done:
        return
    if msg["status"] == "finished":
        done.add(room)
        summary["games"] += 1
        summary["rooms"].append(room)
        outcome = msg.get("outcome")
        if outcome is None or outcome["result"] == "draw":
            summary["draws"] += 1
        elif msg.get("you") in outcome["winners"]:
            summary["wins"] += 1
        else:
            summary["losses"] += 1
        return
    if msg.get("you") not in msg["to_act"] or answered.get(room) == msg["seq"]:
        return
    move = MOVERS[game](msg["view"])
    legal = msg.get("legal")
    if legal is not None and (move is None or canonical(move) not in
                              {canonical(m) for m in legal}):
        summary["mismatches"] += 1
        move = legal[0] if legal else move
    if move is None:
        raise RuntimeError(f"no move built at seq {msg['seq']} in {room}")
    if verbose:
        print(f"{room} seq {msg['seq']}: {json.dumps(move)}", file=sys.stderr)
    answered[room] = msg["seq"]
    summary["moves"] += 1
    await conn.send({"type": "play", "room": room, "seat": msg["you"],
                     "seq": msg["seq"], "move": move})


async def ladder(url, game, games, verbose, ca_cert=None, token=None):
    """Enters `game`'s bot ladder (`ladder_join`), joins every seat it
    announces (`ladder_game`, or `my_games` for games of an earlier run),
    several at once, and once `games` are taken leaves the ladder
    (`ladder_leave`) and plays out the ones held; the tally."""
    summary = {"ladder": game, "games": 0, "wins": 0, "losses": 0, "draws": 0,
               "rooms": [], "moves": 0, "mismatches": 0, "refusals": 0}
    async with await connect(url, ca_cert) as ws:
        conn = Conn(ws)
        await conn.hello(token)
        await conn.send({"type": "ladder_join", "game": game})
        await conn.reply("ladder_joined")
        await conn.send({"type": "my_games"})
        answered, done, taken, entered = {}, set(), set(), True
        while entered or len(done) < len(taken):
            if entered and len(taken) >= games:
                await conn.send({"type": "ladder_leave", "game": game})
                entered = False
            msg = await conn.recv()
            kind = msg["type"]
            seats = []
            if kind == "ladder_game" and msg["game"] == game:
                seats = [(msg["room"], msg["seat"])]
            elif kind == "games":
                seats = [(g["room"], g["seat"]) for g in msg["games"] if g["game"] == game]
            for room, seat in seats:
                if room not in taken:
                    taken.add(room)
                    await conn.send({"type": "join", "room": room, "seat": seat,
                                     "client_seed": secrets.token_hex(8)})
            if kind == "error":
                if msg["code"] in ("ladder/bots_only", "ladder/off", "auth/required"):
                    raise RuntimeError(f'{msg["code"]}: {msg["message"]}')
                if msg["code"] in IGNORED:
                    continue
                summary["refusals"] += 1
                print(f'refused: {msg["code"]}: {msg["message"]}', file=sys.stderr)
            elif kind == "update" and msg["room"] in taken:
                await on_update(conn, msg, summary, answered, done, verbose)
    return summary


async def tournament(url, event, verbose, ca_cert=None, token=None):
    """Enters event `event` (unless entered already) and plays every game
    it is seated in (several at once for duplicate sets), joining each
    seat the event announces (`tournament_game`) or `my_games` lists,
    until the event's page says it is over; the tally and the standings."""
    status, body = await asyncio.to_thread(
        http_json, url, f"/api/tournaments/{event}/join", token, "POST", ca_cert)
    if status != 200 and body.get("code") != "tournament/already_entered":
        raise RuntimeError(f'{body.get("code")}: {body.get("message")}')
    summary = {"tournament": event, "games": 0, "wins": 0, "losses": 0, "draws": 0,
               "rooms": [], "moves": 0, "mismatches": 0, "refusals": 0}
    async with await connect(url, ca_cert) as ws:
        conn = Conn(ws)
        await conn.hello(token)
        await conn.send({"type": "my_games"})
        answered, done, games = {}, set(), {}
        loop = asyncio.get_running_loop()
        next_check = 0.0
        while True:
            if loop.time() >= next_check:
                next_check = loop.time() + 1.0
                _, page = await asyncio.to_thread(
                    http_json, url, f"/api/tournaments/{event}", None, "GET", ca_cert)
                if page["status"] in ("finished", "cancelled"):
                    summary["status"] = page["status"]
                    summary["standings"] = page["standings"]
                    return summary
            try:
                msg = await asyncio.wait_for(conn.recv(), 1.0)
            except asyncio.TimeoutError:
                continue
            kind = msg["type"]
            if kind == "tournament_game":
                await conn.send({"type": "join", "room": msg["room"], "seat": msg["seat"],
                                 "client_seed": secrets.token_hex(8)})
                games[msg["room"]] = msg["players"]
            elif kind == "games":
                for g in msg["games"]:
                    await conn.send({"type": "join", "room": g["room"], "seat": g["seat"],
                                     "client_seed": secrets.token_hex(8)})
            elif kind == "error":
                if msg["code"] in IGNORED:
                    continue
                summary["refusals"] += 1
                print(f'refused: {msg["code"]}: {msg["message"]}', file=sys.stderr)
            elif kind == "update":
                await on_update(conn, msg, summary, answered, done, verbose)


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
        job = play(args.server, game, args.seats, args.options, opponent, args.verbose,
                   args.ca_cert, args.token)
    try:
        report = asyncio.run(asyncio.wait_for(job, args.timeout))
    except (RuntimeError, OSError, asyncio.TimeoutError, websockets.WebSocketException) as e:
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
