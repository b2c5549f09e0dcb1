// Following players: Follow on a player's page; the lobby's Following
// panel shows them online, with the game they start (without a reload),
// Watch opens it as a spectator, Challenge opens the challenge form set
// to that game, Unfollow empties the panel again; a hidden tab asks nothing.
// Two of its photographs are the README's: docs/screenshots/lobby-following.png
// (lobby-following.png here) and docs/screenshots/cribbage-table-chat.png
// (cribbage-table-chat.png here), copied from the screenshot directory.

import assert from 'node:assert/strict';
import { SHOTS_DIR, andWait, axe, fitsPhone, getJson, open, ourTurn, photograph, register, secondPlayer, settled, uniqueName } from './helpers.mjs';

/** How often the visible lobby asks again (following.js's FOLLOWS_REFRESH_MS). */
const FOLLOWS_REFRESH_MS = 15000;

/** The panel's row of `name`. */
const row = name => `#following li.follow[data-player="${name}"]`;

export const TESTS = {
  async following_a_player_shows_them_online_in_a_game_to_watch({ page, url, browser, shot }) {
    await open(page, url);
    const ann = uniqueName('folA');
    await register(page, ann);
    const bob = await secondPlayer(browser, url, 'folB');
    try {
      // Nobody followed yet: the panel says how to follow someone.
      await page.click('.brand');
      await page.waitForSelector('#following .following-empty');
      assert.match(await page.textContent('#following'), /open their page .* press Follow/);

      // Follow from Bob's page; the button turns into Unfollow.
      await page.goto(`${url}#/player/${bob.name}`);
      await page.click('#follow-toggle[data-following="no"]:not([disabled])');
      await page.waitForSelector('#follow-toggle[data-following="yes"]:not([disabled])');
      assert.equal(await page.textContent('#follow-toggle'), 'Unfollow');
      assert.deepEqual((await getJson(page, '/api/follows')).follows.map(f => f.player), [bob.name]);

      // The lobby: Bob online, in no game yet.
      await page.click('.brand');
      await page.waitForSelector(`${row(bob.name)}[data-online="yes"]`);
      assert.equal(await page.$(`${row(bob.name)} li.follow-game`), null);
      assert.equal(await page.textContent(`${row(bob.name)} .follow-state`), 'online');

      // Bob sits down to Cribbage against a bot, plays a little and says something.
      await bob.page.click('#quick-cribbage');
      await bob.page.waitForSelector('#status[data-status="playing"]');
      const room = bob.page.url().match(/room\/([0-9a-f]+)/)[1];
      assert.ok(await ourTurn(bob.page));
      await bob.page.click('#hand .card[data-i="0"]');
      await bob.page.click('#hand .card[data-i="1"]');
      await andWait(bob.page, () => bob.page.click('#throw'));
      for (let i = 0; i < 1 && await ourTurn(bob.page); i++) {
        if ((await bob.page.getAttribute('#status', 'data-status')) !== 'playing' || await bob.page.$('#throw')) break;
        await andWait(bob.page, () => bob.page.click('#hand .card.playable'));
      }
      await bob.page.click('.chat-phrases button[data-phrase="good_luck"]');
      await bob.page.fill('#chat-input', 'Pegging is the fun part.');
      await bob.page.press('#chat-input', 'Enter');
      await bob.page.waitForFunction(() => document.querySelectorAll('#chat-lines li').length >= 2);
      // The table with its chat panel (the README's picture).
      await settled(bob.page);
      await bob.page.setViewportSize({ width: 1280, height: 800 });
      await bob.page.evaluate(() => { document.activeElement.blur(); window.scrollTo(0, 0); });
      await bob.page.screenshot({ path: `${SHOTS_DIR}/cribbage-table-chat.png` });

      // Ann's open lobby, asked again on its own, shows the game with Watch.
      const game = `${row(bob.name)} li.follow-game[data-room="${room}"]`;
      await page.waitForSelector(`${game}[data-game="cribbage"] a.watch`);
      assert.match(await page.textContent(game), new RegExp(`Cribbage.*${bob.name} · bot \\(expert\\)`));
      await axe(page, 'lobby with the Following panel');
      await fitsPhone(page, 'the lobby with its Following panel');
      await page.setViewportSize({ width: 1280, height: 800 });
      await shot('lobby-following');
      await photograph(page, 'lobby-following');

      // A hidden tab asks nothing; shown again, it asks at once.
      const asked = [];
      page.on('request', r => { if (new URL(r.url()).pathname === '/api/follows') asked.push(Date.now()); });
      const hidden = value => page.evaluate(v => {
        if (v) Object.defineProperty(document, 'hidden', { configurable: true, get: () => true });
        else delete document.hidden;
        document.dispatchEvent(new Event('visibilitychange'));
      }, value);
      await hidden(true);
      await page.waitForTimeout(FOLLOWS_REFRESH_MS + 2000);
      assert.deepEqual(asked, [], 'the panel asked while the tab was hidden');
      const again = page.waitForRequest(r => new URL(r.url()).pathname === '/api/follows', { timeout: 3000 });
      await hidden(false);
      await again;

      // Challenge: Bob's page, its challenge form set to the game he plays and focused.
      await page.click(`${row(bob.name)} a.challenge`);
      await page.waitForFunction(() => document.activeElement?.id === 'challenge-game');
      assert.equal(await page.inputValue('#challenge-game'), 'cribbage');
      assert.equal(await page.textContent('#player-name'), bob.name);

      // Watch: Bob's room, as a spectator.
      await page.click('.brand');
      await page.click(`${game} a.watch`);
      await page.waitForSelector('#status[data-seq]');
      assert.ok(page.url().endsWith(`#/room/${room}/watch`), page.url());
      assert.equal(await page.$$eval('.seat.me', els => els.length), 0, 'a spectator holds no seat');
      assert.equal(await page.$('#throw'), null);
      const now = await getJson(page, '/api/follows');
      assert.deepEqual(now.follows[0].playing.map(g => g.room), [room]);

      // Unfollow from the panel: Bob goes, the empty state is back.
      await page.click('.brand');
      await page.click(`${row(bob.name)} button.unfollow`);
      await page.waitForSelector('#following .following-empty');
      assert.equal(await page.$(row(bob.name)), null);
      assert.deepEqual((await getJson(page, '/api/follows')).follows, []);
      // The page says Follow again.
      await page.goto(`${url}#/player/${bob.name}`);
      await page.waitForSelector('#follow-toggle[data-following="no"]:not([disabled])');
      assert.deepEqual(bob.errors, []);
    } finally {
      await bob.context.close();
    }
  },
};
