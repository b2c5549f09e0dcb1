"""parlor_client's parts that need no server."""

import asyncio
import hashlib
import random
import socket
import unittest

from parlor_client import Backoff, Connection, ConnectionLost, MoveRefused, ParlorError, deal_problems
from parlor_client.reconnect import FIRST_WAIT, JITTER, MAX_WAIT


class BackoffTest(unittest.TestCase):
    def test_waits_double_up_to_the_cap_within_the_jitter(self):
        backoff = Backoff(random.Random(7))
        nominal = FIRST_WAIT
        waits = []
        for _ in range(12):
            wait = backoff.wait()
            self.assertGreaterEqual(wait, nominal * (1 - JITTER))
            self.assertLessEqual(wait, nominal * (1 + JITTER))
            waits.append(wait)
            nominal = min(nominal * 2, MAX_WAIT)
        self.assertGreater(waits[-1], waits[0] * 10)


class ErrorsTest(unittest.TestCase):
    def test_a_refused_move_is_its_own_type_and_keeps_code_and_detail(self):
        msg = {"type": "error", "code": "action/illegal_move", "message": "no", "room": "ab12",
               "detail": {"reason": "shape"}}
        error = ParlorError.from_message(msg)
        self.assertIsInstance(error, MoveRefused)
        self.assertEqual((error.code, error.message, error.room, error.detail),
                         ("action/illegal_move", "no", "ab12", {"reason": "shape"}))
        other = ParlorError.from_message({"code": "room/not_found", "message": "gone"})
        self.assertNotIsInstance(other, MoveRefused)
        self.assertEqual(str(other), "room/not_found: gone")


class DealTest(unittest.TestCase):
    def deal(self):
        seed, salt = bytes(range(32)), bytes(range(16))
        return {"commitment": hashlib.sha256(seed + salt).hexdigest(), "server_seed": seed.hex(),
                "salt": salt.hex(), "client_seeds": ["mine", None]}

    def test_a_deal_as_committed_with_our_seed_has_no_problem(self):
        deal = self.deal()
        self.assertEqual(deal_problems(deal, deal["commitment"], 0, "mine"), [])

    def test_a_changed_seed_salt_commitment_or_client_seed_is_found(self):
        deal = self.deal()
        self.assertEqual(len(deal_problems(dict(deal, salt="ff" * 16), deal["commitment"], 0, "mine")), 2)
        self.assertEqual(len(deal_problems(deal, "00" * 32, 0, "mine")), 1)
        self.assertEqual(len(deal_problems(deal, deal["commitment"], 1, "mine")), 1)
        self.assertEqual(len(deal_problems({"commitment": "x"}, None, None, None)), 1)


class ConnectTest(unittest.IsolatedAsyncioTestCase):
    async def test_no_server_listening_is_a_lost_connection(self):
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            port = s.getsockname()[1]
        # The port is free again: nothing listens on it.
        with self.assertRaises(ConnectionLost):
            await asyncio.wait_for(Connection.open(f"ws://127.0.0.1:{port}"), 10)


if __name__ == "__main__":
    unittest.main()
