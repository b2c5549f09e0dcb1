// The room's chat panel: two players talk, a spectator's words stay
// among the spectators during the game (and reach the players, labelled,
// after it), text stays text, a refusal is shown, and "Chat off" hides
// the panel and is remembered.

import assert from 'node:assert/strict';
import { axe, fitsPhone, open, register, secondPlayer, uniqueName } from './helpers.mjs';

/** Waits until the page's chat shows a line holding `text`. */
async function sees(page, text) {
  await page.waitForFunction(t => [...document.querySelectorAll('#chat-lines li')].some(li => li.textContent.includes(t)), text);
}

/** The text of every chat line on the page. */
function chatLines(page) {
  return page.$$eval('#chat-lines li', lis => lis.map(li => li.textContent));
}

async function say(page, text) {
  await page.fill('#chat-input', text);
  await page.press('#chat-input', 'Enter');
}

export const TESTS = {
  async players_talk_and_a_spectator_is_not_heard_during_the_game({ page, url, browser, shot }) {
    await open(page, url);
    const alice = uniqueName('chatA');
    await register(page, alice);
    await page.click('.brand');
    await page.selectOption('#create-game', 'nimrod');
    await page.selectOption('select.opp', 'person');
    await page.click('#create-submit');
    await page.waitForSelector('#waiting');
    const link = await page.inputValue('#invite-link');
    const room = link.split('#/room/')[1];
    const bob = await secondPlayer(browser, url, 'chatB');
    const watcher = await browser.newContext({ viewport: { width: 1000, height: 800 } });
    try {
      await open(bob.page, link);
      await bob.page.click('button:has-text("Take a seat")');
      for (const p of [page, bob.page]) await p.waitForSelector('#status[data-status="playing"]');
      await page.waitForSelector('#chat-input');
      // Alice talks; Bob reads it under her name, with the time on hover.
      await say(page, 'hello <b>bob</b> https://example.com');
      await sees(bob.page, 'hello <b>bob</b>');
      const line = await bob.page.$('#chat-lines li');
      assert.match(await line.textContent(), new RegExp(`^${alice}: hello <b>bob</b> https://example.com`));
      assert.ok(await line.getAttribute('title'), 'the time is on the line');
      // Text stays text: no markup, no link made.
      assert.equal(await bob.page.$('#chat-lines b'), null);
      assert.equal(await bob.page.$('#chat-lines a'), null);
      // A canned phrase from Bob.
      await bob.page.click('.chat-phrases button[data-phrase="good_luck"]');
      await sees(page, `${bob.name}: Good luck`);

      // A spectator (a guest) says something: the spectators read it, the players do not.
      const carol = await watcher.newPage();
      await open(carol, `${url}#/room/${room}`);
      await carol.waitForSelector('#chat-input');
      // The spectator joins mid-game: the players' chat is not theirs.
      await say(carol, 'alice is winning');
      await sees(carol, 'alice is winning');
      // Bob then says something, which reaches Alice after any line Carol's
      // could have arrived before: Carol's words never did.
      await say(bob.page, 'your move');
      await sees(page, 'your move');
      assert.ok(!(await chatLines(page)).some(t => t.includes('alice is winning')), 'a spectator was heard during the game');
      assert.ok(!(await chatLines(bob.page)).some(t => t.includes('alice is winning')), 'a spectator was heard during the game');
      await shot('chat-players');
      await axe(page, 'room with chat');
      await fitsPhone(page, 'the room with its chat');

      // A flood is refused in the server's words, and the room goes on.
      for (let i = 0; i < 6; i++) await say(page, `line ${i}`);
      await page.waitForSelector('#chat-refusal[data-code="chat/rate_limited"]');
      assert.ok((await page.textContent('#chat-refusal')).length > 0);

      // After the end both channels are shown to the players, labelled.
      page.once('dialog', d => d.accept());
      await page.click('#leave');
      await bob.page.waitForSelector('#status[data-status="finished"]');
      await say(carol, 'well fought');
      await sees(bob.page, 'well fought');
      const after = (await chatLines(bob.page)).find(t => t.includes('well fought'));
      assert.match(after, /^\[spectators\] /);
      assert.ok((await chatLines(bob.page)).some(t => t.startsWith('[players] ') && t.includes('your move')));
      // The end of the game offers Report and Block about the other player.
      await bob.page.waitForSelector(`#end-actions button.report-open[data-player="${alice}"]`);
      await bob.page.waitForSelector(`#end-actions button[aria-pressed="false"][data-player="${alice}"]:not([disabled])`);
      assert.equal(await bob.page.$(`#end-actions [data-player="${bob.name}"]`), null, 'nothing about oneself');
    } finally {
      await bob.context.close();
      await watcher.close();
    }
  },

  async chat_off_hides_the_panel_and_is_remembered({ page, url }) {
    await open(page, url);
    await page.selectOption('#create-game', 'nimrod');
    await page.selectOption('select.opp', 'person');
    await page.click('#create-submit');
    await page.waitForSelector('#chat-off');
    assert.equal(await page.isVisible('#chat'), true);
    // From the keyboard.
    await page.focus('#chat-off');
    await page.keyboard.press('Space');
    await page.waitForSelector('#chat', { state: 'hidden' });
    await page.reload();
    await page.waitForSelector('#chat-off', { state: 'attached' });
    assert.equal(await page.isChecked('#chat-off'), true);
    assert.equal(await page.isVisible('#chat'), false);
    await page.uncheck('#chat-off');
    await page.waitForSelector('#chat', { state: 'visible' });
  },
};
