// Parlor's web client in a real browser: Debian's chromium, driven by
// playwright-core (which downloads no browser). The server must already
// run: PARLOR_URL names it (http://127.0.0.1:PORT/). Screenshots of every
// screen go to SCREENSHOT_DIR. Prints "N passed, N failed" last.

import { mkdirSync, readFileSync, existsSync } from 'node:fs';
import { chromium } from 'playwright-core';
import { TESTS } from './tests.mjs';

const URL = process.env.PARLOR_URL || 'http://127.0.0.1:7878/';
const SHOTS = process.env.SCREENSHOT_DIR || 'web-screenshots';
const CHROMIUM = process.env.CHROMIUM || '/usr/bin/chromium';
/** A safety net per test, not a speed requirement. */
const TEST_TIMEOUT_MS = 120_000;
const ONLY = process.argv[2];
/**
 * While editing the client: PARLOR_WEB_DIR=../../server/web serves the
 * page's files from that directory instead of the ones embedded in the
 * running server (same headers), so a change needs no rebuild. CI leaves
 * it unset and tests what the binary serves.
 */
const WEB_DIR = process.env.PARLOR_WEB_DIR;
/** Chromium's console line for an HTTP answer of 4xx, which the API gives for refusals. */
const EXPECTED_REFUSAL = /^Failed to load resource: the server responded with a status of 4\d\d /;

mkdirSync(SHOTS, { recursive: true });
const browser = await chromium.launch({
  executablePath: CHROMIUM,
  headless: true,
  // A fresh temporary profile per launch (playwright's default).
  args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--disable-background-networking',
    '--disable-component-update', '--no-first-run', '--disable-sync'],
});

if (WEB_DIR) {
  const plain = browser.newContext.bind(browser);
  browser.newContext = async opts => {
    const context = await plain(opts);
    await context.route(u => u.origin === new globalThis.URL(URL).origin && /\.(js|css|svg)$/.test(u.pathname), async route => {
      const path = new globalThis.URL(route.request().url()).pathname;
      const file = `${WEB_DIR}${path === '/' ? '/index.html' : path}`;
      const answer = await route.fetch();
      if (!existsSync(file)) return route.fulfill({ response: answer });
      // A file new since the server was built: served as the server serves its kind.
      const type = { js: 'text/javascript; charset=utf-8', css: 'text/css; charset=utf-8', html: 'text/html; charset=utf-8', svg: 'image/svg+xml' };
      const headers = { ...answer.headers(), 'content-type': type[file.split('.').pop()] || 'application/octet-stream' };
      return route.fulfill({ status: 200, headers, body: readFileSync(file) });
    });
    return context;
  };
}

let passed = 0;
let failed = 0;
for (const [name, test] of Object.entries(TESTS)) {
  if (ONLY && !name.includes(ONLY)) continue;
  const context = await browser.newContext({ viewport: { width: 1000, height: 800 } });
  const page = await context.newPage();
  const problems = [];
  page.on('pageerror', e => problems.push(`page error: ${e.message}`));
  page.on('console', m => {
    // Chromium logs every 4xx answer; the account API's refusals are
    // answers the page explains, not faults.
    if (m.type() === 'error' && !EXPECTED_REFUSAL.test(m.text())) problems.push(`console: ${m.text()}`);
  });
  const shot = async (file, opts = {}) => {
    const path = `${SHOTS}/${file}.png`;
    await page.screenshot({ path, ...opts });
  };
  page.setDefaultTimeout(30_000);
  let timer;
  try {
    await Promise.race([
      test({ page, context, url: URL, shot, browser }),
      new Promise((_, reject) => { timer = setTimeout(() => reject(new Error('test timed out')), TEST_TIMEOUT_MS); }),
    ]);
    if (problems.length) throw new Error(problems.join('\n'));
    passed++;
    console.log(`ok   ${name}`);
  } catch (e) {
    failed++;
    console.log(`FAIL ${name}\n     ${String(e.stack || e).split('\n').slice(0, 6).join('\n     ')}`);
    await shot(`FAILED-${name}`).catch(() => {});
  } finally {
    clearTimeout(timer);
    await context.close();
  }
}
await browser.close();
console.log(`screenshots in ${SHOTS}`);
console.log(`${passed} passed, ${failed} failed`);
process.exit(failed ? 1 : 0);
