// Watching and replaying: a spectator of bots, and replays with their plots.

import assert from 'node:assert/strict';
import { open, settled } from './helpers.mjs';

export const TESTS = {
  async spectate_a_bot_game_and_see_it_progress({ page, url, shot }) {
    await page.goto(url);
    await page.waitForSelector('#conn[data-up="yes"]');
    // Mitsudomoe's search bot thinks before each turn, so the match
    // lasts long enough to watch.
    await page.click('#watch-bots-mitsudomoe');
    await page.waitForSelector('#status[data-seq]');
    assert.match(page.url(), /\/watch$/);
    const first = Number(await page.getAttribute('#status', 'data-seq'));
    await page.waitForFunction(s => Number(document.querySelector('#status').dataset.seq) >= s + 2, first);
    const later = Number(await page.getAttribute('#status', 'data-seq'));
    assert.ok(later >= first + 2, `${first} -> ${later}`);
    // A spectator has no hand to play from.
    assert.equal(await page.$('#turn'), null);
    assert.equal((await page.$$('.seat.me')).length, 0);
    await shot('spectating-mitsudomoe');
    // The room list shows it with a watcher.
    await page.click('a[href="#/"]');
    await page.selectOption('#filter-game', 'mitsudomoe');
    await page.waitForSelector('#room-list li.room[data-game="mitsudomoe"]');
  },

  async replay_plot_shows_the_servers_win_chances({ page, url, shot }) {
    await page.goto(url);
    await page.waitForSelector('#conn[data-up="yes"]');
    await page.click('#watch-bots-rummikub');
    await page.waitForSelector('#status[data-status="finished"]');
    const room = page.url().match(/room\/([0-9a-f]+)/)[1];
    await page.click('#open-replay');
    await page.waitForSelector('#plot svg.plot circle');
    await shot('replay-rummikub');
    const plotted = await page.$$eval('#plot circle.dot', els => els.map(e => [Number(e.dataset.x), Number(e.dataset.y)]));
    // Ask the server ourselves, on a connection of our own.
    const server = await page.evaluate(room => new Promise((resolve, reject) => {
      const ws = new WebSocket(`ws://${location.host}/`);
      ws.onopen = () => ws.send(JSON.stringify({ type: 'hello', version: 1 }));
      ws.onmessage = e => {
        const m = JSON.parse(e.data);
        if (m.type === 'welcome') ws.send(JSON.stringify({ type: 'get_log', room, predict: true }));
        if (m.type === 'analysis') { ws.close(); resolve(m.results.map(r => [r.ply, r.win_fraction])); }
        if (m.type === 'error') reject(new Error(m.message));
      };
    }), room);
    assert.ok(server.length > 3);
    assert.deepEqual(plotted, server);
    // The slider steps through the match; the text follows the plot.
    const k = Math.floor(server.length / 2);
    await page.$eval('#step', (el, k) => { el.value = k; el.dispatchEvent(new Event('input')); }, k);
    const text = await page.textContent('#win-chance');
    assert.ok(text.includes(`${(server[k][1] * 100).toFixed(1)}%`), text);
    const steps = await page.$$('#replay-status');
    assert.equal(steps.length, 1);
    await shot('replay-rummikub-step');
  },

  async cribbage_replay_shows_the_score_race({ page, url, shot }) {
    await page.goto(url);
    await page.waitForSelector('#conn[data-up="yes"]');
    await page.click('#watch-bots-cribbage');
    await page.waitForSelector('#status[data-status="finished"]');
    await settled(page);
    // The final scores as the room showed them to a spectator.
    const final = await page.$$eval('#scores .score strong', els => els.map(e => Number(e.textContent)));
    assert.equal(final.length, 2);
    assert.ok(Math.max(...final) >= 121, final.join());
    await page.click('#open-replay');
    await page.waitForSelector('#plot svg.plot circle');
    const points = await page.$$eval('#plot circle.dot', els => els.map(e => [Number(e.dataset.series), Number(e.dataset.x), Number(e.dataset.y)]));
    const steps = Number(await page.getAttribute('#step', 'max'));
    for (const side of [0, 1]) {
      const race = points.filter(p => p[0] === side).sort((a, b) => a[1] - b[1]);
      assert.equal(race.length, steps + 1, 'a point per position');
      assert.equal(race[0][2], 0, 'everyone starts at 0');
      assert.equal(race[race.length - 1][2], final[side], 'the race ends at the final score');
      assert.ok(race.every((p, i) => i === 0 || p[2] >= race[i - 1][2]), 'scores never go down');
    }
    // Stepping back shows an earlier position, drawn like the live board.
    await page.focus('#step');
    for (let i = 0; i < 5; i++) await page.keyboard.press('ArrowLeft');
    assert.equal(Number(await page.inputValue('#step')), steps - 5);
    await page.waitForSelector('#position #scores');
    await page.evaluate(() => window.scrollTo(0, 0));
    await shot('replay-cribbage');
  },
};
