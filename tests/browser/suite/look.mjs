// How the page looks and moves: the dark theme, each game's table, reduced
// motion.

import assert from 'node:assert/strict';
import { statusIs, ourTurn, andWait, open, settled } from './helpers.mjs';

export const TESTS = {
  async dark_mode_follows_the_system_and_the_switch_is_remembered({ page, url, shot }) {
    const bg = () => page.evaluate(() => getComputedStyle(document.body).backgroundColor);
    const dark = rgb => { const [r, g, b] = rgb.match(/\d+/g).map(Number); return r + g + b < 150; };
    await page.emulateMedia({ colorScheme: 'dark' });
    await open(page, url);
    assert.ok(dark(await bg()), 'the system is dark: so is the page');
    assert.equal(await page.getAttribute('#theme', 'aria-pressed'), 'true');
    await page.emulateMedia({ colorScheme: 'light' });
    await page.waitForFunction(() => document.querySelector('#theme').getAttribute('aria-pressed') === 'false');
    assert.ok(!dark(await bg()), 'the system turned light: so did the page');
    // The switch (from the keyboard) overrides the system, and is remembered.
    await page.focus('#theme');
    await page.keyboard.press('Enter');
    assert.equal(await page.getAttribute('#theme', 'aria-pressed'), 'true');
    assert.ok(dark(await bg()));
    await page.reload();
    await page.waitForSelector('#conn[data-up="yes"]');
    assert.ok(dark(await bg()), 'dark after a reload though the system is light');
    await shot('lobby-dark');
    await page.click('#theme');
    assert.ok(!dark(await bg()));
  },

  async the_opponents_nimrod_move_fades_its_rods_and_stays_marked({ page, url, shot }) {
    await open(page, url);
    await page.selectOption('#create-game', 'nimrod');
    await page.fill('input[name=pile_a]', '6');
    await page.fill('input[name=pile_b]', '11');
    await page.selectOption('select.opp', 'optimal');
    await page.click('#create-submit');
    assert.ok(await ourTurn(page));
    await andWait(page, () => page.click('button.move.legal[data-take="1,0"]'));
    // The bot's answer: its rods fade (the test waits for the animation's
    // end), then stay as ghosts on top of the pile they came from.
    await statusIs(page, /Your turn|lost|won/);
    await settled(page);
    const last = await page.textContent('.last-move');
    const took = last.match(/took (\d+) from (pile A|pile B|both piles)/);
    assert.ok(took, last);
    const ghosts = await page.$$eval('svg.pile .rod.gone', els => els.map(e => getComputedStyle(e).opacity));
    const n = Number(took[1]) * (took[2] === 'both piles' ? 2 : 1);
    assert.equal(ghosts.length, n, `${ghosts.length} ghost rods after "${last}"`);
    assert.ok(ghosts.every(o => Number(o) < 0.5), ghosts.join());
    await shot('nimrod-opponent-moved');
  },

  async cribbage_table_peg_board_fanned_pile_and_crib_beside_the_dealer({ page, url, shot }) {
    await open(page, url);
    await page.click('#quick-cribbage');
    assert.ok(await ourTurn(page));
    // 121 holes a side (the start and the game hole included), two pegs a side.
    assert.equal(await page.locator('#pegboard .hole').count(), 2 * 120 + 2 + 1);
    assert.equal(await page.locator('#pegboard .peg').count(), 4);
    // The crib lies beside the dealer's place.
    const dealer = await page.$eval('.place.dealer', e => e.textContent);
    assert.match(dealer, /deals/);
    assert.ok(await page.$('.place.dealer #crib'), 'the crib is at the dealer\'s place');
    await page.click('#hand .card[data-i="0"]');
    await page.click('#hand .card[data-i="1"]');
    await andWait(page, () => page.click('#throw'));
    for (let i = 0; i < 6 && await ourTurn(page); i++) {
      if ((await page.getAttribute('#status', 'data-status')) !== 'playing') break;
      if (await page.$('#throw')) break;
      await andWait(page, () => page.click('#hand .card.playable'));
      await settled(page);
      const series = await page.$$eval('#pile .card', els => els.length);
      const count = await page.textContent('#count').catch(() => '');
      if (series) {
        assert.match(count, /^Count \d+$/);
        assert.equal(await page.locator('#pile .card.last').count(), 1, 'the last card laid is marked');
      }
    }
    await settled(page);
    // The front pegs stand at the scores shown.
    const scores = await page.$$eval('#scores .score strong', els => els.map(e => Number(e.textContent)));
    const pegs = await page.$$eval('#pegboard .peg.front', els => els.map(e => Number(e.dataset.score)));
    assert.deepEqual(pegs, scores);
    await page.setViewportSize({ width: 1280, height: 800 });
    await shot('cribbage-table');
    // Card faces stay readable at 360 px: the hand's cards at least 44 px wide, nothing sticking out.
    await page.setViewportSize({ width: 360, height: 740 });
    const widths = await page.$$eval('#hand .card', els => els.map(e => e.getBoundingClientRect().width));
    assert.ok(widths.every(w => w >= 44), widths.join());
    const wide = await page.evaluate(() => document.documentElement.scrollWidth);
    assert.ok(wide <= 360, `page is ${wide} px wide`);
    await shot('cribbage-table-360px', { fullPage: true });
  },

  async rummikub_tiles_on_felt_and_a_rack_sorted_by_colour({ page, url, shot }) {
    await open(page, url);
    await page.click('#quick-rummikub');
    assert.ok(await ourTurn(page));
    const rack = () => page.$$eval('#rack .block', els => els.map(e => e.getAttribute('aria-label')));
    const byNumber = await rack();
    const numbers = byNumber.map(l => Number(l.split(' ')[0]));
    assert.deepEqual(numbers, numbers.slice().sort((a, b) => a - b), 'sorted by number at first');
    await page.click('#sort-color');
    const byColour = await rack();
    assert.deepEqual(byColour.slice().sort(), byNumber.slice().sort(), 'the same tiles');
    const colours = byColour.map(l => l.split(' ')[1]);
    const runs = colours.filter((c, i) => i === 0 || c !== colours[i - 1]).length;
    assert.equal(runs, new Set(colours).size, `grouped by colour: ${colours.join()}`);
    assert.equal(await page.getAttribute('#sort-color', 'aria-pressed'), 'true');
    // The table is felt; after moves, the last move's tiles are marked.
    assert.ok(await page.$('#table-rows.felt'));
    for (let i = 0; i < 6 && await ourTurn(page); i++) {
      await andWait(page, () => page.click('#legal button'));
      if (await page.$('#table-rows .block.last')) break;
    }
    await settled(page);
    await shot('rummikub-table');
    await page.setViewportSize({ width: 360, height: 740 });
    await page.emulateMedia({ colorScheme: 'dark' });
    await shot('rummikub-table-360px-dark');
  },

  async mitsudomoe_shows_the_last_turns_path({ page, url, shot }) {
    await open(page, url);
    await page.click('#quick-mitsudomoe');
    assert.ok(await ourTurn(page));
    // From the keyboard: Tab onto a square, Enter picks it.
    const first = await page.textContent('#legal button');
    const to = first.trim().split(/\s+/)[1].split('-')[1];
    await page.focus(`rect.sq[data-sq="${to}"]`);
    await page.keyboard.press('Enter');
    await page.waitForSelector(`rect.sq.picked[data-sq="${to}"]`);
    assert.equal(await page.evaluate(() => document.activeElement.dataset.sq), to, 'focus stays on the square');
    await andWait(page, () => page.click('#legal button'));
    assert.ok(await ourTurn(page));
    await settled(page);
    // The opponent's turn: its ball's path drawn, the ball and ring marked.
    assert.equal(await page.locator('svg.mitsu .ball-path').count(), 1);
    assert.equal(await page.locator('svg.mitsu .ball.last').count(), 1);
    // The ball marked is on the square the last turn's notation names.
    const notation = (await page.textContent('.last-move')).replace(/^Last turn: bot \(\w+\) /, '').trim();
    const ballTo = notation.split(/\s+/)[1].split('-')[1];
    assert.equal(await page.getAttribute('svg.mitsu .ball.last', 'cx'), await page.evaluate(sq => {
      const r = document.querySelector(`rect.sq[data-sq="${sq}"]`);
      return String(Number(r.getAttribute('x')) + Number(r.getAttribute('width')) / 2);
    }, ballTo));
    await shot('mitsudomoe-path');
    await page.setViewportSize({ width: 1280, height: 800 });
    await page.emulateMedia({ colorScheme: 'dark' });
    await shot('mitsudomoe-path-dark');
  },

  async reduced_motion_shows_the_end_state_at_once_and_ratings_show_when_sent({ page, url }) {
    await page.emulateMedia({ reducedMotion: 'reduce' });
    // The server's updates, with the rating fields a rated room adds (issue 25) put in.
    await page.routeWebSocket(u => u.protocol === 'ws:', ws => {
      const server = ws.connectToServer();
      ws.onMessage(frame => server.send(frame));
      server.onMessage(frame => {
        const m = JSON.parse(frame);
        if (m.type === 'update') {
          for (const seat of m.seats) if (seat.kind !== 'empty') seat.rating = { rating: 1612.4 + seat.seat, provisional: seat.seat === 1 };
          if (m.status === 'finished') m.rating_changes = [{ seat: 0, name: 'me', before: 1500, after: 1523.6, rd: 200 }];
        }
        ws.send(JSON.stringify(m));
      });
    });
    await open(page, url);
    await page.selectOption('#create-game', 'nimrod');
    await page.fill('input[name=pile_a]', '3');
    await page.fill('input[name=pile_b]', '5');
    await page.selectOption('select.opp', 'optimal');
    await page.click('#create-submit');
    assert.ok(await ourTurn(page));
    assert.deepEqual(await page.$$eval('#seats .rating', els => els.map(e => e.textContent.trim())), ['1612', '1613?']);
    await andWait(page, () => page.click('button.move.legal'));
    await statusIs(page, /Your turn|lost/);
    // No motion: nothing animates, the board is at its end state at once.
    assert.equal(await page.getAttribute('#board', 'data-motion'), 'done');
    assert.equal(await page.evaluate(() => document.querySelector('#board').getAnimations({ subtree: true }).length), 0);
    // Played out: the rated end tells the rating's change.
    while ((await page.getAttribute('#status', 'data-status')) !== 'finished') {
      if (await ourTurn(page)) await andWait(page, () => page.click('button.move.legal'));
    }
    assert.match(await page.textContent('#status'), /Ratings: me 1524 \(\+23\.6\)/);
  },
};
