// The browser tests. Each gets a fresh browser context (its own local
// storage, so its own resume token) and a page.

import assert from 'node:assert/strict';

/** Waits until the room screen shows an update at `seq` or later. */
async function statusIs(page, pattern) {
  await page.waitForFunction(p => new RegExp(p).test(document.querySelector('#status')?.textContent || ''), pattern.source);
}

export const TESTS = {
  async nimrod_full_game_lost_to_the_optimal_bot({ page, url, shot }) {
    await page.goto(url);
    await page.waitForSelector('#conn[data-up="yes"]');
    await shot('lobby');
    // Piles [3, 5] are a lose position for the player to move: against
    // the optimal bot every line loses.
    await page.selectOption('#create-game', 'nimrod');
    await page.fill('input[name=pile_a]', '3');
    await page.fill('input[name=pile_b]', '5');
    await page.selectOption('select.opp', 'optimal');
    await page.click('#create-submit');
    await statusIs(page, /Your turn/);
    await shot('nimrod-your-turn');
    let moves = 0;
    while ((await page.getAttribute('#status', 'data-status')) !== 'finished') {
      await statusIs(page, /Your turn|lost|won/);
      if ((await page.getAttribute('#status', 'data-turn')) !== 'yes') continue;
      const seq = Number(await page.getAttribute('#status', 'data-seq'));
      const legal = await page.$$('button.move.legal');
      assert.ok(legal.length > 0, 'legal moves are highlighted on our turn');
      // Keyboard play: focus the first legal move and press Enter.
      await legal[0].focus();
      await page.keyboard.press('Enter');
      moves++;
      await page.waitForFunction(s => Number(document.querySelector('#status').dataset.seq) > s, seq);
    }
    assert.ok(moves >= 1);
    const result = await page.textContent('#status');
    assert.match(result, /You lost/);
    await shot('nimrod-lost');
  },
};
