// Finding opponents: seeks, rematches and challenges between two browsers.

import assert from 'node:assert/strict';
import { andWait, uniqueName, open, register, secondPlayer, mySeat } from './helpers.mjs';

/** Plays a Nimrod room shown on both pages to its end, taking the most each turn. */
async function playNimrodOut(pages) {
  for (let steps = 0; steps < 400; steps++) {
    const states = await Promise.all(pages.map(p => p.evaluate(() => {
      const st = document.querySelector('#status');
      return st ? { turn: st.dataset.turn, status: st.dataset.status, seq: st.dataset.seq } : {};
    })));
    if (states.every(x => x.status === 'finished')) return;
    const i = states.findIndex(x => x.turn === 'yes' && x.status === 'playing');
    if (i < 0) { await pages[0].waitForTimeout(50); continue; }
    const legal = await pages[i].$$('button.move.legal');
    assert.ok(legal.length > 0, 'legal moves are highlighted on our turn');
    await andWait(pages[i], () => legal[legal.length - 1].click());
  }
  assert.fail('the match did not end');
}

/**
 * Seeks a casual Nimrod game without a clock from the lobby's card; the
 * first seeker (`waits`) sees the waiting indicator, the second may be
 * matched at once.
 */
async function seekNimrod(page, waits) {
  await page.click('#seek-nimrod-open');
  await page.selectOption('#seek-nimrod-clock', 'none');
  await page.click('#seek-nimrod');
  if (waits) await page.waitForSelector('.notice.seeking[data-game="nimrod"]');
}

export const TESTS = {
  async a_seek_waits_with_its_time_and_is_cancelled({ page, url, shot }) {
    await open(page, url);
    // A guest may seek casual games only: rated and correspondence wait for an account.
    await page.click('#seek-mitsudomoe-open');
    assert.ok(await page.isDisabled('#seek-mitsudomoe-rated'));
    const days = await page.$$eval('#seek-mitsudomoe-clock option', els => els.filter(o => o.value.startsWith('days')).map(o => o.disabled));
    assert.ok(days.length > 0 && days.every(Boolean), 'correspondence is for accounts');
    await page.selectOption('#seek-mitsudomoe-clock', 'rapid');
    await page.click('#seek-mitsudomoe');
    await page.waitForSelector('.notice.seeking[data-game="mitsudomoe"]');
    assert.match(await page.textContent('.notice.seeking'), /Mitsudomoe opponent \(2 players, 10 min \+ 5 s, casual\)/);
    // The time waited counts up, whatever the screen.
    await page.click('#create-submit');
    await page.waitForSelector('#status[data-seq]');
    await page.waitForFunction(() => document.querySelector('.notice.seeking .waited').textContent !== '0:00');
    await shot('seeking');
    await page.click('.notice.seeking .cancel-seek');
    await page.waitForSelector('.notice.seeking', { state: 'detached' });
  },

  async two_accounts_seek_nimrod_play_it_out_and_rematch({ page, url, browser, shot }) {
    const bob = await secondPlayer(browser, url, 'bob');
    try {
      await open(page, url);
      const amy = uniqueName('amy');
      await register(page, amy);
      await seekNimrod(page, true);
      await seekNimrod(bob.page, false);
      // Both are matched into one room and seated there.
      await page.waitForSelector('#status[data-seq]');
      await bob.page.waitForSelector('#status[data-seq]');
      const room = page.url().match(/room\/([0-9a-f]+)/)[1];
      assert.ok(bob.page.url().endsWith(`#/room/${room}`), 'both in the same room');
      assert.equal(await page.$('.notice.seeking'), null, 'the waiting indicator is gone');
      const names = (await page.$$eval('#seats .who', els => els.map(e => e.textContent))).sort();
      assert.deepEqual(names, [amy, bob.name].sort());
      await shot('matched-nimrod');
      const amySeat = await mySeat(page);
      await playNimrodOut([page, bob.page]);
      const results = [await page.textContent('#status'), await bob.page.textContent('#status')];
      assert.equal(results.filter(r => /You won/.test(r)).length, 1, results.join(' / '));
      assert.equal(results.filter(r => /You lost/.test(r)).length, 1, results.join(' / '));
      // A rematch: offered by one, seen and accepted by the other.
      await page.click('#rematch');
      await page.waitForSelector('#rematch[disabled]');
      await bob.page.waitForFunction(() => /offers a rematch/.test(document.querySelector('#rematch-note')?.textContent || ''));
      assert.equal(await bob.page.textContent('#rematch'), 'Accept the rematch');
      await shot('rematch-offered');
      await bob.page.screenshot({ path: `${process.env.SCREENSHOT_DIR || 'web-screenshots'}/rematch-offer-seen.png` });
      await bob.page.click('#rematch');
      for (const p of [page, bob.page]) {
        await p.waitForFunction(r => !location.hash.includes(r) && /#\/room\/[0-9a-f]+$/.test(location.hash), room);
        await p.waitForSelector('#status[data-status="playing"]');
      }
      assert.equal(page.url(), bob.page.url(), 'the rematch is one room');
      assert.equal(await mySeat(page), (amySeat + 1) % 2, 'seats moved one on');
      assert.deepEqual(bob.errors, []);
    } finally {
      await bob.context.close();
    }
  },

  async a_challenge_declined_with_a_reason_then_accepted({ page, url, browser, shot }) {
    const bob = await secondPlayer(browser, url, 'bob');
    try {
      await open(page, url);
      const amy = uniqueName('amy');
      await register(page, amy);
      await page.goto(`${url}#/player/${bob.name}`);
      await page.selectOption('#challenge-game', 'nimrod');
      await page.selectOption('#challenge-clock', 'move30');
      await page.click('#challenge-submit');
      await page.waitForSelector('.notice.challenge[data-state="outgoing"]');
      assert.match(await page.textContent('.notice.challenge'), /You challenged .*Nimrod, 30 s a move, casual/);
      // Bob sees it wherever he is, and declines: too fast.
      await bob.page.waitForSelector('.notice.challenge[data-state="incoming"]');
      assert.match(await bob.page.textContent('.notice.challenge'), new RegExp(`${amy} challenges you: Nimrod`));
      // Unanswered, it expires after a minute: the card counts down.
      assert.match(await bob.page.textContent('.notice.challenge .expires'), /^\((0:[0-5]\d|1:00) left\)$/);
      await bob.page.screenshot({ path: `${process.env.SCREENSHOT_DIR || 'web-screenshots'}/challenge-received.png` });
      await bob.page.selectOption('.notice.challenge select.reason', 'too_fast');
      await bob.page.click('.notice.challenge .decline');
      await page.waitForSelector('.notice.challenge[data-state="declined"]');
      assert.match(await page.textContent('.notice.challenge'), /Declined: Too fast/);
      await shot('challenge-declined');
      await page.click('.notice.challenge .dismiss');
      await page.waitForSelector('.notice.challenge', { state: 'detached' });
      // Asked again, accepted: both are seated in a new room.
      await page.click('#challenge-submit');
      await bob.page.waitForSelector('.notice.challenge[data-state="incoming"]');
      await bob.page.click('.notice.challenge[data-state="incoming"] .accept');
      await page.waitForSelector('#status[data-seq]');
      await bob.page.waitForSelector('#status[data-seq]');
      assert.equal(page.url(), bob.page.url());
      assert.equal((await page.$$('#seats .seat.me')).length, 1);
      assert.equal((await bob.page.$$('#seats .seat.me')).length, 1);
      assert.ok(await page.$('.seat.me .clock'), 'the challenge\'s clock runs');
      assert.deepEqual(bob.errors, []);
    } finally {
      await bob.context.close();
    }
  },
};
