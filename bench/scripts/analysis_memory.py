#!/usr/bin/env python3
"""Peak memory of a server running Rummikub `predict`s on random racks of
25 blocks and a bag of 2, N clients at once, each a different deal.

Usage: python3 bench/scripts/analysis_memory.py SERVER_BINARY SEEDS
(SEEDS: comma-separated integers; N from the environment, default 2).
Needs the `websockets` package (pip install websockets). Starts a
throwaway server per seed on a loopback port, reads its VmRSS before and
VmHWM (peak) after from /proc, and prints one line per seed: each
client's answer (an error code, or "answered") and its time.
"""
import asyncio, json, os, random, subprocess, sys, tempfile, time
import websockets
BIN=sys.argv[1]; SEEDS=[int(s) for s in sys.argv[2].split(',')]
def deal(seed):
    r=random.Random(seed)
    blocks=[{"number":n,"color":c} for n in range(1,14) for c in ("red","blue","yellow","black")]
    r.shuffle(blocks)
    return {"p1":blocks[:25],"p2":blocks[25:50],"bag":blocks[50:52]}
def kib(pid,field):
    for line in open(f"/proc/{pid}/status"):
        if line.startswith(field): return int(line.split()[1])
async def one(url,seed):
    async with websockets.connect(url, max_size=None) as ws:
        await ws.send(json.dumps({"type":"hello","version":1,"name":"m"}))
        await ws.recv()
        t=time.time()
        await ws.send(json.dumps({"type":"analyze","game":"rummikub","tool":"predict","input":deal(seed)}))
        while True:
            m=json.loads(await ws.recv())
            if m["type"] in ("analysis","error"):
                return m.get("code","answered"), round(time.time()-t,2)
async def main():
    for seed in SEEDS:
        d=tempfile.mkdtemp(); os.makedirs(d,exist_ok=True)
        port=20000+seed%1000
        p=subprocess.Popen([BIN,"--db",f"{d}/m.db","--bind",f"127.0.0.1:{port}"],stdout=subprocess.DEVNULL,stderr=subprocess.DEVNULL)
        time.sleep(1.5)
        url=f"ws://127.0.0.1:{port}/"
        before=kib(p.pid,"VmRSS")
        res=await asyncio.gather(*[one(url,seed+1000*k) for k in range(int(os.environ.get("N","2")))])
        peak=kib(p.pid,"VmHWM"); after=kib(p.pid,"VmRSS")
        print(f"seed {seed}: {res} RSS before {before/1024:.1f} MiB, peak {peak/1024:.1f} MiB, after {after/1024:.1f} MiB", flush=True)
        p.kill(); p.wait()
asyncio.run(main())
