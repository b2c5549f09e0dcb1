// Every screen through axe-core, photographed at both widths in both themes.

import assert from 'node:assert/strict';
import { axe, ourTurn, uniqueName, open, register, settled, photograph } from './helpers.mjs';

export const TESTS = {
  async every_screen_passes_axe_and_is_photographed_at_both_widths_in_both_themes({ page, url }) {
    const check = async name => { await axe(page, name); await photograph(page, name); };
    page.on('dialog', d => d.accept());
    await open(page, url);
    await check('lobby');
    await page.selectOption('#create-game', 'cribbage');
    await page.selectOption('select.opp', 'person');
    await page.click('#create-submit');
    await page.waitForSelector('#waiting');
    await check('waiting-room');
    await page.click('#leave');
    await page.waitForSelector('#quick-nimrod');
    for (const game of ['nimrod', 'rummikub', 'cribbage', 'mitsudomoe']) {
      await page.click(`#quick-${game}`);
      assert.ok(await ourTurn(page));
      await settled(page);
      await check(game);
      // Resigned, so that the lobby is not left for this match on the next load.
      await page.click('#leave');
      await page.waitForSelector('#quick-nimrod');
    }
    await page.click('#watch-bots-nimrod');
    await page.waitForSelector('#status[data-status="finished"]');
    await page.click('#open-replay');
    await page.waitForSelector('#step');
    await check('replay');
    await open(page, url, '#/register');
    await page.waitForSelector('#register');
    await check('register');
    await open(page, url, '#/login');
    await page.waitForSelector('#login');
    await check('login');
    const name = uniqueName('axe');
    await register(page, name);
    await page.click('#me');
    await page.waitForSelector('#player-name');
    await check('player');
    await page.click('#games-link');
    await page.waitForSelector('#my-games');
    await check('your-games');
  },
};
