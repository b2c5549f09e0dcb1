#!/usr/bin/env python3
"""Re-derive Parlor's ratings from its public ledger, standard library only.

    curl -s 'http://HOST:7878/api/ratings/ledger?after=0' | python3 ratings_fold.py

(A ledger longer than 1000 lines comes in pages: fetch each with
after=<last n> and concatenate them.) Reads the NDJSON ledger on stdin,
checks the numbering and the hash chain, folds every rating again from
the initial values (applying correction lines, which void results), and prints how far the ledger's before and after
values are from this fold's. Exit status 1 when the chain is broken.
"""

import decimal
import hashlib
import json
import math
import sys

SCALE = 173.7178          # Glicko-2's scale factor, as Glickman rounds it
INITIAL = (1500.0, 350.0, 0.06)  # rating, RD, volatility of a newcomer
TAU = 0.5                 # the system constant
EPSILON = 0.000001        # the volatility iteration's convergence
RD_MIN, RD_MAX = 45.0, 350.0
DAY_MS = 86_400_000       # idle time counts in whole days
GENESIS = "0" * 64        # prev of the first line
MAX_ITERATIONS = 10_000   # a guard only: the iteration takes a handful


def g(phi):
    return 1.0 / math.sqrt(1.0 + 3.0 * phi * phi / (math.pi * math.pi))


def expected(mu, mu_j, g_j):
    return 1.0 / (1.0 + math.exp(-g_j * (mu - mu_j)))


def volatility(phi, sigma, v, delta):
    """Step 5: the Illinois iteration on x = ln(sigma^2)."""
    a = math.log(sigma * sigma)
    phi2 = phi * phi

    def f(x):
        ex = math.exp(x)
        d = phi2 + v + ex
        return ex * (delta * delta - phi2 - v - ex) / (2.0 * d * d) - (x - a) / (TAU * TAU)

    big_a = a
    if delta * delta > phi2 + v:
        big_b = math.log(delta * delta - phi2 - v)
    else:
        k = 1.0
        steps = 0
        while f(a - k * TAU) < 0.0 and steps < MAX_ITERATIONS:
            k += 1.0
            steps += 1
        big_b = a - k * TAU
    f_a, f_b = f(big_a), f(big_b)
    steps = 0
    while abs(big_b - big_a) > EPSILON and steps < MAX_ITERATIONS:
        big_c = big_a + (big_a - big_b) * f_a / (f_b - f_a)
        f_c = f(big_c)
        if f_c * f_b <= 0.0:
            big_a, f_a = big_b, f_b
        else:
            f_a /= 2.0
        big_b, f_b = big_c, f_c
        steps += 1
    return math.exp(big_a / 2.0)


def rate(player, results):
    """One rating period: results are (opponent's (rating, rd, vol), score)."""
    rating, rd, sigma = player
    mu = (rating - 1500.0) / SCALE
    phi = rd / SCALE
    if not results:
        phi_star = math.sqrt(phi * phi + sigma * sigma)
        return (rating, min(max(phi_star * SCALE, RD_MIN), RD_MAX), sigma)
    inv_v = 0.0
    total = 0.0
    for (r_j, rd_j, _), score in results:
        mu_j = (r_j - 1500.0) / SCALE
        g_j = g(rd_j / SCALE)
        e_j = expected(mu, mu_j, g_j)
        inv_v += g_j * g_j * e_j * (1.0 - e_j)
        total += g_j * (score - e_j)
    v = 1.0 / inv_v
    delta = v * total
    sigma_new = volatility(phi, sigma, v, delta)
    phi_star = math.sqrt(phi * phi + sigma_new * sigma_new)
    phi_new = 1.0 / math.sqrt(1.0 / (phi_star * phi_star) + 1.0 / v)
    mu_new = mu + phi_new * phi_new * total
    return (SCALE * mu_new + 1500.0, min(max(SCALE * phi_new, RD_MIN), RD_MAX), sigma_new)


def idle(player, days):
    """Each whole idle day grows phi as step 6 does, up to the initial RD."""
    if days == 0:
        return player
    rating, rd, vol = player
    phi = rd / SCALE
    grown = math.sqrt(phi * phi + days * vol * vol)
    return (rating, min(grown * SCALE, INITIAL[1]), vol)


def number(x):
    """A float as the ledger's canonical JSON writes it (serde_json's
    shortest round-trip form): the shortest digits that read back to it,
    which repr finds, in decimal notation from 1e-5 to below 1e16 and as
    d.ddde+x or d.ddde-x outside that."""
    if isinstance(x, bool) or not isinstance(x, float):
        return json.dumps(x)
    if x == 0.0:
        return "-0.0" if math.copysign(1.0, x) < 0 else "0.0"
    sign, digit_tuple, exp = decimal.Decimal(repr(x)).as_tuple()
    digits = "".join(map(str, digit_tuple)).lstrip("0")
    while len(digits) > 1 and digits.endswith("0"):
        digits = digits[:-1]
        exp += 1
    n = len(digits)
    kk = n + exp  # 10^(kk-1) <= |x| < 10^kk
    text = ""
    if 0 <= exp and kk <= 16:
        text = digits + "0" * exp + ".0"
    elif 0 < kk <= 16:
        text = digits[:kk] + "." + digits[kk:]
    elif -5 < kk <= 0:
        text = "0." + "0" * -kk + digits
    elif n == 1:
        text = digits + "e" + exponent(kk - 1)
    else:
        text = digits[0] + "." + digits[1:] + "e" + exponent(kk - 1)
    return ("-" if sign else "") + text


def exponent(e):
    return ("+" if e >= 0 else "") + str(e)


def canonical(value):
    """Compact JSON, keys in the order given, floats as number() writes them."""
    if isinstance(value, dict):
        return "{" + ",".join(json.dumps(k) + ":" + canonical(v) for k, v in value.items()) + "}"
    if isinstance(value, list):
        return "[" + ",".join(canonical(v) for v in value) + "]"
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=False)
    if value is None:
        return "null"
    return number(value)


def line_hash(line):
    unhashed = {k: v for k, v in line.items() if k != "hash"}
    return hashlib.sha256(canonical(unhashed).encode("utf-8")).hexdigest()


def triple(r):
    return (r["rating"], r["rd"], r["vol"])


def correct(line, i, lines, ratings, voided):
    """A correction line's (before, after) per player: the voided match's
    result undone (see "Rating corrections"). Checks what it voids."""
    void = line["void"]
    target_n = void["line"]
    if not 1 <= target_n < i:
        raise ValueError(f"line {i}: it voids line {target_n}, which is not an earlier line")
    target = lines[target_n - 1]
    if "void" in target:
        raise ValueError(f"line {i}: line {target_n} is a correction, not a match")
    if target_n in voided:
        raise ValueError(f"line {i}: line {target_n} was voided already")
    voided.add(target_n)
    same = [(p["name"], p["seat"], p["team"], p["place"]) for p in target["players"]] == [
        (p["name"], p["seat"], p["team"], p["place"]) for p in line["players"]]
    if (target["pool"], target["room"], target["commitment"]) != (
            line["pool"], line["room"], line["commitment"]) or not same:
        raise ValueError(f"line {i}: it does not name line {target_n}'s match")
    if void["account"] not in [p["name"] for p in target["players"]]:
        raise ValueError(f"line {i}: {void['account']} did not play line {target_n}")
    before, after = [], []
    for p in target["players"]:
        known = ratings.get((line["pool"], p["name"]))
        if known is None:
            raise ValueError(f"line {i}: {p['name']} has no rating to correct")
        now = known[0]
        before.append(now)
        if p["name"] == void["account"]:
            after.append(triple(p["before"]))
        else:
            change = p["after"]["rating"] - p["before"]["rating"]
            after.append((now[0] - change, now[1], now[2]))
    return before, after


def fold(lines):
    """Checks the chain and re-folds; the largest differences found."""
    ratings = {}  # (pool, name) -> ((rating, rd, vol), at_ms of the last match)
    voided = set()  # the match lines voided so far
    prev = GENESIS
    worst_before = worst_after = 0.0
    for i, line in enumerate(lines, start=1):
        if line["n"] != i:
            raise ValueError(f"line {i}: n is {line['n']}")
        if line["prev"] != prev:
            raise ValueError(f"line {i}: prev is not the previous line's hash")
        if line_hash(line) != line["hash"]:
            raise ValueError(f"line {i}: hash does not match the line")
        prev = line["hash"]
        pool, at = line["pool"], line["at_ms"]
        players = line["players"]
        if "void" in line:
            before, after = correct(line, i, lines, ratings, voided)
            for p, b, a in zip(players, before, after):
                # A correction changes the rating, not when it last played.
                ratings[(pool, p["name"])] = (a, ratings[(pool, p["name"])][1])
                worst_before = max(worst_before, *(abs(x - y) for x, y in zip(b, triple(p["before"]))))
                worst_after = max(worst_after, *(abs(x - y) for x, y in zip(a, triple(p["after"]))))
            continue
        before = []
        for p in players:
            known = ratings.get((pool, p["name"]))
            if known is None:
                before.append(INITIAL)
            else:
                r, last = known
                before.append(idle(r, max(at - last, 0) // DAY_MS))
        after = []
        for i_p, p in enumerate(players):
            results = []
            for j, q in enumerate(players):
                partner = p["team"] is not None and q["team"] == p["team"]
                if j == i_p or partner:
                    continue
                score = 1.0 if p["place"] < q["place"] else 0.5 if p["place"] == q["place"] else 0.0
                results.append((before[j], score))
            after.append(rate(before[i_p], results))
        for p, b, a in zip(players, before, after):
            ratings[(pool, p["name"])] = (a, at)
            worst_before = max(worst_before, *(abs(x - y) for x, y in zip(b, triple(p["before"]))))
            worst_after = max(worst_after, *(abs(x - y) for x, y in zip(a, triple(p["after"]))))
    return worst_before, worst_after


def main():
    lines = [json.loads(text) for text in sys.stdin if text.strip()]
    try:
        worst_before, worst_after = fold(lines)
    except ValueError as e:
        print(json.dumps({"chain": False, "error": str(e)}))
        return 1
    players = {p["name"] for line in lines for p in line["players"]}
    print(json.dumps({
        "chain": True,
        "lines": len(lines),
        "corrections": sum(1 for line in lines if "void" in line),
        "players": len(players),
        "max_before_diff": worst_before,
        "max_after_diff": worst_after,
    }))
    return 0


if __name__ == "__main__":
    sys.exit(main())
