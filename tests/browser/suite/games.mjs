// Each game played on its board: moves, refused moves explained, a full game.

import assert from 'node:assert/strict';
import { statusIs, ourTurn, andWait, settled } from './helpers.mjs';

/** Whether three Rummikub blocks make a row (same as the rules say). */
function isRow(blocks) {
  const colours = new Set(blocks.map(b => b.color));
  if (blocks.every(b => b.number === blocks[0].number)) return colours.size === blocks.length;
  if (colours.size !== 1) return false;
  const ns = blocks.map(b => b.number).sort((a, b) => a - b);
  return ns.every((n, i) => i === 0 || n === ns[i - 1] + 1);
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
      if (moves === 1) {
        // A reload keeps the seat: the page resumes with the stored token.
        const room = page.url();
        await page.reload();
        await page.waitForSelector('#status[data-seq]');
        assert.equal(page.url(), room);
        assert.equal(await page.textContent('.seat.me .who'), 'anonymous (guest)');
      }
    }
    assert.ok(moves >= 1);
    const result = await page.textContent('#status');
    assert.match(result, /You lost/);
    await shot('nimrod-lost');
    // A rematch against a bot starts at once (bots always agree), seats moved on.
    const room = page.url();
    await page.click('#rematch');
    await page.waitForFunction(r => location.href !== r && /#\/room\/[0-9a-f]+$/.test(location.hash), room);
    await page.waitForSelector('#status[data-status="playing"]');
    assert.equal(await page.textContent('.seat.me .seat-no'), 'Seat 1');
  },

  async rummikub_moves_and_a_refused_row({ page, url, shot }) {
    await page.goto(url);
    await page.waitForSelector('#conn[data-up="yes"]');
    await page.click('#quick-rummikub');
    assert.ok(await ourTurn(page));
    // Blocks show their colour's letter as well as the colour.
    const letters = await page.$$eval('#rack .block .c', els => els.map(e => e.textContent));
    assert.ok(letters.length >= 7 && letters.every(l => /^[RBYK]$/.test(l)), letters.join());
    // Pick three rack blocks that make no row, lay them, and read why not.
    const rack = await page.$$eval('#rack .block', els => els.map(e => {
      const [n, c] = e.getAttribute('aria-label').split(' ');
      return { number: Number(n), color: c };
    }));
    let bad = null;
    for (let i = 0; i < rack.length && !bad; i++)
      for (let j = i + 1; j < rack.length && !bad; j++)
        for (let k = j + 1; k < rack.length && !bad; k++)
          if (!isRow([rack[i], rack[j], rack[k]])) bad = [i, j, k];
    assert.ok(bad, 'some three blocks make no row');
    for (const i of bad) await page.click(`#rack .block[data-i="${i}"]`);
    await page.click('#lay-row');
    await page.waitForSelector('#refusal:not(:empty)');
    const why = await page.textContent('#refusal');
    assert.ok(why.length > 10, why);
    assert.doesNotMatch(why, /action\//, 'the refusal is in words, not a code');
    assert.equal(await page.getAttribute('body', 'data-sound-refusal'), '1', 'the refusal\'s sound');
    await shot('rummikub-refused');
    // Then play several moves from the legal list.
    let moves = 0;
    while (moves < 4 && await ourTurn(page)) {
      const legal = await page.$$('#legal button');
      assert.ok(legal.length > 0);
      await andWait(page, () => legal[0].click());
      moves++;
    }
    assert.equal(await page.textContent('#refusal'), '', 'an accepted move clears the refusal');
    await shot('rummikub-playing');
  },

  async cribbage_moves_and_a_refused_throw({ page, url, shot }) {
    await page.goto(url);
    await page.waitForSelector('#conn[data-up="yes"]');
    await page.click('#quick-cribbage');
    assert.ok(await ourTurn(page));
    const suits = await page.$$eval('#hand .card', els => els.map(e => e.textContent));
    assert.equal(suits.length, 6);
    assert.ok(suits.every(t => /[♣♦♥♠]$/.test(t)), suits.join());
    // One card is not a throw: the server says so, and the page shows it.
    await page.click('#hand .card[data-i="0"]');
    await page.click('#throw');
    await page.waitForSelector('#refusal:not(:empty)');
    const why = await page.textContent('#refusal');
    assert.match(why, /2|two/i, why);
    await shot('cribbage-refused');
    await andWait(page, async () => {
      await page.click('#hand .card[data-i="1"]');
      await page.click('#throw');
    });
    let moves = 1;
    while (moves < 6 && await ourTurn(page)) {
      if (await page.$('#throw')) {
        await page.click('#hand .card[data-i="0"]');
        await page.click('#hand .card[data-i="1"]');
        await andWait(page, () => page.click('#throw'));
      } else {
        await andWait(page, () => page.click('#hand .card.playable'));
      }
      moves++;
    }
    assert.ok(moves >= 4, `played ${moves} moves`);
    await settled(page);
    const scores = await page.$$eval('#scores .score strong', els => els.map(e => Number(e.textContent)));
    assert.equal(scores.length, 2);
    await shot('cribbage-playing');
    // Readable on a small phone: nothing wider than 360 px.
    await page.setViewportSize({ width: 360, height: 740 });
    const wide = await page.evaluate(() => document.documentElement.scrollWidth);
    assert.ok(wide <= 360, `page is ${wide} px wide`);
    await shot('cribbage-360px', { fullPage: true });
  },

  async mitsudomoe_turns_typed_and_chosen({ page, url, shot }) {
    await page.goto(url);
    await page.waitForSelector('#conn[data-up="yes"]');
    await page.click('#quick-mitsudomoe');
    assert.ok(await ourTurn(page));
    // A turn that is notation but not legal: the server says why.
    await page.fill('#turn', '+C3 C3-C4');
    await page.press('#turn', 'Enter');
    await page.waitForSelector('#refusal:not(:empty)');
    assert.ok((await page.textContent('#refusal')).length > 10);
    // A legal turn typed in notation, taken from the legal list's labels.
    const first = await page.textContent('#legal button');
    await andWait(page, async () => {
      await page.fill('#turn', first);
      await page.press('#turn', 'Enter');
    });
    assert.equal(await page.textContent('#refusal'), '');
    assert.ok(await ourTurn(page));
    // Squares clicked on the board narrow the legal turns to those
    // through them; the first one listed is played.
    const all = await page.locator('#legal button').count();
    const second = await page.textContent('#legal button');
    const ballTo = second.trim().split(/\s+/)[1].split('-')[1];
    await page.click(`rect.sq[data-sq="${ballTo}"]`);
    await page.waitForSelector(`rect.sq.picked[data-sq="${ballTo}"]`);
    const narrowed = await page.locator('#legal button').allTextContents();
    assert.ok(narrowed.length >= 1 && narrowed.length <= all, `${narrowed.length} of ${all}`);
    for (const t of narrowed) assert.ok(t.includes(ballTo), `${t} does not go through ${ballTo}`);
    await shot('mitsudomoe-picked');
    await andWait(page, () => page.click('#legal button'));
    await shot('mitsudomoe-playing');
  },
};
