// What several themes of the browser tests share: opening the page,
// registering, a second player, waiting for turns and moves, photographs.

import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';

/** axe-core's source (pinned in package.json), run in the page by evaluate (the page's CSP allows no injected script tag). */
export const AXE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

/** Impacts that fail a test; minor and moderate findings are listed only. */
export const AXE_FAILING = ['serious', 'critical'];

/**
 * Runs axe-core's rules on the page as it is, in the light theme and the
 * dark one; fails on any serious or critical violation, naming the rule
 * and the elements.
 */
export async function axe(page, screen) {
  const found = [];
  for (const scheme of ['light', 'dark']) {
    await page.emulateMedia({ colorScheme: scheme });
    if (!(await page.evaluate(() => typeof window.axe === 'object'))) await page.evaluate(AXE);
    const result = await page.evaluate(() => window.axe.run(document, { resultTypes: ['violations'] }));
    for (const v of result.violations) {
      if (!AXE_FAILING.includes(v.impact)) continue;
      found.push(`${screen} (${scheme}): ${v.id} (${v.impact}): ${v.help}; ${v.nodes.slice(0, 4).map(n => n.target.join(' ')).join(', ')}`);
    }
  }
  await page.emulateMedia({ colorScheme: 'light' });
  assert.deepEqual(found, [], found.join('\n'));
}

/** Waits until the room screen shows an update at `seq` or later. */
export async function statusIs(page, pattern) {
  await page.waitForFunction(p => new RegExp(p).test(document.querySelector('#status')?.textContent || ''), pattern.source);
}

/** Waits for our turn (or the end); true when it is our turn. */
export async function ourTurn(page) {
  await page.waitForFunction(() => {
    const st = document.querySelector('#status');
    return st && (st.dataset.turn === 'yes' || st.dataset.status === 'finished');
  });
  return (await page.getAttribute('#status', 'data-turn')) === 'yes';
}

/** Runs `act` and waits until the room has moved past the current seq. */
export async function andWait(page, act) {
  const seq = Number(await page.getAttribute('#status', 'data-seq'));
  await act();
  await page.waitForFunction(s => Number(document.querySelector('#status').dataset.seq) > s, seq);
}

/** A name no earlier run of this server has used (accounts persist). */
export function uniqueName(prefix) {
  return `${prefix}${Date.now().toString(36).slice(-5)}${Math.floor(Math.random() * 1296).toString(36)}`;
}

/** Password long enough for the server (8 or more characters). */
export const PASSWORD = 'correct horse battery';

/** Opens the page and waits for the connection to be greeted. */
export async function open(page, url, hash = '') {
  await page.goto(url + hash);
  await page.waitForSelector('#conn[data-up="yes"]');
}

/** Registers `name` through the form; the page is then logged in as it. */
export async function register(page, name, kind = 'human') {
  await page.click('#register-link');
  await page.fill('#register-name', name);
  await page.fill('#register-password', PASSWORD);
  await page.check(`#kind-${kind}`);
  await page.click('#register-submit');
  await page.waitForFunction(n => document.querySelector('#me')?.textContent === n, name);
}

/** A second player in a browser context of its own, registered as `prefix...`. */
export async function secondPlayer(browser, url, prefix) {
  const context = await browser.newContext({ viewport: { width: 1000, height: 800 } });
  const page = await context.newPage();
  const errors = [];
  page.on('pageerror', e => errors.push(e.message));
  await open(page, url);
  const name = uniqueName(prefix);
  await register(page, name);
  return { context, page, name, errors };
}

/** The seat this page holds in its room ("Seat 1" -> 1). */
export async function mySeat(page) {
  return Number((await page.textContent('.seat.me .seat-no')).replace(/\D/g, ''));
}

/** Waits until the board's animations have ended (data-motion="done"). */
export async function settled(page) {
  await page.waitForSelector('#board[data-motion="done"]');
}

/** The screenshot directory, for pages other than the test's own. */
export const SHOTS_DIR = process.env.SCREENSHOT_DIR || 'web-screenshots';

/** Screenshots of the page as it is at 1280x800 and 360x740, light and dark (screen-NAME-WIDTH-THEME.png). */
export async function photograph(page, name) {
  for (const [w, h] of [[1280, 800], [360, 740]]) {
    await page.setViewportSize({ width: w, height: h });
    for (const scheme of ['light', 'dark']) {
      await page.emulateMedia({ colorScheme: scheme });
      await page.evaluate(() => window.scrollTo(0, 0));
      await page.screenshot({ path: `${SHOTS_DIR}/screen-${name}-${w}-${scheme}.png` });
    }
  }
  await page.emulateMedia({ colorScheme: 'light' });
  await page.setViewportSize({ width: 1000, height: 800 });
}

/** Registers an account of `kind` from the page and makes it an API token: {name, token}. */
export function accountWithToken(page, name, kind) {
  return page.evaluate(async ({ name, kind, password }) => {
    const made = await fetch('/api/accounts', {
      method: 'POST', credentials: 'omit', headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ name, password, kind }),
    });
    if (made.status !== 201) throw new Error(`register ${name}: ${made.status} ${await made.text()}`);
    const t = await fetch('/api/tokens', {
      method: 'POST', credentials: 'omit',
      headers: { 'Content-Type': 'application/json', Authorization: `Basic ${btoa(`${name}:${password}`)}` },
      body: JSON.stringify({ label: 'browser test' }),
    });
    if (t.status !== 201) throw new Error(`token ${name}: ${t.status} ${await t.text()}`);
    return { name, token: (await t.json()).token };
  }, { name, kind, password: PASSWORD });
}

/** GET of the JSON API from the page. */
export function getJson(page, path) {
  return page.evaluate(async path => {
    const r = await fetch(path);
    if (!r.ok) throw new Error(`${path}: ${r.status}`);
    return r.json();
  }, path);
}

/** The page's width at 360 px: nothing sticks out sideways. */
export async function fitsPhone(page, what) {
  await page.setViewportSize({ width: 360, height: 740 });
  const wide = await page.evaluate(() => document.documentElement.scrollWidth);
  await page.setViewportSize({ width: 1000, height: 800 });
  assert.ok(wide <= 360, `${what} is ${wide} px wide at 360 px`);
}
