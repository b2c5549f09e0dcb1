import asyncio, json, math, random, sys
from parlor_client import Connection, create_room, join, play  # pip install ./examples/python

def loses(a, b):  # whoever moves from piles a <= b loses (Wythoff's lose positions)
    return a == (b - a + math.isqrt(5 * (b - a) ** 2)) // 2

def choose(view, legal):  # called on each of our turns: a move to a lose position if any
    a, b = view["piles"]
    good = [m for m in legal if loses(*sorted((a - m["take"][0], b - m["take"][1])))]
    return random.choice(good or legal)

async def main(url):
    async with await Connection.open(url, name="tiny") as conn:
        room = await create_room(conn, "nimrod", bots={1: "random"})  # the server's bot in seat 1
        await join(conn, room, 0)  # our seat, with a fresh seed for the deal
        result = await play(conn, room, choose)  # to the end, resuming after a dropped connection
        print(json.dumps({"outcome": result.outcome, "me": result.seat}))

asyncio.run(main(sys.argv[1]))
