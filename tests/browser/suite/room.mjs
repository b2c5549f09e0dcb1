// The room screen around the board: the waiting room and its invitation,
// seats and their names, the clock.

import assert from 'node:assert/strict';
import { ourTurn, open } from './helpers.mjs';

export const TESTS = {
  async a_waiting_room_shows_no_deal_and_the_invitee_sees_the_same({ page, url, browser, shot }) {
    await open(page, url);
    // A room for a person: Nimrod with random piles (dealt only when
    // every seat is taken, from every seat's seed).
    await page.selectOption('#create-game', 'nimrod');
    await page.selectOption('select.opp', 'person');
    await page.click('#create-submit');
    await page.waitForSelector('#waiting');
    assert.match(await page.textContent('#dealt'), /dealt when every seat is taken/);
    assert.match(await page.textContent('#status'), /Waiting for 1 more player/);
    assert.equal(await page.$('svg.pile'), null, 'no provisional piles are drawn');
    assert.match(await page.textContent('#waiting'), /Seat 1: free/);
    const link = await page.inputValue('#invite-link');
    assert.equal(link, page.url());
    // "Copy invite link" (from the keyboard) puts it on the clipboard.
    await page.context().grantPermissions(['clipboard-read', 'clipboard-write'], { origin: new URL(url).origin });
    await page.focus('#copy-invite');
    await page.keyboard.press('Enter');
    await page.waitForSelector('#invite-copied:not(:empty)');
    assert.match(await page.textContent('#invite-copied'), /Copied/);
    assert.equal(await page.evaluate(() => navigator.clipboard.readText()), link);
    await shot('waiting-room');
    // The invitee opens the link: the same waiting panel, and a seat to take.
    const other = await browser.newContext({ viewport: { width: 1000, height: 800 } });
    try {
      const them = await other.newPage();
      await open(them, link);
      await them.waitForSelector('#waiting');
      assert.equal(await them.$('svg.pile'), null);
      assert.match(await them.textContent('#dealt'), /dealt when every seat is taken/);
      await them.click('button:has-text("Take a seat")');
      // Every seat taken: the deal is made, and both see the same piles.
      for (const p of [page, them]) await p.waitForSelector('svg.pile[data-pile="A"]');
      assert.equal(await page.$('#waiting'), null);
      const piles = p => p.$$eval('svg.pile', els => els.map(e => e.getAttribute('aria-label')));
      assert.deepEqual(await piles(page), await piles(them));
    } finally {
      await other.close();
    }
  },

  async a_name_typed_while_waiting_is_the_seats_name({ page, url }) {
    await open(page, url);
    await page.selectOption('#create-game', 'nimrod');
    await page.selectOption('select.opp', 'person');
    await page.click('#create-submit');
    await page.waitForSelector('#waiting');
    // A guest's seat is always marked as a guest's (its name may look like an account's).
    assert.equal(await page.textContent('.seat.me .who'), 'anonymous (guest)', 'no name given yet');
    // Named in the header only now, seated: the seat takes the name.
    await page.fill('#name', 'Ada');
    await page.press('#name', 'Enter');
    await page.waitForFunction(() => document.querySelector('.seat.me .who')?.textContent === 'Ada (guest)');
    assert.match(await page.textContent('#waiting'), /Seat 0: Ada \(guest\) \(you\)/);
    assert.equal(await page.$('.seat .who:text("anonymous")'), null);
  },

  async an_empty_cribbage_seat_is_never_called_a_bot({ page, url }) {
    await open(page, url);
    await page.selectOption('#create-game', 'cribbage');
    await page.selectOption('select.opp', 'person');
    await page.click('#create-submit');
    await page.waitForSelector('#waiting');
    // The seats, the status and the board (the title says "Cribbage").
    const text = (await Promise.all(['#seats', '#status', '#board'].map(sel => page.textContent(sel)))).join(' | ');
    assert.doesNotMatch(text, /bot/i, text);
    assert.doesNotMatch(text, /\bcrib\b/i, `no crib label before the deal: ${text}`);
    assert.match(await page.textContent('#dealt'), /cards are dealt .*when every seat is taken/);
    assert.equal(await page.$('#hand'), null, 'no hand before the deal');
  },

  async abort_is_offered_until_our_first_move_and_ends_the_match_unrated({ page, url }) {
    // Against the optimal bot, we to move first: nobody has moved for us
    // yet, so Abort sits beside Resign.
    const game = async () => {
      await page.selectOption('#create-game', 'nimrod');
      await page.fill('input[name=pile_a]', '3');
      await page.fill('input[name=pile_b]', '5');
      await page.selectOption('select.opp', 'optimal');
      await page.click('#create-submit');
      assert.ok(await ourTurn(page));
    };
    await open(page, url);
    await game();
    await page.waitForSelector('#abort');
    assert.equal(await page.textContent('#leave'), 'Resign');
    await page.click('#abort');
    await page.waitForSelector('#status[data-status="finished"]');
    assert.match(await page.textContent('#status'), /^Aborted before a first move: the match does not count\./);
    assert.equal(await page.$('#abort'), null, 'no Abort once it is over');
    assert.equal(await page.$('#open-replay'), null, 'an aborted match has no result to replay');
    // Once we have moved, only Resign is left.
    await open(page, url);
    await game();
    await page.waitForSelector('#abort');
    const seq = Number(await page.getAttribute('#status', 'data-seq'));
    await page.click('button.move.legal');
    await page.waitForFunction(s => Number(document.querySelector('#status').dataset.seq) > s, seq);
    assert.equal(await page.$('#abort'), null, 'no Abort after our first move');
    assert.ok(await page.$('#leave'));
  },

  async a_clock_counts_down_on_our_turn({ page, url }) {
    await page.goto(url);
    await page.waitForSelector('#conn[data-up="yes"]');
    await page.selectOption('#create-game', 'nimrod');
    await page.fill('#create-clock', '60');
    await page.click('#create-submit');
    assert.ok(await ourTurn(page));
    const clock = '.seat.me .clock.running';
    const before = await page.textContent(clock);
    assert.match(before, /^[01]:\d\d$/);
    await page.waitForFunction(([sel, t]) => document.querySelector(sel)?.textContent !== t, [clock, before]);
    const after = await page.textContent(clock);
    const secs = t => Number(t.split(':')[0]) * 60 + Number(t.split(':')[1]);
    assert.ok(secs(after) < secs(before), `${before} -> ${after}`);
  },

  async a_guests_name_from_the_header_is_on_their_seat({ page, url, shot }) {
    await open(page, url);
    assert.equal(await page.textContent('#account .who'), 'Guest');
    await page.fill('#name', 'Zoe');
    await page.press('#name', 'Tab');
    // The name goes in hello: the page connects again to use it.
    await page.waitForSelector('#conn[data-up="no"]', { state: 'attached', timeout: 5000 }).catch(() => {});
    await page.waitForSelector('#conn[data-up="yes"]');
    await page.click('#quick-nimrod');
    await page.waitForSelector('#status[data-seq]');
    assert.equal(await page.textContent('.seat.me .who'), 'Zoe (guest)');
    // Kept for the next visit.
    await page.reload();
    await page.waitForSelector('#conn[data-up="yes"]');
    assert.equal(await page.inputValue('#name'), 'Zoe');
    await shot('guest-named-seat');
  },
};
