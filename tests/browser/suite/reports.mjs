// Report and Block on a player's page: a report is filed and a second one
// about the same player is refused in the server's words; a block is
// remembered by the server and refuses the blocked player's challenge; none
// of it on one's own page or for a guest.

import assert from 'node:assert/strict';
import { axe, open, register, secondPlayer, uniqueName } from './helpers.mjs';

export const TESTS = {
  async report_and_block_from_a_players_page({ page, url, browser, shot }) {
    await open(page, url);
    const alice = uniqueName('repA');
    await register(page, alice);
    const bob = await secondPlayer(browser, url, 'repB');
    try {
      // One's own page offers neither.
      await page.goto(`${url}#/player/${alice}`);
      await page.waitForSelector('#player-joined');
      await page.waitForSelector('.player-extras[data-loaded="yes"]', { state: 'attached' });
      assert.equal(await page.$('#report-open'), null);
      assert.equal(await page.$('#block-toggle'), null);

      await page.goto(`${url}#/player/${bob.name}`);
      await page.waitForSelector('#block-toggle:not([disabled])');
      assert.equal(await page.textContent('#block-toggle'), 'Block');
      // A report, from the keyboard's reach: the form opens in a dialog.
      await page.click('#report-open');
      await page.check('#report-abuse');
      await page.fill('#report-text', 'called me names in the chat');
      await axe(page, 'report form');
      await shot('report-form');
      await page.click('#report-submit');
      await page.waitForSelector('#report-done:not(:empty)');
      assert.match(await page.textContent('#report-done'), /moderators will read/);
      assert.ok(Number(await page.getAttribute('#report-done', 'data-id')) > 0);
      await page.click('#report-close');
      await page.waitForSelector('#report-dialog', { state: 'detached' });
      // The same again: refused, and the page says why.
      await page.click('#report-open');
      await page.click('#report-submit');
      await page.waitForSelector('#report-refusal[data-code="report/duplicate"]');
      assert.match(await page.textContent('#report-refusal'), /open report about this player already/);
      await page.keyboard.press('Escape');
      await page.waitForSelector('#report-dialog', { state: 'detached' });

      // Block: the button turns to Unblock, and stays so after a reload (the server's list).
      await page.click('#block-toggle');
      await page.waitForSelector('#block-toggle[data-blocked="yes"]');
      await page.reload();
      await page.waitForSelector('#block-toggle:not([disabled])');
      assert.equal(await page.textContent('#block-toggle'), 'Unblock');
      assert.equal(await page.getAttribute('#block-toggle', 'aria-pressed'), 'true');

      // Bob's challenge to Alice is refused.
      await bob.page.goto(`${url}#/player/${alice}`);
      await bob.page.waitForSelector('#challenge-submit');
      await bob.page.click('#challenge-submit');
      await bob.page.waitForSelector('#challenge-form .form-error[data-code="challenge/blocked"]');
      assert.match(await bob.page.textContent('#challenge-form .form-error'), /does not accept challenges from you/);

      // Unblock.
      await page.click('#block-toggle');
      await page.waitForSelector('#block-toggle[data-blocked="no"]');
      const list = await page.evaluate(() => fetch('/api/blocks').then(r => r.json()));
      assert.deepEqual(list.blocks, []);
      assert.deepEqual(bob.errors, []);
    } finally {
      await bob.context.close();
    }
  },

  async a_guest_sees_no_report_or_block({ page, url }) {
    await open(page, url);
    const name = uniqueName('repG');
    await page.evaluate(async ({ name }) => {
      await fetch('/api/accounts', { method: 'POST', credentials: 'omit', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ name, password: 'correct horse battery', kind: 'human' }) });
    }, { name });
    await page.goto(`${url}#/player/${name}`);
    await page.waitForSelector('#player-joined');
    await page.waitForSelector('.player-extras[data-loaded="yes"]', { state: 'attached' });
    assert.equal(await page.$('#report-open'), null);
    assert.equal(await page.$('#block-toggle'), null);
  },
};
