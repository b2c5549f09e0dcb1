"""parlor_client against a running server: the one at $PARLOR_URL (CI's
`.ci/python-bot` starts a release server for them). Without it the tests
that need a server are skipped locally, and fail under CI=true.

    PARLOR_URL=ws://127.0.0.1:7878 python -m unittest discover -s examples/python/tests -v

The server should allow the few accounts these tests make
(`--accounts-per-address-hour 0`, or a fresh server: 10 an hour).
"""

import asyncio
import math
import os
import random
import secrets
import time
import unittest

from parlor_client import (Connection, MoveRefused, ParlorError, accept_challenge, api, challenge,
                           create_room, deal_problems, enter_ladder, enter_tournament, join,
                           leave_tournament, play, play_ladder, play_tournament, seek)

URL = os.environ.get("PARLOR_URL")

# Seconds one test may take: a Nimrod match against a built-in bot lasts
# well under a second; the ladder pairs every 2 s.
TEST_TIMEOUT = 120

# Reads of a page, half a second apart, before it must show what was just
# done (the ladder counts results at its pairing rounds, every 2 s; events
# start on the scheduler's next pass).
PAGE_TRIES = 20


def needs_server(test):
    """Skips `test` without a server, unless under CI, where that fails."""
    if URL or os.environ.get("CI") == "true":
        return test
    return unittest.skip("no server: set PARLOR_URL (e.g. ws://127.0.0.1:7878)")(test)


def loses(a, b):
    """Whether the player to move from piles a, b loses (Wythoff's lose
    positions)."""
    a, b = sorted((a, b))
    return a == (b - a + math.isqrt(5 * (b - a) ** 2)) // 2


def nimrod(view, legal):
    """A Nimrod player: a move to a lose position when there is one."""
    a, b = view["piles"]
    good = [m for m in legal if loses(a - m["take"][0], b - m["take"][1])]
    return (good or legal)[0]


async def bot_account(kind="bot"):
    """A new account of `kind` and an API token for it: (name, token)."""
    name = f"py-{secrets.token_hex(4)}"
    password = secrets.token_hex(12)
    await api(URL, "POST", "/api/accounts", {"name": name, "password": password, "kind": kind})
    made = await api(URL, "POST", "/api/tokens", {"label": "test"}, basic=(name, password))
    return name, made["token"]


class WithServer(unittest.IsolatedAsyncioTestCase):
    async def asyncSetUp(self):
        self.assertIsNotNone(URL, "CI=true needs PARLOR_URL: the tests' server")

    def run_briefly(self, coro):
        return asyncio.wait_for(coro, TEST_TIMEOUT)


@needs_server
class ConnectTest(WithServer):
    async def test_hello_is_welcomed_with_the_version_and_a_resume_token(self):
        async with await Connection.open(URL, name="py-hello") as conn:
            self.assertEqual(conn.welcome["version"], 1)
            self.assertIn("nimrod", conn.games)
            self.assertIsNone(conn.account)
            self.assertEqual(len(conn.resume_token), 36)

    async def test_a_token_signs_in_as_its_account_and_a_bad_one_is_refused(self):
        name, token = await bot_account()
        async with await Connection.open(URL, token=token) as conn:
            self.assertEqual(conn.account["name"], name)
            self.assertEqual(conn.account["kind"], "bot")
        with self.assertRaises(ParlorError) as refused:
            await Connection.open(URL, token="parlor_" + "0" * 40)
        self.assertEqual(refused.exception.code, "auth/invalid_token")
        self.assertTrue(refused.exception.message)


@needs_server
class PlayTest(WithServer):
    async def test_a_game_against_a_built_in_bot_is_played_to_its_end(self):
        async with await Connection.open(URL, name="py-player") as conn:
            room = await create_room(conn, "nimrod", bots={1: "random"})
            seat = await join(conn, room, 0)
            self.assertEqual(seat.seat, 0)
            asked = []

            def choose(view, legal):
                asked.append(legal)
                return nimrod(view, legal)

            result = await self.run_briefly(play(conn, room, choose))
            self.assertEqual(result.room, room)
            self.assertEqual(result.seat, 0)
            self.assertIsNotNone(result.outcome)
            self.assertEqual(result.moves, len(asked))
            self.assertTrue(asked and all(asked))
            self.assertNotEqual(result.won, result.lost)
            # Commit and reveal: the log's server seed hashes to the
            # commitment shown before our seed, which the deal holds.
            log = await conn.request({"type": "get_log", "room": room}, "log", room)
            deal = log["header"]["deal"]
            self.assertEqual(deal_problems(deal, conn.commitments[room], 0, conn.seeds[room]), [])
            self.assertEqual(deal["client_seeds"][0], conn.seeds[room])
            forged = dict(deal, salt="00" * 16)
            self.assertTrue(deal_problems(forged, conn.commitments[room], 0, conn.seeds[room]))
            self.assertTrue(deal_problems(deal, conn.commitments[room], 0, "another-seed"))

    async def test_a_refused_move_raises_the_typed_error_with_its_code(self):
        async with await Connection.open(URL, name="py-cheat") as conn:
            room = await create_room(conn, "nimrod", options={"piles": [3, 5]}, bots={1: "random"})
            await join(conn, room, 0)
            with self.assertRaises(MoveRefused) as refused:
                await self.run_briefly(play(conn, room, lambda view, legal: {"take": [99, 0]}))
            error = refused.exception
            self.assertEqual(error.code, "action/illegal_move")
            self.assertEqual(error.room, room)
            self.assertIn("reason", error.detail)
            self.assertTrue(error.message)

    async def test_a_dropped_socket_mid_game_is_resumed_and_the_game_finished(self):
        async with await Connection.open(URL, name="py-dropper") as conn:
            room = await create_room(conn, "nimrod", options={"piles": [20, 30]},
                                     bots={1: "random"})
            await join(conn, room, 0)
            token = conn.resume_token
            dropped = []

            def choose(view, legal):
                if not dropped:
                    # Kill the socket under the client, as a network would.
                    dropped.append(conn.ws)
                    conn.ws.transport.abort()
                return nimrod(view, legal)

            result = await self.run_briefly(play(conn, room, choose))
            self.assertEqual(conn.reconnects, 1)
            self.assertIsNot(conn.ws, dropped[0])
            self.assertEqual(conn.resume_token, token)
            self.assertEqual(result.room, room)
            self.assertIsNotNone(result.outcome)


@needs_server
class OpponentsTest(WithServer):
    async def test_two_guests_seeking_alike_are_matched_and_play(self):
        # Piles of their own, so that no other seek pairs with them.
        options = {"piles": [random.randint(30, 60), random.randint(61, 90)]}

        async def seeker(name):
            async with await Connection.open(URL, name=name) as conn:
                seat = await seek(conn, "nimrod", options=options)
                return await play(conn, seat.room, nimrod)

        a, b = await self.run_briefly(asyncio.gather(seeker("py-seek-a"), seeker("py-seek-b")))
        self.assertEqual(a.room, b.room)
        self.assertEqual({a.seat, b.seat}, {0, 1})
        self.assertEqual(a.outcome, b.outcome)
        self.assertNotEqual(a.won, b.won)

    async def test_a_challenge_accepted_seats_both_players(self):
        (_, token_a), (name_b, token_b) = await bot_account(), await bot_account()
        async with await Connection.open(URL, token=token_a) as a, \
                await Connection.open(URL, token=token_b) as b:
            accepting = asyncio.ensure_future(accept_challenge(b))
            room = await self.run_briefly(challenge(a, name_b, "nimrod"))
            self.assertEqual(await self.run_briefly(accepting), room)
            ra, rb = await self.run_briefly(asyncio.gather(play(a, room, nimrod),
                                                           play(b, room, nimrod)))
            self.assertEqual(ra.outcome, rb.outcome)
            self.assertNotEqual(ra.won, rb.won)


@needs_server
class EventsTest(WithServer):
    async def test_a_bot_enters_the_ladder_and_plays_a_game_it_gives(self):
        name, token = await bot_account()
        async with await Connection.open(URL, token=token) as conn:
            results = await self.run_briefly(play_ladder(conn, "nimrod", nimrod, 1))
        self.assertGreaterEqual(len(results), 1)
        self.assertTrue(all(r.outcome is not None for r in results))
        # The ladder's page lists the game among its recent ones, rated,
        # once its next round of pairing has counted it.
        for _ in range(PAGE_TRIES):
            page = await api(URL, "GET", "/api/ladder/nimrod")
            recent = [g for g in page["recent"] if g["room"] == results[0].room]
            if recent:
                break
            await asyncio.sleep(0.5)
        self.assertEqual(len(recent), 1)
        self.assertIn(name, recent[0]["seats"])
        self.assertEqual(recent[0]["result"] == f"seat{results[0].seat}", results[0].won)

    async def test_a_person_is_refused_the_ladder_with_its_code(self):
        _, token = await bot_account("human")
        async with await Connection.open(URL, token=token) as conn:
            with self.assertRaises(ParlorError) as refused:
                await enter_ladder(conn, "nimrod")
        self.assertEqual(refused.exception.code, "ladder/bots_only")

    async def test_a_tournament_is_entered_once_and_left(self):
        name, token = await bot_account()
        starts = int(time.time() * 1000) + 600_000
        made = await api(URL, "POST", "/api/tournaments",
                         {"game": "nimrod", "format": "swiss", "rounds": 1, "starts_at_ms": starts},
                         token=token)
        async with await Connection.open(URL, token=token) as conn:
            self.assertTrue(await enter_tournament(conn, made["id"]))
            self.assertFalse(await enter_tournament(conn, made["id"]))
            page = await api(URL, "GET", f"/api/tournaments/{made['id']}")
            self.assertEqual([p["name"] for p in page["players"]], [name])
            await leave_tournament(conn, made["id"])
        page = await api(URL, "GET", f"/api/tournaments/{made['id']}")
        self.assertEqual(page["players"], [])

    async def test_two_bots_entered_early_play_the_tournament_once_it_runs(self):
        (name_a, token_a), (name_b, token_b) = await bot_account(), await bot_account()
        made = await api(URL, "POST", "/api/tournaments",
                         {"game": "nimrod", "format": "swiss", "rounds": 1,
                          "options": {"piles": [5, 8]},
                          "starts_at_ms": int(time.time() * 1000) + 1500}, token=token_a)
        async with await Connection.open(URL, token=token_a) as a, \
                await Connection.open(URL, token=token_b) as b:
            self.assertTrue(await enter_tournament(a, made["id"]))
            self.assertTrue(await enter_tournament(b, made["id"]))
            for _ in range(PAGE_TRIES):
                status = (await api(URL, "GET", f"/api/tournaments/{made['id']}"))["status"]
                if status != "upcoming":
                    break
                await asyncio.sleep(0.5)
            self.assertEqual(status, "running")
            # Entered, and the event refuses entries now: play_tournament
            # carries on all the same.
            (ra, page), (rb, _) = await self.run_briefly(asyncio.gather(
                play_tournament(a, made["id"], nimrod), play_tournament(b, made["id"], nimrod)))
        self.assertEqual(page["status"], "finished")
        self.assertEqual(sorted(s["name"] for s in page["standings"]), sorted([name_a, name_b]))
        self.assertEqual([r.room for r in ra], [r.room for r in rb])
        self.assertEqual(len(ra), 1)
        self.assertNotEqual(ra[0].won, rb[0].won)

    async def test_a_running_tournament_refuses_newcomers_with_its_code(self):
        _, token = await bot_account()
        # Starting now, alone: at its start it is cancelled (fewer than
        # two players), and takes nobody after.
        made = await api(URL, "POST", "/api/tournaments",
                         {"game": "nimrod", "format": "swiss", "rounds": 1,
                          "starts_at_ms": int(time.time() * 1000)}, token=token)
        for _ in range(PAGE_TRIES):
            page = await api(URL, "GET", f"/api/tournaments/{made['id']}")
            if page["status"] != "upcoming":
                break
            await asyncio.sleep(0.5)
        async with await Connection.open(URL, token=token) as conn:
            with self.assertRaises(ParlorError) as refused:
                await enter_tournament(conn, made["id"])
        self.assertEqual(refused.exception.code, "tournament/started")
        self.assertEqual(refused.exception.room, None)


if __name__ == "__main__":
    unittest.main()
