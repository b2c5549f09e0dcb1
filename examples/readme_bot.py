import asyncio, json, random, sys
import websockets  # pip install websockets
def loses(a, b):  # whoever moves from piles a, b loses (Wythoff's lose positions)
    a, b = sorted((a, b))
    return a == int((b - a) * (1 + 5 ** 0.5) / 2)

async def main(url):
    async with websockets.connect(url) as ws:
        send = lambda msg: ws.send(json.dumps(msg))
        await send({"type": "hello", "version": 1, "name": "tiny"})
        await send({"type": "create_room", "game": "nimrod"})
        async for frame in ws:
            m = json.loads(frame)
            if m["type"] == "room_created":  # a built-in bot against us, then our seat
                await send({"type": "add_bot", "room": m["room"], "strategy": "random"})
                await send({"type": "join", "room": m["room"]})
            elif m["type"] == "update" and "outcome" in m:
                return print(json.dumps({"outcome": m["outcome"], "me": m["you"]}))
            elif m["type"] == "update" and m["you"] in m["to_act"]:
                (a, b), legal = m["view"]["piles"], m["legal"]
                good = [x for x in legal if loses(a - x["take"][0], b - x["take"][1])]
                await send({"type": "play", "room": m["room"], "seat": m["you"],
                            "seq": m["seq"], "move": random.choice(good or legal)})

asyncio.run(main(sys.argv[1]))
