// A tournament page's chat: two accounts talk on the event's page and a
// guest reads along (and is asked to log in to speak), text stays text,
// a line is reported naming the message, a flood is refused in the
// server's words, "Chat off" hides the panel and is remembered, and a
// block keeps the blocked speaker's lines from the blocker.

import assert from 'node:assert/strict';
import { axe, fitsPhone, open, register, secondPlayer, uniqueName } from './helpers.mjs';

/** Waits until the page's event chat shows a line holding `text`. */
async function sees(page, text) {
  await page.waitForFunction(t => [...document.querySelectorAll('#event-chat-lines li')].some(li => li.textContent.includes(t)), text);
}

/** The text of every line of the page's event chat. */
function chatLines(page) {
  return page.$$eval('#event-chat-lines li', lis => lis.map(li => li.textContent));
}

async function say(page, text) {
  await page.fill('#event-chat-input', text);
  await page.press('#event-chat-input', 'Enter');
}

/** A request to the JSON API from the page, with its session: [status, body]. */
function apiFrom(page, method, path, body) {
  return page.evaluate(async ({ method, path, body }) => {
    const r = await fetch(path, {
      method, credentials: 'same-origin',
      headers: body ? { 'Content-Type': 'application/json' } : {},
      body: body ? JSON.stringify(body) : undefined,
    });
    return [r.status, await r.json().catch(() => null)];
  }, { method, path, body });
}

export const TESTS = {
  async two_accounts_chat_on_a_tournament_page_and_a_guest_reads({ page, url, browser, shot }) {
    await open(page, url);
    const alice = uniqueName('evchatA');
    await register(page, alice);
    const [made, event] = await apiFrom(page, 'POST', '/api/tournaments',
      { game: 'nimrod', format: 'round-robin', starts_at_ms: Date.now() + 3_600_000 });
    assert.equal(made, 201, JSON.stringify(event));
    const hash = `#/tournament/${event.id}`;
    await open(page, url, hash);
    await page.waitForSelector('#event-chat-input');
    const bob = await secondPlayer(browser, url, 'evchatB');
    const guestContext = await browser.newContext({ viewport: { width: 1000, height: 800 } });
    try {
      await open(bob.page, url, hash);
      await bob.page.waitForSelector('#event-chat-input');
      const guest = await guestContext.newPage();
      await open(guest, url, hash);
      // A guest reads but is asked to log in to speak.
      await guest.waitForSelector('#event-chat-guest a[href="#/login"]');
      assert.equal(await guest.$('#event-chat-input'), null);

      // Alice talks; Bob and the guest read it under her name, as text.
      await say(page, 'hello <b>all</b> https://example.com');
      await sees(bob.page, 'hello <b>all</b>');
      await sees(guest, 'hello <b>all</b>');
      const line = await bob.page.$('#event-chat-lines li');
      assert.match(await line.textContent(), new RegExp(`^${alice}: hello <b>all</b> https://example.com`));
      assert.ok(await line.getAttribute('title'), 'the time is on the line');
      assert.equal(await bob.page.$('#event-chat-lines b'), null);
      assert.equal(await bob.page.$('#event-chat-lines a'), null, 'no link is made');
      // A canned phrase from Bob.
      await bob.page.click('#event-chat .chat-phrases button[data-phrase="good_luck"]');
      await sees(page, `${bob.name}: Good luck`);
      await shot('event-chat');
      await axe(page, 'tournament page with its chat');
      await fitsPhone(page, 'the tournament page with its chat');

      // Alice reports Bob's line: the report names the message.
      await page.click(`#event-chat-lines button.chat-report[aria-label="Report ${bob.name}"]`);
      await page.waitForSelector('#report-dialog #report-about');
      assert.match(await page.textContent('#report-about'), /Good luck/);
      await page.check('#report-abuse');
      await page.click('#report-submit');
      await page.waitForSelector('#report-done[data-id]');
      await page.click('#report-close');
      // No Report beside one's own lines.
      assert.equal(await page.$(`#event-chat-lines button[aria-label="Report ${alice}"]`), null);

      // Bob blocks Alice: her next line reaches the guest, never Bob.
      const [blocked] = await apiFrom(bob.page, 'POST', `/api/blocks/${alice}`);
      assert.equal(blocked, 201);
      await say(page, 'after the block');
      await sees(guest, 'after the block');
      await sees(page, 'after the block');
      await bob.page.waitForTimeout(3000);
      assert.ok(!(await chatLines(bob.page)).some(t => t.includes('after the block')), 'a blocked speaker reached the blocker');

      // A flood is refused in the server's words.
      for (let i = 0; i < 6; i++) await say(page, `line ${i}`);
      await page.waitForSelector('#event-chat-refusal[data-code="chat/rate_limited"]');
      assert.ok((await page.textContent('#event-chat-refusal')).length > 0);

      // "Chat off" hides the panel, is remembered, and is the rooms' switch.
      await page.check('#event-chat-off');
      assert.equal(await page.isVisible('#event-chat'), false);
      assert.equal(await page.evaluate(() => localStorage.getItem('parlor.chatOff')), 'yes');
      await open(page, url, hash);
      await page.waitForSelector('#event-chat-off:checked');
      assert.equal(await page.isVisible('#event-chat'), false);
      await page.uncheck('#event-chat-off');
      await page.waitForSelector('#event-chat', { state: 'visible' });
      await sees(page, 'after the block');
      assert.deepEqual(bob.errors, []);
    } finally {
      await bob.context.close();
      await guestContext.close();
    }
  },
};
