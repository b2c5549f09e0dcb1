// Sounds and the mute switch.

import assert from 'node:assert/strict';
import { statusIs, ourTurn, andWait, open } from './helpers.mjs';

export const TESTS = {
  async the_mute_switch_is_remembered({ page, url }) {
    await open(page, url);
    assert.equal(await page.getAttribute('#mute', 'aria-pressed'), 'false');
    await page.click('#mute');
    assert.equal(await page.getAttribute('#mute', 'aria-pressed'), 'true');
    await page.reload();
    await page.waitForSelector('#conn[data-up="yes"]');
    assert.equal(await page.getAttribute('#mute', 'aria-pressed'), 'true');
    await page.keyboard.press('Tab');
    await page.focus('#mute');
    await page.keyboard.press('Enter');
    assert.equal(await page.getAttribute('#mute', 'aria-pressed'), 'false');
  },

  async sounds_for_turn_move_refusal_and_end_muted_by_the_switch({ page, url }) {
    await open(page, url);
    await page.selectOption('#create-game', 'nimrod');
    await page.fill('input[name=pile_a]', '3');
    await page.fill('input[name=pile_b]', '5');
    await page.selectOption('select.opp', 'optimal');
    await page.click('#create-submit');
    assert.ok(await ourTurn(page));
    const count = kind => page.evaluate(k => Number(document.body.dataset[`sound${k}`] || 0), kind);
    assert.equal(await count('Turn'), 1, 'your turn');
    await andWait(page, () => page.click('button.move.legal'));
    await statusIs(page, /Your turn|lost/);
    assert.ok(await count('Move') + await count('End') >= 1, 'the bot\'s move was heard');
    // The tab hidden on our turn: the title says so.
    if ((await page.getAttribute('#status', 'data-turn')) === 'yes') {
      await page.evaluate(() => {
        Object.defineProperty(document, 'hidden', { configurable: true, get: () => true });
        document.dispatchEvent(new Event('visibilitychange'));
      });
      assert.match(await page.title(), /^Your turn/);
      await page.evaluate(() => {
        Object.defineProperty(document, 'hidden', { configurable: true, get: () => false });
        document.dispatchEvent(new Event('visibilitychange'));
      });
      assert.doesNotMatch(await page.title(), /Your turn/);
      // Muted: the rest of the match is silent.
      await page.click('#mute');
      const before = ['Turn', 'Move', 'End', 'Refusal'].map(count);
      const was = await Promise.all(before);
      while ((await page.getAttribute('#status', 'data-status')) !== 'finished') {
        if (await ourTurn(page)) await andWait(page, () => page.click('button.move.legal'));
      }
      const now = await Promise.all(['Turn', 'Move', 'End', 'Refusal'].map(count));
      assert.deepEqual(now, was, 'nothing played while muted');
    }
  },
};
