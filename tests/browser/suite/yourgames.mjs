// Your games: the your-turn badge and beep, correspondence games listed,
// another browser of the account told.

import assert from 'node:assert/strict';
import { andWait, uniqueName, PASSWORD, open, register, secondPlayer } from './helpers.mjs';

export const TESTS = {
  async your_turn_badge_beep_and_games_list_from_the_protocols_messages({ page, url, shot }) {
    // Several games at once, without playing them: this page's socket
    // passes everything through except my_games, answered here as the
    // protocol says, and lets the test send your_turn. (The same flow with
    // real games is in the two tests below.)
    let route = null;
    const games = [
      { room: 'aaaaaaaaaaa1', game: 'nimrod', seat: 0, status: 'playing', your_turn: false, players: ['me', 'them'], clock: { days_per_move: 3 }, deadline_ms: Date.now() + 2.5 * 86400000, rated: true },
      { room: 'aaaaaaaaaaa2', game: 'cribbage', seat: 1, status: 'playing', your_turn: true, players: ['them', 'me'], clock: { per_move: { ms: 60000 } }, deadline_ms: Date.now() + 50000, rated: false },
    ];
    await page.routeWebSocket(u => u.protocol === 'ws:', ws => {
      route = ws;
      const server = ws.connectToServer();
      ws.onMessage(frame => {
        if (JSON.parse(frame).type === 'my_games') ws.send(JSON.stringify({ type: 'games', games }));
        else server.send(frame);
      });
    });
    await open(page, url);
    await register(page, uniqueName('kim'));
    await page.waitForFunction(() => document.querySelector('#turn-badge')?.textContent === '1');
    const yourTurn = room => route.send(JSON.stringify({ type: 'your_turn', room, game: 'nimrod', seat: 0, deadline_ms: Date.now() + 86400000 }));
    yourTurn('aaaaaaaaaaa1');
    await page.waitForFunction(() => document.querySelector('#turn-badge').textContent === '2');
    assert.equal(await page.getAttribute('body', 'data-beeps'), '1', 'a beep on your_turn');
    assert.equal(await page.title(), '(2) Parlor');
    // Muted: the badge counts on, silently.
    await page.click('#mute');
    yourTurn('aaaaaaaaaaa3');
    await page.waitForFunction(() => document.querySelector('#turn-badge').textContent === '3');
    assert.equal(await page.getAttribute('body', 'data-beeps'), '1');
    // Your games lists the rooms, those waiting for us first.
    await page.click('#games-link');
    await page.waitForSelector('#my-games li.room');
    const rows = await page.$$eval('#my-games li.room', els => els.map(e => [e.dataset.room, e.dataset.turn, e.textContent]));
    assert.deepEqual(rows.map(r => r.slice(0, 2)), [['aaaaaaaaaaa2', 'yes'], ['aaaaaaaaaaa1', 'no']]);
    assert.match(rows[0][2], /your turn/);
    assert.match(rows[1][2], /3 days a move · 2 days left/);
    assert.match(rows[1][2], /rated/);
    await shot('your-games');
  },

  async a_correspondence_game_is_listed_under_your_games({ page, url, browser, shot }) {
    const bob = await secondPlayer(browser, url, 'bob');
    try {
      await open(page, url);
      await register(page, uniqueName('amy'));
      for (const p of [page, bob.page]) {
        await p.click('#seek-nimrod-open');
        await p.selectOption('#seek-nimrod-clock', 'days1');
        await p.click('#seek-nimrod');
      }
      await page.waitForSelector('#status[data-seq]');
      await bob.page.waitForSelector('#status[data-seq]');
      const room = page.url().match(/room\/([0-9a-f]+)/)[1];
      const amyToMove = (await page.getAttribute('#status', 'data-turn')) === 'yes';
      await page.click('#games-link');
      await page.waitForSelector(`#my-games li.room[data-room="${room}"]`);
      const row = await page.textContent(`#my-games li.room[data-room="${room}"]`);
      assert.match(row, /Nimrod/);
      assert.match(row, /1 day a move/);
      assert.equal(await page.getAttribute(`#my-games li.room[data-room="${room}"]`, 'data-turn'), amyToMove ? 'yes' : 'no');
      await shot('your-games-correspondence');
      // Open takes the seat up again, from the list.
      await page.click(`#my-games li.room[data-room="${room}"] .open-game`);
      await page.waitForSelector('.seat.me');
    } finally {
      await bob.context.close();
    }
  },

  async your_turn_reaches_another_browser_of_the_account({ page, url, browser }) {
    const bob = await secondPlayer(browser, url, 'bob');
    // Amy's other browser: a context of its own (its own resume token, so
    // it does not take her seat back), logged in to the same account.
    const elsewhere = await browser.newContext({ viewport: { width: 1000, height: 800 } });
    try {
      await open(page, url);
      const amy = uniqueName('amy');
      await register(page, amy);
      for (const p of [page, bob.page]) {
        await p.click('#seek-nimrod-open');
        await p.selectOption('#seek-nimrod-clock', 'days1');
        await p.click('#seek-nimrod');
      }
      await page.waitForSelector('#status[data-seq]');
      await bob.page.waitForSelector('#status[data-seq]');
      const room = page.url().match(/room\/([0-9a-f]+)/)[1];
      if ((await page.getAttribute('#status', 'data-turn')) === 'yes') {
        await andWait(page, async () => (await page.$$('button.move.legal'))[0].click());
      }
      // Amy leaves the room's page (her seat's connection closes); her
      // other browser is told when it is her turn again.
      await page.goto('about:blank');
      const other = await elsewhere.newPage();
      await open(other, url, '#/login');
      await other.fill('#login-name', amy);
      await other.fill('#login-password', PASSWORD);
      await other.click('#login-submit');
      await other.waitForFunction(n => document.querySelector('#me')?.textContent === n, amy);
      assert.equal(await other.textContent('#turn-badge'), '', 'not her turn yet');
      await bob.page.waitForSelector('#status[data-turn="yes"]');
      await andWait(bob.page, async () => (await bob.page.$$('button.move.legal'))[0].click());
      await other.waitForFunction(() => document.querySelector('#turn-badge')?.textContent === '1');
      assert.equal(await other.getAttribute('body', 'data-beeps'), '1', 'one beep for your_turn');
      assert.equal(await other.title(), '(1) Parlor');
      await other.screenshot({ path: `${process.env.SCREENSHOT_DIR || 'web-screenshots'}/your-turn-badge.png` });
      // Your games opens the room at her seat again.
      await other.click('#games-link');
      await other.waitForSelector(`#my-games li.room[data-room="${room}"][data-turn="yes"]`);
      await other.click(`#my-games li.room[data-room="${room}"] .open-game`);
      await other.waitForSelector('#status[data-turn="yes"]');
      assert.equal((await other.$$('.seat.me')).length, 1);
    } finally {
      await elsewhere.close();
      await bob.context.close();
    }
  },
};
