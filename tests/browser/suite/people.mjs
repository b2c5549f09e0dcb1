// A table that speaks of people (issue 37): players named, not numbered;
// Nimrod's piles kept in place; clocks of days in days and hours; rating
// changes by one rule; Mitsudomoe's losing turns marked before they are
// played; the phone's header folded; a player's record and challenge;
// a declined challenge's card that goes.

import assert from 'node:assert/strict';
import { ourTurn, andWait, open, register, uniqueName, secondPlayer, axe } from './helpers.mjs';

/** Mitsudomoe squares from a position's board part ("A1" first). */
function boardOf(rows) {
  const colour = { b: 'black', w: 'white' };
  return rows.split('/').map(row => row.split(',').map(cell => ({
    rings: cell === '.' ? [] : [colour[cell[0]]],
    ball: cell.length > 1 ? colour[cell[1].toLowerCase()] : null,
  })));
}

export const TESTS = {
  async nimrod_names_the_players_keeps_the_piles_in_place_and_the_replay_says_who({ page, url }) {
    page.on('dialog', d => d.accept());
    await open(page, url);
    await page.selectOption('#create-game', 'nimrod');
    await page.fill('input[name=pile_a]', '5');
    await page.fill('input[name=pile_b]', '9');
    await page.selectOption('select.opp', 'optimal');
    await page.click('#create-submit');
    assert.ok(await ourTurn(page));
    // 6 from B leaves 5 and 3, a lost position for the bot: it takes 1
    // from the greater pile, the 5. The server lists the lesser pile
    // first ([3, 4]); the screen keeps the 5 (now 4) as pile A.
    await andWait(page, () => page.click('button[data-take="0,6"]'));
    assert.ok(await ourTurn(page));
    assert.equal(await page.textContent('svg[data-pile="A"] .pile-label'), 'Pile A: 4');
    assert.equal(await page.textContent('svg[data-pile="B"] .pile-label'), 'Pile B: 3');
    // The bot's move, by name, on the pile it came from.
    assert.equal(await page.textContent('.last-move'), 'Last move: bot (optimal) took 1 from pile A.');
    // Played out (every line loses here).
    while ((await page.getAttribute('#status', 'data-status')) !== 'finished') {
      if (await ourTurn(page)) await andWait(page, () => page.click('button.move.legal, button.move'));
    }
    assert.match(await page.textContent('#status'), /You lost: bot \(optimal\) won\./);
    await page.click('#open-replay');
    await page.waitForSelector('#step-text');
    assert.match(await page.textContent('#replay-status'), /Won by bot \(optimal\)\./);
    const steps = await page.$$eval('.steps li', els => els.map(e => e.textContent));
    assert.match(steps[0], /^you: take 6 from pile B$/);
    assert.match(steps[1], /^bot \(optimal\): /);
    assert.ok(steps.every(s => !/seat \d/.test(s)), steps.join(' / '));
  },

  async clocks_of_days_rating_changes_and_seat_colours_read_alike_everywhere({ page, url }) {
    await open(page, url);
    const read = await page.evaluate(async () => {
      const { clockText } = await import('./js/room.js');
      const { changeText } = await import('./js/ratingchange.js');
      return {
        clocks: [247000, 86400000 - 1000, 2 * 86400000 + 4 * 3600000 + 59000].map(clockText),
        // The CLI's rule (client-cli/src/ratings.rs): tenths, halves away from zero.
        changes: [41.15, -41.15, 0.25, 0.04].map(changeText),
      };
    });
    assert.deepEqual(read.clocks, ['4:07', '23 h 59 min', '2 d 4 h']);
    assert.deepEqual(read.changes, ['+41.2', '−41.2', '+0.3', '±0.0']);
    // The peg board's colour for a side is the replay plot's for that seat.
    const colours = await page.evaluate(() => {
      const ns = 'http://www.w3.org/2000/svg';
      const svg = document.createElementNS(ns, 'svg');
      svg.setAttribute('class', 'plot');
      document.body.append(svg);
      const out = [];
      for (const i of [0, 1]) {
        const peg = document.createElementNS(ns, 'circle');
        peg.setAttribute('class', `peg front side${i}`);
        const line = document.createElementNS(ns, 'polyline');
        line.setAttribute('class', `line${i}`);
        svg.append(peg, line);
        out.push([getComputedStyle(peg).fill, getComputedStyle(line).stroke]);
      }
      svg.remove();
      return out;
    });
    for (const [peg, line] of colours) assert.equal(peg, line);
    assert.notEqual(colours[0][0], colours[1][0]);
  },

  async mitsudomoe_marks_the_turns_that_would_fill_your_home_squares({ page, url }) {
    page.on('dialog', d => d.accept());
    // Our first turn's update, rewritten: Black (us) has balls on A4 and
    // A5 of its home (A4, A5, B5) and one on B4, next to its ring on B5.
    const losing = { ring: { from: null, to: 'C3' }, ball: { from: 'B4', to: 'B5' }, relocate: [] };
    const safe = { ring: { from: null, to: 'C4' }, ball: { from: 'B4', to: 'C4' }, relocate: [] };
    await page.routeWebSocket(u => u.protocol === 'ws:', ws => {
      const server = ws.connectToServer();
      ws.onMessage(frame => server.send(frame));
      server.onMessage(frame => {
        const m = JSON.parse(frame);
        if (m.type === 'update' && m.game === 'mitsudomoe' && m.status === 'playing' && m.to_act.includes(m.you)) {
          m.view.board = boardOf('.,.,.,bB,bB/.,.,.,bB,b/.,.,.,.,./wW,.,.,.,./wW,wW,.,.,.');
          m.view.players = [
            { seat: m.you, color: 'black', supply: 4, home: ['A4', 'A5', 'B5'], goals: ['D1', 'E1', 'E2'] },
            { seat: 1 - m.you, color: 'white', supply: 5, home: ['D1', 'E1', 'E2'], goals: ['A4', 'A5', 'B5'] },
          ];
          m.legal = [safe, losing];
        }
        ws.send(JSON.stringify(m));
      });
    });
    await open(page, url);
    await page.click('#quick-mitsudomoe');
    assert.ok(await ourTurn(page));
    await page.waitForSelector('#home-warning');
    assert.match(await page.textContent('#home-warning'), /1 of these turns fill your home squares: that loses at once/);
    const buttons = await page.$$eval('#legal button', els => els.map(e => [e.textContent, e.classList.contains('loses')]));
    assert.deepEqual(buttons, [['+C4 B4-C4', false], ['+C3 B4-B5 ⚠ loses', true]]);
    // Pointing at the losing turn marks its landing square.
    await page.hover('#legal button.loses');
    assert.ok(await page.$eval('rect.sq[data-sq="B5"]', r => r.classList.contains('loses')));
    assert.ok(!(await page.$eval('rect.sq[data-sq="C4"]', r => r.classList.contains('loses'))));
    await axe(page, 'mitsudomoe-home-warning');
    await page.click('#leave');
  },

  async a_phone_header_folds_behind_a_menu_and_the_guest_name_box_says_anonymous({ page, url }) {
    await page.setViewportSize({ width: 375, height: 667 });
    await open(page, url);
    // The name a guest gets when the box is left empty is the placeholder's.
    assert.equal(await page.getAttribute('#name', 'placeholder'), 'anonymous');
    const height = () => page.evaluate(() => document.querySelector('header.top').getBoundingClientRect().height);
    assert.ok(await height() <= 667 * 0.1, `header is ${await height()} px tall`);
    assert.ok(await page.isVisible('#menu'));
    assert.ok(!(await page.isVisible('#leaderboards-link')));
    await page.click('#menu');
    assert.equal(await page.getAttribute('#menu', 'aria-expanded'), 'true');
    assert.ok(await page.isVisible('#leaderboards-link'));
    assert.ok(await page.isVisible('#login-link'));
    // Following a link folds it again.
    await page.click('#leaderboards-link');
    await page.waitForFunction(() => document.querySelector('#menu').getAttribute('aria-expanded') === 'false');
    await page.setViewportSize({ width: 1000, height: 800 });
    assert.ok(!(await page.isVisible('#menu')));
    assert.ok(await page.isVisible('#leaderboards-link'));
  },

  async a_players_record_reads_played_won_drawn_lost_under_the_challenge_form({ page, url }) {
    await open(page, url);
    await register(page, uniqueName('rec'));
    // The record as the API may send it, in any order.
    await page.route(u => /\/api\/players\/zed$/.test(u.pathname), route => route.fulfill({
      status: 200, contentType: 'application/json',
      body: JSON.stringify({ name: 'zed', kind: 'human', created: Date.now(), ratings: {}, games: { nimrod: { drawn: 0, lost: 2, played: 2, won: 0 } } }),
    }));
    await page.goto(`${url}#/player/zed`);
    await page.waitForSelector('#player-games');
    assert.equal(await page.textContent('#player-games li'), 'Nimrod: 2 played, 0 won, 0 drawn, 2 lost');
    assert.ok(await page.evaluate(() => {
      const form = document.querySelector('#challenge-form');
      // The form comes before the ratings and the record.
      return !!form && (form.compareDocumentPosition(document.querySelector('#player-games')) & Node.DOCUMENT_POSITION_FOLLOWING) !== 0;
    }), 'the challenge form comes first');
  },

  async a_declined_challenges_card_goes_after_a_few_seconds({ page, url, browser }) {
    const bob = await secondPlayer(browser, url, 'bob');
    try {
      await open(page, url);
      await register(page, uniqueName('amy'));
      await page.goto(`${url}#/player/${bob.name}`);
      await page.selectOption('#challenge-game', 'nimrod');
      await page.click('#challenge-submit');
      await bob.page.waitForSelector('.notice.challenge[data-state="incoming"]');
      await bob.page.click('.notice.challenge .decline');
      await page.waitForSelector('.notice.challenge[data-state="declined"]');
      // Read, then gone by itself (it stayed for 15 minutes).
      await page.waitForSelector('.notice.challenge', { state: 'detached', timeout: 15_000 });
      assert.deepEqual(bob.errors, []);
    } finally {
      await bob.context.close();
    }
  },
};
