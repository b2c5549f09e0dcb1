// The bot ladder page.

import assert from 'node:assert/strict';
import { axe, uniqueName, open, photograph, accountWithToken, getJson, fitsPhone } from './helpers.mjs';

/**
 * A ladder bot in the page, over a WebSocket of its own (`bot`: {name,
 * token}): enters `game`'s ladder and takes every seat it is given; it
 * plays the first legal move in its first `play` games only, so that the
 * later ones stay in progress. Resolves once entered; window.ladderBot
 * keeps its rooms, the finished ones and any error the server sent.
 */
function startLadderBot(page, bot, game, play) {
  return page.evaluate(({ token, game, play }) => new Promise((resolve, reject) => {
    const ws = new WebSocket(`ws://${location.host}/`);
    const b = { ws, rooms: [], finished: [], errors: [] };
    window.ladderBot = b;
    const send = m => ws.send(JSON.stringify(m));
    const moved = new Map();
    ws.onopen = () => send({ type: 'hello', version: 1, token });
    ws.onmessage = e => {
      const m = JSON.parse(e.data);
      if (m.type === 'welcome') send({ type: 'ladder_join', game });
      else if (m.type === 'ladder_joined') resolve();
      else if (m.type === 'ladder_game') {
        b.rooms.push(m.room);
        send({ type: 'join', room: m.room, seat: m.seat });
      } else if (m.type === 'update' && m.you !== undefined) {
        if (m.status === 'finished' && !b.finished.includes(m.room)) b.finished.push(m.room);
        if (m.status === 'playing' && m.to_act.includes(m.you) && b.rooms.indexOf(m.room) < play
          && m.legal && m.legal.length && !(moved.get(m.room) >= m.seq)) {
          moved.set(m.room, m.seq);
          send({ type: 'play', room: m.room, seat: m.you, seq: m.seq, move: m.legal[0] });
        }
      } else if (m.type === 'error') {
        b.errors.push(`${m.code} ${m.message}`);
        reject(new Error(`${m.code} ${m.message}`));
      }
    };
  }), { token: bot.token, game, play });
}

/** The page's ladder bot leaves the ladder, then resigns the games it has left; resolves with those rooms. */
function stopLadderBot(page, game) {
  return page.evaluate(game => new Promise(resolve => {
    const b = window.ladderBot;
    b.ws.addEventListener('message', e => {
      if (JSON.parse(e.data).type !== 'ladder_left') return;
      const left = b.rooms.filter(r => !b.finished.includes(r));
      for (const room of left) b.ws.send(JSON.stringify({ type: 'leave', room }));
      resolve(left);
    });
    b.ws.send(JSON.stringify({ type: 'ladder_leave', game }));
  }), game);
}

export const TESTS = {
  async the_bot_ladder_page_shows_anchors_a_bot_that_played_its_games_and_refreshes_live({ page, url }) {
    await open(page, url);
    // From the navigation: every game's ladder, with its counts.
    await page.click('#ladders-link');
    await page.waitForSelector('#ladder-body[data-loaded="yes"]');
    const list = await getJson(page, '/api/ladder');
    assert.deepEqual(await page.$$eval('#ladders li', lis => lis.map(li => li.dataset.game)), list.map(l => l.game));
    const nimrod = list.find(l => l.game === 'nimrod');
    assert.ok(nimrod.entrants >= 3, 'the anchors are entered');
    assert.match(await page.textContent('#ladders li[data-game="nimrod"]'), new RegExp(`^Nimrod: ${nimrod.entrants} entrants, \\d+ being played$`));
    // A bot enters over the protocol: it plays out its first game and
    // leaves the next waiting for its move.
    const bot = await accountWithToken(page, uniqueName('climb'), 'bot');
    await startLadderBot(page, bot, 'nimrod', 1);
    const until = Date.now() + 60_000;
    let info;
    for (;;) {
      info = await getJson(page, '/api/ladder/nimrod');
      const me = info.entrants.find(e => e.name === bot.name);
      if (me && me.games >= 1 && me.playing >= 1) break;
      assert.ok(Date.now() < until, `no game played and one in progress: ${JSON.stringify(info)}`);
      await page.waitForTimeout(500);
    }
    const [played] = await page.evaluate(() => window.ladderBot.finished);
    assert.ok(played, 'a game finished');
    await page.click('#ladders li[data-game="nimrod"] a');
    await page.waitForSelector(`#ladder tbody tr[data-name="${bot.name}"]`);
    assert.equal(await page.textContent('#ladder-title'), 'Nimrod bot ladder');
    assert.match(await page.textContent('#ladder-how'), /parlor bot --token T --ladder nimrod --strategy S.*ladder_join/);
    // The entrants best first, as the API has them: the anchors marked and
    // connected, the bot connected, provisional, with its record.
    const rows = await page.$$eval('#ladder tbody tr', trs => trs.map(tr => {
      const cells = [...tr.children].map(c => c.textContent.trim());
      return {
        rank: Number(cells[0]), name: tr.dataset.name, rating: cells[2], games: Number(cells[4]), wld: cells[5].split('–').map(Number),
        anchor: Boolean(tr.querySelector('.anchor')), on: Boolean(tr.querySelector('.conn-dot.on')),
        dot: tr.querySelector('.conn-dot').getAttribute('aria-label'), link: tr.querySelector('th a').getAttribute('href'),
      };
    }));
    assert.deepEqual(rows.map(r => r.rank), rows.map((_, i) => i + 1));
    const ratings = rows.map(r => Number(r.rating.replace('?', '')));
    assert.deepEqual(ratings, ratings.slice().sort((a, b) => b - a), 'best rating first');
    for (const strategy of ['optimal', 'simple', 'random']) {
      const anchor = rows.find(r => r.name === `nimrod-${strategy}`);
      assert.ok(anchor && anchor.anchor && anchor.on, `nimrod-${strategy}: ${JSON.stringify(anchor)}`);
    }
    const mine = rows.find(r => r.name === bot.name);
    assert.equal(mine.anchor, false);
    assert.equal(mine.dot, 'connected');
    assert.equal(mine.link, `#/player/${bot.name}`);
    assert.match(mine.rating, /^\d+\?$/, 'provisional after a game or two');
    assert.ok(mine.games >= 1 && mine.wld.reduce((a, b) => a + b) === mine.games, JSON.stringify(mine));
    // Its finished game to replay, the waiting one to watch.
    await page.waitForSelector(`#ladder-recent li.game[data-room="${played}"] a.replay-link[href="#/replay/${played}"]`);
    assert.match(await page.getAttribute(`#ladder-recent li.game[data-room="${played}"]`, 'data-result'), /^(seat0|seat1|draw)$/);
    assert.match(await page.textContent(`#ladder-recent li.game[data-room="${played}"] .result`), /^(1–0|0–1|½–½)$/);
    const live = await page.$$eval('#ladder-playing li.game', (lis, name) => lis.filter(li => li.textContent.includes(name))
      .map(li => [li.dataset.room, li.querySelector('a.watch-link').getAttribute('href')]), bot.name);
    assert.ok(live.length >= 1, 'a game in progress');
    for (const [room, href] of live) assert.equal(href, `#/room/${room}/watch`);
    await axe(page, 'ladder');
    await photograph(page, 'ladder');
    await fitsPhone(page, 'the ladder page');
    // Live: the bot leaves and resigns what it has left; the page, asked
    // again every few seconds, drops it and lists those games as over.
    let asked = 0;
    page.on('request', r => { if (new URL(r.url()).pathname === '/api/ladder/nimrod') asked++; });
    const resigned = await stopLadderBot(page, 'nimrod');
    assert.ok(resigned.length >= 1);
    await page.waitForSelector(`#ladder tbody tr[data-name="${bot.name}"]`, { state: 'detached', timeout: 20_000 });
    for (const room of resigned) {
      await page.waitForSelector(`#ladder-recent li.game[data-room="${room}"]`, { timeout: 20_000 });
      // Said how it ended, not only "1–0".
      const end = `#ladder-recent li.game[data-room="${room}"] .end`;
      assert.equal(await page.getAttribute(end, 'data-end'), 'resigned');
      assert.match(await page.textContent(end), /resigned/);
    }
    assert.ok(asked >= 1, `asked ${asked} times`);
    assert.deepEqual(await page.evaluate(() => window.ladderBot.errors), []);
    await page.evaluate(() => window.ladderBot.ws.close());
    // From the leaderboard to the ladder; no asking once the page is left.
    await page.click('#leaderboards-link');
    await page.click('#board-ladder-link');
    await page.waitForSelector('#ladder-body[data-loaded="yes"]');
    await page.click('.brand');
    await page.waitForSelector('#quick-nimrod');
    const left = asked;
    await page.waitForTimeout(4000);
    assert.equal(asked, left, 'no asking once the page is left');
  },
};
