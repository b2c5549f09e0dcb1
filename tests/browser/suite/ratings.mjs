// Rated games: the leaderboard and a player's rating history.

import assert from 'node:assert/strict';
import { axe, uniqueName, open, register, photograph, accountWithToken, getJson } from './helpers.mjs';

/**
 * Rated Nimrod matches played in the page over WebSockets of its own, one
 * per account (`players`: [{name, token}]), by challenge: `pattern` lists
 * [winner, loser] indexes; the winner takes the last rod. Piles [2, 3]
 * cannot be emptied in one move, so both seats move (a rated match a seat
 * never began is aborted, not rated). Returns each match's room.
 */
function playRatedNimrod(page, players, pattern) {
  return page.evaluate(async ({ players, pattern }) => {
    const STEP_WITHIN_MS = 10_000;
    const client = token => {
      const ws = new WebSocket(`ws://${location.host}/`);
      const queue = [];
      let wake = () => {};
      ws.onmessage = e => { queue.push(JSON.parse(e.data)); wake(); };
      const next = async (wanted, what) => {
        const deadline = Date.now() + STEP_WITHIN_MS;
        for (;;) {
          const bad = queue.findIndex(m => m.type === 'error');
          if (bad >= 0) throw new Error(`${what}: ${JSON.stringify(queue[bad])}`);
          const i = queue.findIndex(wanted);
          if (i >= 0) return queue.splice(i, 1)[0];
          if (Date.now() > deadline) throw new Error(`no ${what}`);
          await new Promise(r => { wake = r; setTimeout(r, 100); });
        }
      };
      const send = m => ws.send(JSON.stringify(m));
      const ready = new Promise(r => { ws.onopen = r; }).then(() => {
        send({ type: 'hello', version: 1, token });
        return next(m => m.type === 'welcome', 'welcome');
      });
      /** The room's latest update at `seq` or later, once dealt. */
      const update = async (room, seq) => {
        let u = await next(m => m.type === 'update' && m.room === room && m.seq >= seq && m.status !== 'waiting', `update ${seq} of ${room}`);
        for (let i; (i = queue.findIndex(m => m.type === 'update' && m.room === room && m.seq > u.seq)) >= 0;) u = queue.splice(i, 1)[0];
        return u;
      };
      return { send, next, update, ready, drain: () => queue.splice(0), close: () => ws.close() };
    };
    const clients = players.map(p => client(p.token));
    await Promise.all(clients.map(c => c.ready));
    const rooms = [];
    for (const [w, l] of pattern) {
      const [a, b] = [clients[w], clients[l]];
      a.send({ type: 'challenge', to: players[l].name, game: 'nimrod', options: { piles: [2, 3] }, rated: true });
      const made = await b.next(m => m.type === 'challenge_made', 'challenge_made');
      b.send({ type: 'accept', challenge: made.challenge });
      const ended = await a.next(m => m.type === 'challenge_ended' && m.challenge === made.challenge, 'challenge_ended');
      const room = ended.room;
      let seq = 0;
      for (let step = 0; ; step++) {
        if (step > 20) throw new Error(`${room} did not end`);
        const [ua, ub] = await Promise.all([a.update(room, seq), b.update(room, seq)]);
        if (ua.status === 'finished' && ub.status === 'finished') break;
        const winnerMoves = ua.to_act.includes(ua.you);
        const u = winnerMoves ? ua : ub;
        const [x, y] = u.view.piles;
        // The winner empties the board when one move can; else both take one from the fuller pile.
        const take = winnerMoves && (x === 0 || y === 0 || x === y) ? [x, y] : x >= y ? [1, 0] : [0, 1];
        (winnerMoves ? a : b).send({ type: 'play', room, seat: u.you, seq: u.seq, move: { take } });
        seq = u.seq + 1;
      }
      rooms.push(room);
      // What is left of this match (the challenger's own challenge_made, updates) must not answer the next.
      for (const c of [a, b]) c.drain();
    }
    for (const c of clients) c.close();
    return rooms;
  }, { players, pattern });
}

/** The leaderboard as the page shows it: [rank, name, rating, rd, games] per row. */
function boardRows(page) {
  return page.$$eval('#leaderboard tbody tr', trs => trs.map(tr => {
    const cells = [...tr.children].map(c => c.textContent.trim());
    return [Number(cells[0]), tr.dataset.name, Number(cells[2]), Number(cells[3]), Number(cells[4])];
  }));
}

/** The same rows from the API's answer. */
function apiRows(board) {
  return board.players.map(p => [p.rank, p.name, Math.round(p.rating), Math.round(p.rd), p.games]);
}

export const TESTS = {
  async rated_games_fill_the_leaderboard_and_a_players_rating_history({ page, url, shot }) {
    await open(page, url);
    // Two people and a bot, rated in Nimrod by 36 matches (ann plays 30,
    // ben 24, cal 18: enough to bring every RD under 110 and onto the
    // leaderboard), with results that rank them ann > ben > cal-bot.
    // Then dee's one match leaves her provisional.
    const [ann, ben, cal, dee] = await Promise.all([
      accountWithToken(page, uniqueName('ann'), 'human'),
      accountWithToken(page, uniqueName('ben'), 'human'),
      accountWithToken(page, uniqueName('cal'), 'bot'),
      accountWithToken(page, uniqueName('dee'), 'human'),
    ]);
    const round = [[0, 1], [1, 2], [2, 0], [0, 2], [1, 0], [0, 1]];
    const pattern = [...Array(6).fill(round).flat(), [3, 2]];
    const rooms = await playRatedNimrod(page, [ann, ben, cal, dee], pattern);
    assert.equal(rooms.length, pattern.length);

    // The leaderboard, from the header's link: the API's rows, in its order.
    await page.click('#leaderboards-link');
    await page.waitForSelector('#leaderboard-body[data-game="nimrod"][data-kind="all"][data-loaded="yes"]');
    assert.equal(await page.textContent('#leaderboard-title'), 'Nimrod leaderboard');
    const all = await getJson(page, '/api/leaderboard/nimrod?limit=50');
    assert.deepEqual(await boardRows(page), apiRows(all));
    const ours = all.players.filter(p => [ann.name, ben.name, cal.name].includes(p.name)).map(p => p.name);
    assert.deepEqual(ours, [ann.name, ben.name, cal.name], 'all three established, in the order their results give');
    assert.ok(!all.players.some(p => p.name === dee.name), 'a provisional rating is not listed');
    assert.match(await page.textContent('.leaderboard-screen'), /Provisional ratings .* are not listed/);
    await axe(page, 'leaderboard');
    await photograph(page, 'leaderboard');
    await page.setViewportSize({ width: 360, height: 740 });
    const boardWidth = await page.evaluate(() => document.documentElement.scrollWidth);
    assert.ok(boardWidth <= 360, `leaderboard is ${boardWidth} px wide`);
    await page.setViewportSize({ width: 1000, height: 800 });
    // Bots only, from the keyboard; then people only.
    await page.focus('#kind-bot');
    await page.keyboard.press('Enter');
    await page.waitForSelector('#leaderboard-body[data-kind="bot"][data-loaded="yes"]');
    assert.match(page.url(), /#\/leaderboard\/nimrod\?kind=bot$/);
    const bots = await getJson(page, '/api/leaderboard/nimrod?kind=bot&limit=50');
    assert.ok(bots.players.some(p => p.name === cal.name));
    assert.deepEqual(await boardRows(page), apiRows(bots));
    assert.equal(await page.getAttribute('#kind-bot', 'aria-current'), 'page');
    await page.click('#kind-human');
    await page.waitForSelector('#leaderboard-body[data-kind="human"][data-loaded="yes"]');
    const people = await getJson(page, '/api/leaderboard/nimrod?kind=human&limit=50');
    assert.deepEqual(await boardRows(page), apiRows(people));
    assert.ok(!(await boardRows(page)).some(r => r[1] === cal.name), 'no bot among the people');
    // A board nobody is on yet says how to get rated.
    await page.click('.board-games a:has-text("Cribbage")');
    await page.waitForSelector('#leaderboard-body[data-game="cribbage"][data-kind="human"][data-loaded="yes"]');
    assert.deepEqual((await getJson(page, '/api/leaderboard/cribbage?kind=human')).players, []);
    assert.match(await page.textContent('#leaderboard-empty'), /Nobody has an established Cribbage rating yet.*register.*rated/s);
    await axe(page, 'leaderboard-empty');
    await shot('leaderboard-empty');

    // Ann's page, from her row: her rating now, her history plotted, her recent games.
    await page.click('#leaderboards-link');
    await page.waitForSelector(`#leaderboard tr[data-name="${ann.name}"] a`);
    await page.click(`#leaderboard tr[data-name="${ann.name}"] a`);
    await page.waitForSelector('#history-nimrod svg circle.dot');
    const pageApi = await getJson(page, `/api/players/${ann.name}`);
    const history = await getJson(page, `/api/players/${ann.name}/history?pool=nimrod`);
    const r = pageApi.ratings.nimrod;
    assert.equal(r.provisional, false);
    assert.equal(await page.textContent('#rating-nimrod'), String(Math.round(r.rating)));
    assert.equal(await page.textContent('#rd-nimrod'), `RD ${Math.round(r.rd)}`);
    const annGames = pattern.filter(m => m.includes(0)).length;
    assert.equal(history.points.length, annGames);
    assert.deepEqual(history.points.map(p => p.room), rooms.filter((_, i) => pattern[i].includes(0)), 'her games, oldest first');
    const drawn = await page.$$eval('#history-nimrod circle.dot:not(.start)', els => els.map(e => [Number(e.dataset.game), Number(e.dataset.n), Number(e.dataset.rating), Number(e.dataset.rd)]));
    assert.deepEqual(drawn, history.points.map((p, i) => [i + 1, p.n, p.rating, p.rd]));
    assert.equal(Number(await page.getAttribute('#history-nimrod circle.dot.start', 'data-rating')), 1500);
    // The band is as wide as the deviation: narrower at the end than at the start.
    assert.ok(await page.$('#history-nimrod polygon.rd-band'));
    const lastRd = history.points[annGames - 1].rd;
    assert.ok(lastRd < history.start.rd / 2, `${history.start.rd} -> ${lastRd}`);
    // Recent games: newest first, with opponents, result, change, replay link.
    const recent = await page.$$eval('#recent-nimrod tbody tr', trs => trs.map(tr => ({
      room: tr.dataset.room,
      cells: [...tr.children].map(c => c.textContent.trim()),
      replay: tr.querySelector('a.replay-link').getAttribute('href'),
    })));
    const newest = history.points.slice(-10).reverse();
    assert.equal(recent.length, 10);
    recent.forEach((row, i) => {
      const p = newest[i];
      assert.equal(row.room, p.room);
      assert.equal(row.cells[1], p.opponents.join(', '));
      assert.equal(row.cells[2], p.result);
      assert.equal(row.cells[3].replace('−', '-'), `${p.change > 0 ? '+' : ''}${p.change.toFixed(1)}`);
      assert.equal(Number(row.cells[4]), Math.round(p.rating));
      assert.equal(row.replay, `#/replay/${p.room}`);
    });
    assert.ok(rooms.includes(recent[0].room), 'a room these tests played');
    await axe(page, 'player-rated');
    await photograph(page, 'player-rated');
    await page.setViewportSize({ width: 360, height: 740 });
    const wide = await page.evaluate(() => document.documentElement.scrollWidth);
    assert.ok(wide <= 360, `player page is ${wide} px wide`);
    await shot('player-rated-360px', { fullPage: true });
    await page.setViewportSize({ width: 1000, height: 800 });
    // A provisional rating shows its "?" and says why it is not listed.
    await page.goto(`${url}#/player/${dee.name}`);
    // (The page before is a player's page too: wait for this one's.)
    await page.waitForFunction(n => document.querySelector('#player-name')?.textContent === n && document.querySelector('#rating-nimrod'), dee.name);
    const deeRating = (await getJson(page, `/api/players/${dee.name}`)).ratings.nimrod;
    assert.equal(deeRating.provisional, true);
    assert.equal(await page.textContent('#rating-nimrod'), `${Math.round(deeRating.rating)}?`);
    assert.match(await page.textContent('#pool-nimrod'), /Provisional \(the \?\).*stays off the leaderboard/);
    assert.equal(await page.locator('#history-nimrod circle.dot:not(.start)').count(), 1);
    await page.goBack();
    await page.waitForFunction(n => document.querySelector('#player-name')?.textContent === n && document.querySelector('#recent-nimrod'), ann.name);
    // The replay link opens the match's replay.
    await page.click('#recent-nimrod tbody tr:first-child a.replay-link');
    await page.waitForSelector('#step');
    assert.ok(page.url().endsWith(`#/replay/${recent[0].room}`));
  },
};
