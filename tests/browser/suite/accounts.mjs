// Accounts: register, log in and out, failed logins limited, API tokens, a
// player's page, the account pages on a phone.

import assert from 'node:assert/strict';
import { uniqueName, PASSWORD, open, register } from './helpers.mjs';

/** Submits the register form and returns the error code and the error shown. */
async function registerRefused(page, name, password, errorId) {
  await page.fill('#register-name', name);
  await page.fill('#register-password', password);
  await page.click('#register-submit');
  await page.waitForSelector(`${errorId}:not(:empty)`);
  return [await page.getAttribute('#register', 'data-code'), await page.textContent(errorId)];
}

/** Opens a WebSocket of its own in the page and says hello with `token`. */
function helloWithToken(page, token) {
  return page.evaluate(token => new Promise(resolve => {
    const ws = new WebSocket(`ws://${location.host}/`);
    ws.onopen = () => ws.send(JSON.stringify({ type: 'hello', version: 1, token }));
    ws.onmessage = e => { ws.close(); resolve(JSON.parse(e.data)); };
  }), token);
}

export const TESTS = {
  async register_log_out_log_in_with_errors_explained({ page, url, shot }) {
    await open(page, url);
    await page.click('#register-link');
    await page.waitForSelector('#register');
    // Every refusal is shown by the field it concerns, in words.
    let [code, text] = await registerRefused(page, 'a', PASSWORD, '#register-name-error');
    assert.equal(code, 'account/bad_name');
    assert.match(text, /3 to 20/);
    assert.equal(await page.getAttribute('#register-name', 'aria-invalid'), 'true');
    [code, text] = await registerRefused(page, 'admin', PASSWORD, '#register-name-error');
    assert.equal(code, 'account/name_reserved');
    assert.match(text, /reserved/);
    [code, text] = await registerRefused(page, uniqueName('p'), 'short', '#register-password-error');
    assert.equal(code, 'account/bad_password');
    assert.match(text, /at least 8/);
    assert.equal(await page.textContent('#register-name-error'), '', 'an earlier error is cleared');
    await shot('register-refused');

    const name = uniqueName('ann');
    await page.fill('#register-name', name);
    await page.fill('#register-password', PASSWORD);
    await page.click('#register-submit');
    await page.waitForFunction(n => document.querySelector('#me')?.textContent === n, name);
    assert.ok(await page.$('#logout'));
    assert.equal(await page.$('#login-link'), null);
    await shot('lobby-signed-in');

    // The name is taken now, whatever the case.
    await page.click('#logout');
    await page.waitForSelector('#login-link');
    assert.equal(await page.textContent('#account .who'), 'Guest');
    await page.click('#register-link');
    [code, text] = await registerRefused(page, name.toUpperCase(), PASSWORD, '#register-name-error');
    assert.equal(code, 'account/name_taken');
    assert.match(text, /taken/);

    // A wrong password, then the right one.
    await page.click('#login-link');
    await page.fill('#login-name', name);
    await page.fill('#login-password', 'not the password');
    await page.click('#login-submit');
    await page.waitForSelector('#login-password-error:not(:empty)');
    assert.equal(await page.getAttribute('#login', 'data-code'), 'auth/bad_credentials');
    await shot('login-refused');
    await page.fill('#login-password', PASSWORD);
    await page.click('#login-submit');
    await page.waitForFunction(n => document.querySelector('#me')?.textContent === n, name);
    // A reload keeps the session (the cookie), and a seat shows the account.
    await page.reload();
    await page.waitForFunction(n => document.querySelector('#me')?.textContent === n, name);
    await page.click('#quick-nimrod');
    await page.waitForSelector('#status[data-seq]');
    assert.equal(await page.textContent('.seat.me .who'), name);
    assert.equal(await page.getAttribute('.seat.me .who a', 'href'), `#/player/${name}`);
    await shot('nimrod-account-seat');
  },

  async failed_logins_are_limited_with_the_wait_shown({ page, url, shot }) {
    await open(page, url, '#/login');
    // The server allows 10 failures per name in 15 minutes; a name of
    // nobody's, so that no other test is locked out.
    const name = uniqueName('nobody');
    await page.fill('#login-name', name);
    let code = null;
    for (let i = 0; i < 12 && code !== 'auth/rate_limited'; i++) {
      await page.fill('#login-password', `wrong password ${i}`);
      await page.click('#login-submit');
      await page.waitForFunction(() => document.querySelector('#login').dataset.code);
      code = await page.getAttribute('#login', 'data-code');
      if (code === 'auth/bad_credentials') {
        await page.evaluate(() => delete document.querySelector('#login').dataset.code);
      }
    }
    assert.equal(code, 'auth/rate_limited');
    const text = await page.textContent('#login .form-error');
    assert.match(text, /try again in \d+ (s|min)/);
    await shot('login-rate-limited');
  },

  async tokens_created_listed_used_and_revoked({ page, url, shot }) {
    page.on('dialog', d => d.accept());
    await open(page, url);
    const name = uniqueName('bot');
    await register(page, name, 'bot');
    // A bot account lands on its tokens.
    await page.waitForSelector('#token-form');
    await page.waitForSelector('#token-list td.empty');
    assert.match(await page.textContent('#token-list'), /No tokens yet/);
    await page.fill('#token-label', 'x'.repeat(65));
    await page.evaluate(() => document.querySelector('#token-label').removeAttribute('maxlength'));
    await page.fill('#token-label', 'x'.repeat(65));
    await page.click('#create-token');
    await page.waitForSelector('#token-label-error:not(:empty)');
    assert.equal(await page.getAttribute('#token-form', 'data-code'), 'token/bad_label');
    await page.fill('#token-label', 'ladder');
    await page.click('#create-token');
    await page.waitForSelector('#new-token');
    const token = await page.inputValue('#new-token');
    assert.match(token, /^parlor_/);
    assert.match(await page.textContent('.new-token'), /only this once/);
    await page.waitForSelector('#token-list tr[data-id] .label');
    assert.deepEqual(await page.$$eval('#token-list .label', els => els.map(e => e.textContent)), ['ladder']);
    assert.match(await page.textContent('#token-list tr[data-id]'), /never/);
    await shot('tokens-created');
    // The token plays as the account...
    const welcome = await helloWithToken(page, token);
    assert.equal(welcome.type, 'welcome');
    assert.deepEqual(welcome.account, { name, kind: 'bot', role: 'player' });
    // ...which the list shows as a last use, once asked again (the server
    // may record the use just after the welcome).
    let used = 'never';
    for (let i = 0; i < 50 && /never/.test(used); i++) {
      if (i) await page.waitForTimeout(100);
      await page.reload();
      await page.waitForSelector('#token-list tr[data-id]');
      used = await page.textContent('#token-list tr[data-id]');
    }
    assert.doesNotMatch(used, /never/);
    // Revoked (after a confirm), it is gone and refused.
    await page.click('#token-list button.revoke');
    await page.waitForSelector('#token-list tr[data-id]', { state: 'detached' });
    const refused = await helloWithToken(page, token);
    assert.equal(refused.code, 'auth/invalid_token');
    // 360 px wide: nothing sticks out.
    await page.setViewportSize({ width: 360, height: 740 });
    const wide = await page.evaluate(() => document.documentElement.scrollWidth);
    assert.ok(wide <= 360, `tokens page is ${wide} px wide`);
    await shot('tokens-360px', { fullPage: true });
  },

  async a_players_page_and_the_challenge_form({ page, context, url, shot }) {
    // A player to look at, registered on a page of its own.
    const other = await context.browser().newContext();
    const theirs = await other.newPage();
    const them = uniqueName('bob');
    await open(theirs, url);
    await register(theirs, them);
    await other.close();

    await open(page, url, `#/player/${them}`);
    await page.waitForSelector('#player-name');
    assert.equal(await page.textContent('#player-name'), them);
    assert.equal(await page.textContent('#player-kind'), 'person');
    assert.match(await page.textContent('#player-joined'), /\d/);
    // A guest is asked to log in before challenging.
    assert.equal(await page.$('#challenge-form'), null);
    assert.match(await page.textContent('.player-screen'), /Log in to challenge/);
    await open(page, url, '#/player/nobody-here');
    await page.waitForSelector('#player-error');
    assert.match(await page.textContent('#player-error'), /No player/);

    const me = uniqueName('amy');
    await register(page, me);
    await page.goto(`${url}#/player/${them}`);
    await page.waitForSelector('#challenge-form');
    assert.ok(await page.$('#challenge-game'));
    assert.ok(await page.$('#challenge-clock'));
    assert.ok(await page.$('#challenge-rated'));
    await shot('player-page');
    // Our own page offers no challenge.
    await page.click('#me');
    await page.waitForFunction(n => document.querySelector('#player-name')?.textContent === n, me);
    assert.equal(await page.$('#challenge-form'), null);
  },

  async account_pages_fit_360_px({ page, url, shot }) {
    await page.setViewportSize({ width: 360, height: 740 });
    for (const [hash, file] of [['#/register', 'register-360px'], ['#/login', 'login-360px'], ['', 'lobby-360px']]) {
      await open(page, url, hash);
      if (!hash) await page.click('#seek-nimrod-open');
      const wide = await page.evaluate(() => document.documentElement.scrollWidth);
      assert.ok(wide <= 360, `${hash || 'lobby'} is ${wide} px wide`);
      await shot(file, { fullPage: true });
    }
  },
};
