// The moderators' page: linked in the header only for a moderator (the
// role granted on the server machine, as an operator would), it resolves
// a report, marks an account (which the account's public page then
// shows), lists the moderation log and runs the fair-play review.
// .ci/browser names the server's binary and database (PARLOR_SERVER_BIN,
// PARLOR_DB), which granting the role needs.

import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { axe, fitsPhone, open, register, secondPlayer, uniqueName, PASSWORD } from './helpers.mjs';

/** Makes `name` a moderator with the server's own command. */
function grantModerator(name) {
  const bin = process.env.PARLOR_SERVER_BIN;
  const db = process.env.PARLOR_DB;
  assert.ok(bin && db, 'PARLOR_SERVER_BIN and PARLOR_DB name the server binary and its database (.ci/browser sets them)');
  const out = execFileSync(bin, ['accounts', 'role', name, 'moderator', '--db', db], { encoding: 'utf8' });
  assert.match(out, /role moderator/);
}

export const TESTS = {
  async a_moderator_resolves_a_report_and_marks_an_account_from_the_page({ page, url, browser, shot }) {
    await open(page, url);
    const mia = uniqueName('modM');
    await register(page, mia);
    assert.equal(await page.$('#mod-link'), null, 'no link before the role');
    const rita = await secondPlayer(browser, url, 'modR');
    try {
      // Tom, reported by Rita.
      const tom = uniqueName('modT');
      await rita.page.evaluate(async ({ tom, password }) => {
        const made = await fetch('/api/accounts', { method: 'POST', credentials: 'omit', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ name: tom, password, kind: 'human' }) });
        if (made.status !== 201) throw new Error(`register: ${made.status}`);
        const r = await fetch('/api/reports', { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ player: tom, reason: 'cheat', text: 'too good to be true' }) });
        if (r.status !== 201) throw new Error(`report: ${r.status}`);
      }, { tom, password: PASSWORD });
      // Rita is no moderator: no link, and the page is refused by the server.
      assert.equal(await rita.page.$('#mod-link'), null);
      await rita.page.goto(`${url}#/mod`);
      await rita.page.waitForSelector('#mod-reports .refusal');

      grantModerator(mia);
      // The role comes with the next connection's welcome.
      await page.reload();
      await page.waitForSelector('#mod-link');
      await page.click('#mod-link');
      const report = `#mod-reports li[data-player="${tom}"]`;
      await page.waitForSelector(report);
      assert.match(await page.textContent(report), new RegExp(`${rita.name} reports ${tom} for cheat`));
      assert.match(await page.textContent(report), /too good to be true/);
      await axe(page, 'moderators\' reports');
      await shot('mod-reports');
      await page.selectOption(`${report} select[name="action"]`, 'actioned');
      await page.selectOption(`${report} select[name="reason"]`, 'fair_play');
      await page.fill(`${report} input[name="text"]`, 'marked engine');
      await page.click(`${report} button[type="submit"]`);
      await page.waitForSelector(report, { state: 'detached' });

      // Mark Tom from the account tab.
      await page.click('#mod-tab-account');
      await page.fill('#mod-account', tom);
      await page.selectOption('#mod-action', 'mark');
      await page.selectOption('#mod-mark', 'engine');
      await page.selectOption('#mod-reason', 'fair_play');
      await page.fill('#mod-text', 'engine moves all along');
      await axe(page, 'moderators\' actions');
      await fitsPhone(page, 'the moderators\' actions');
      await page.click('#mod-act');
      await page.waitForSelector('#mod-action-done:not(:empty)');
      assert.match(await page.textContent('#mod-action-done'), new RegExp(`mark ${tom}`));
      // A refusal in the server's words: unmarking twice.
      await page.selectOption('#mod-action', 'unmark');
      await page.click('#mod-act');
      await page.waitForSelector('#mod-action-done:not(:empty)');
      await page.click('#mod-act');
      await page.waitForSelector('#mod-action-refusal[data-code="mod/bad_request"]');
      await page.selectOption('#mod-action', 'mark');
      await page.click('#mod-act');
      await page.waitForFunction(() => /mark /.test(document.querySelector('#mod-action-done').textContent));

      // The log shows both, newest first.
      await page.click('#mod-tab-log');
      await page.waitForSelector('#mod-log-entries li');
      const entries = await page.$$eval('#mod-log-entries li', lis => lis.map(li => [li.dataset.action, li.textContent]));
      const mine = entries.filter(([, t]) => t.includes(tom));
      assert.deepEqual(mine.map(([a]) => a), ['mark', 'unmark', 'mark', 'resolve']);
      assert.match(mine[0][1], new RegExp(`${mia} mark ${tom} \\(fair_play\\): engine moves all along`));
      await axe(page, 'moderation log');

      // The fair-play review answers for a game.
      await page.click('#mod-tab-fairplay');
      await page.selectOption('#mod-fp-game', 'nimrod');
      await page.click('#mod-fairplay-form button');
      await page.waitForFunction(() => /matches counted/.test(document.querySelector('#mod-fairplay-out').textContent));
      await axe(page, 'fair-play review');

      // Tom's public page shows the mark (to anyone), and not the moderator's text.
      await rita.page.goto(`${url}#/player/${tom}`);
      await rita.page.waitForSelector('#player-mark');
      assert.equal(await rita.page.textContent('#player-mark'), 'engine');
      assert.doesNotMatch(await rita.page.textContent('#player-moderation'), /engine moves all along|marked engine/);
      assert.match(await rita.page.textContent('#player-moderation'), /Marked for fair-play violation/);
    } finally {
      await rita.context.close();
    }
  },
};
