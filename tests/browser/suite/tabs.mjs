// Many tabs and devices, one account (issue 37): tabs sharing a browser's
// storage and separate browsers play one game side by side without taking
// it from each other; a tab in the lobby is told of the turn; a new tab
// stays in the lobby; turn alerts as notifications; the CLI and the page
// moving in the same seat.

import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, statSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { axe, open, register, uniqueName, PASSWORD } from './helpers.mjs';

/**
 * Run in every page of a context before its own scripts: counts the
 * WebSocket connections opened and closed (with their close codes) and
 * the `session/taken_over` errors received, in window.parlorSockets; and
 * lets the test hide the page (document.hidden follows window.parlorHidden).
 */
function watchSockets() {
  const Native = window.WebSocket;
  const seen = { opened: 0, closed: [], takenOver: 0 };
  window.parlorSockets = seen;
  window.WebSocket = class extends Native {
    constructor(...args) {
      super(...args);
      seen.opened++;
      this.addEventListener('close', e => seen.closed.push(e.code));
      this.addEventListener('message', e => { if (String(e.data).includes('session/taken_over')) seen.takenOver++; });
    }
  };
  Object.defineProperty(Document.prototype, 'hidden', { configurable: true, get: () => Boolean(window.parlorHidden) });
  Object.defineProperty(Document.prototype, 'visibilityState', { configurable: true, get: () => (window.parlorHidden ? 'hidden' : 'visible') });
}

/** Hides or shows the page as a switch to another tab would. */
async function setHidden(page, hidden) {
  await page.evaluate(on => {
    window.parlorHidden = on;
    document.dispatchEvent(new Event('visibilitychange'));
  }, hidden);
}

/** The sockets a page opened and saw closed so far. */
const sockets = page => page.evaluate(() => ({ ...window.parlorSockets, closed: [...window.parlorSockets.closed] }));

/** A browser context (another device) logged in as `name`, its page open at `hash`. */
async function device(browser, url, name, hash = '') {
  const context = await browser.newContext({ viewport: { width: 1000, height: 800 } });
  await context.addInitScript(watchSockets);
  const page = await context.newPage();
  await open(page, url, '#/login');
  await page.fill('#login-name', name);
  await page.fill('#login-password', PASSWORD);
  await page.click('#login-submit');
  await page.waitForFunction(n => document.querySelector('#me')?.textContent === n, name);
  if (hash) await page.goto(url + hash);
  return { context, page };
}

/**
 * Creates a Nimrod room against the optimal bot from the lobby; its id.
 * Piles 12 and 20 lose for the first player (ours): taking one rod at a
 * time, it has five moves before the bot wins.
 */
async function gameAgainstBot(page) {
  await page.selectOption('#create-game', 'nimrod');
  await page.fill('input[name=pile_a]', '12');
  await page.fill('input[name=pile_b]', '20');
  await page.selectOption('select.opp', 'optimal');
  await page.click('#create-submit');
  await page.waitForSelector('#status[data-seq]');
  return page.url().match(/room\/([0-9a-f]+)/)[1];
}

const seqOf = async page => Number(await page.getAttribute('#status', 'data-seq'));

/** Waits until every page shows the room at `seq` or later. */
async function allAt(pages, seq) {
  for (const p of pages) await p.waitForFunction(s => Number(document.querySelector('#status')?.dataset.seq) >= s, seq);
}

/**
 * Plays the room to its end, the account's moves made in turn from each
 * of `movers` (`move(i)` makes the i-th; it returns false to let the
 * pages move instead); checks after each step that every page shows it.
 * Returns how many moves each mover made.
 */
async function playOut(pages, movers) {
  const made = movers.map(() => 0);
  let turn = 0;
  for (let guard = 0; guard < 200; guard++) {
    const at = pages[0];
    await at.waitForFunction(() => {
      const st = document.querySelector('#status');
      return st && (st.dataset.turn === 'yes' || st.dataset.status === 'finished');
    });
    if ((await at.getAttribute('#status', 'data-status')) === 'finished') break;
    const seq = await seqOf(at);
    // Every page of the account shows the seat and its turn.
    for (const p of pages) {
      await p.waitForFunction(s => {
        const st = document.querySelector('#status');
        return Number(st?.dataset.seq) >= s && st.dataset.turn === 'yes';
      }, seq);
      assert.equal((await p.$$('.seat.me')).length, 1, 'each page shows the seat as its own');
      assert.equal(await p.textContent('#conn'), 'connected');
    }
    const i = turn % movers.length;
    if (await movers[i](seq)) made[i]++;
    turn++;
    await allAt(pages, seq + 1);
  }
  for (const p of pages) await p.waitForSelector('#status[data-status="finished"]');
  return made;
}

/** A move by the page: its first legal one. */
const clickMove = page => async () => {
  await (await page.$$('button.move.legal'))[0].click();
  return true;
};

/**
 * The notification stub: records every notification made and every
 * permission request in window.parlorNotes; the permission is the
 * browser's (granted by the test, or not).
 */
function stubNotifications() {
  const Real = window.Notification;
  const notes = { made: [], asked: 0 };
  window.parlorNotes = notes;
  window.Notification = class {
    static get permission() { return Real.permission; }
    static requestPermission() { notes.asked++; return Promise.resolve(Real.permission); }
    constructor(title, options = {}) {
      this.title = title;
      this.options = options;
      notes.made.push(this);
    }
    close() { this.closed = true; }
  };
}

/**
 * The `parlor` CLI binary the workspace built, if any (PARLOR_CLI_BIN, or
 * the newer of the release and debug builds: `.ci/run` tests the
 * workspace, building the debug one, before the browser tests).
 */
function cliBinary() {
  if (process.env.PARLOR_CLI_BIN) return process.env.PARLOR_CLI_BIN;
  const root = fileURLToPath(new URL('../../../', import.meta.url));
  const built = ['release', 'debug'].map(p => `${root}target/${p}/parlor`).filter(existsSync);
  return built.sort((a, b) => statSync(b).mtimeMs - statSync(a).mtimeMs)[0] || null;
}

export const TESTS = {
  async tabs_and_devices_of_one_account_share_a_game_and_a_new_tab_stays_in_the_lobby({ page, context, url, browser }) {
    await context.addInitScript(watchSockets);
    await open(page, url);
    const ann = uniqueName('ann');
    await register(page, ann);
    // A tab in the lobby on a third device: told when the turn is Ann's.
    const lobby = await device(browser, url, ann);
    const laptop = await device(browser, url, ann);
    try {
      const room = await gameAgainstBot(page);
      // (c) A new tab of the same browser (same storage, same token) while
      // the game is on: it shows the lobby, not the room.
      const fresh = await context.newPage();
      await open(fresh, url);
      await fresh.waitForSelector('#room-list');
      assert.ok(!fresh.url().includes('#/room/'), `a new tab jumped to ${fresh.url()}`);
      // (a) It opens the room: it shows Ann's seat. So does another
      // device's browser, opened at the room's link.
      await fresh.goto(`${url}#/room/${room}`);
      await laptop.page.goto(`${url}#/room/${room}`);
      for (const p of [fresh, laptop.page]) await p.waitForSelector('.seat.me', { timeout: 10_000 });
      const pages = [page, fresh, laptop.page];
      const before = await Promise.all(pages.map(sockets));
      // (b) The lobby device, which shows no table, is told of Ann's turns (its badge).
      const badge = () => lobby.page.textContent('#turn-badge');
      let badged = false;
      const made = await playOut(pages, [page, fresh, laptop.page].map(p => async seq => {
        const moved = await clickMove(p)();
        // The bot answers at once: Ann's next turn reaches the lobby tab.
        if (!badged) {
          await allAt(pages, seq + 1);
          await lobby.page.waitForFunction(() => document.querySelector('#turn-badge')?.textContent === '1', null, { timeout: 5_000 })
            .then(() => { badged = true; }, () => {});
        }
        return moved;
      }));
      assert.ok(made.every(n => n >= 1), `moves from each page: ${made}`);
      assert.ok(badged, 'the lobby tab got the your-turn badge');
      // Nobody was taken over, nor reconnected, all along.
      const after = await Promise.all(pages.map(sockets));
      after.forEach((s, i) => {
        assert.equal(s.takenOver, 0, `page ${i} was taken over`);
        assert.equal(s.opened, before[i].opened, `page ${i} reconnected: closes ${s.closed}`);
      });
      // The lobby device, shown again after the game, counts again: no turn left.
      await setHidden(lobby.page, true);
      await setHidden(lobby.page, false);
      await lobby.page.waitForFunction(() => document.querySelector('#turn-badge')?.textContent === '');
      assert.equal(await badge(), '');
    } finally {
      await lobby.context.close();
      await laptop.context.close();
    }
  },

  async a_guests_game_opened_in_another_tab_says_so_and_is_taken_back_on_use_here({ page, context, url, shot }) {
    await context.addInitScript(watchSockets);
    await open(page, url);
    await page.click('#quick-nimrod');
    await page.waitForSelector('#status[data-seq]');
    const room = page.url().match(/room\/([0-9a-f]+)/)[1];
    // Another tab of this browser resumes the guest's token: the first is
    // closed by the server, and does not come back by itself.
    const other = await context.newPage();
    await open(other, url, `#/room/${room}`);
    await other.waitForSelector('.seat.me');
    await page.waitForSelector('#taken-notice');
    assert.match(await page.textContent('#taken-notice'), /opened in another tab or window/);
    assert.equal(await page.getAttribute('#conn', 'data-up'), 'no');
    await axe(page, 'taken-notice');
    await shot('taken-notice');
    // Long enough for several reconnections with the old backoff.
    await page.waitForTimeout(2500);
    const idle = await sockets(page);
    assert.equal(idle.opened, 1, `the tab reconnected by itself: ${JSON.stringify(idle)}`);
    assert.equal((await sockets(other)).takenOver, 0);
    // "Use here" takes the game back to this tab; the other one is told.
    await page.click('#use-here');
    await page.waitForSelector('#conn[data-up="yes"]');
    await page.waitForSelector('.seat.me');
    await other.waitForSelector('#taken-notice');
    assert.equal(await page.$('#taken-notice'), null);
    await other.waitForTimeout(1500);
    assert.equal((await sockets(other)).opened, 1, 'the other tab stays closed');
  },

  async turn_alerts_ask_only_on_a_click_and_notify_a_hidden_tab({ page, context, url, browser, shot }) {
    // This context never granted notifications: the switch asks, on a click only.
    await context.addInitScript(stubNotifications);
    await open(page, url);
    const ann = uniqueName('ann');
    await register(page, ann);
    await page.click('#games-link');
    await page.waitForSelector('#turn-alerts-switch');
    assert.equal(await page.evaluate(() => window.parlorNotes.asked), 0, 'nothing asks on load');
    assert.match(await page.textContent('#turn-alerts-state'), /in the background/);
    await axe(page, 'turn-alerts-switch');
    await shot('turn-alerts-switch');
    await page.click('#turn-alerts-switch');
    await page.waitForFunction(() => window.parlorNotes.asked === 1);
    // Another browser of Ann's, where notifications are allowed.
    const other = await browser.newContext({ viewport: { width: 1000, height: 800 } });
    try {
      await other.grantPermissions(['notifications'], { origin: new URL(url).origin });
      await other.addInitScript(watchSockets);
      await other.addInitScript(stubNotifications);
      const tab = await other.newPage();
      await open(tab, url, '#/login');
      await tab.fill('#login-name', ann);
      await tab.fill('#login-password', PASSWORD);
      await tab.click('#login-submit');
      await tab.waitForFunction(n => document.querySelector('#me')?.textContent === n, ann);
      await tab.click('#games-link');
      await tab.waitForSelector('#turn-alerts-switch[aria-pressed="true"]');
      assert.match(await tab.textContent('#turn-alerts-state'), /^On/);
      assert.equal(await tab.evaluate(() => window.parlorNotes.asked), 0, 'nothing asks on load');
      // Ann plays from the first browser; the other, in the background, is told.
      await setHidden(tab, true);
      await page.click('a[href="#/"]');
      const room = await gameAgainstBot(page);
      await page.waitForSelector('#status[data-turn="yes"]');
      const seq = await seqOf(page);
      // Her move, the bot's answer: her turn again, told to the hidden tab.
      await clickMove(page)();
      await page.waitForFunction(s => Number(document.querySelector('#status').dataset.seq) > s + 1, seq);
      await tab.waitForFunction(() => window.parlorNotes.made.length > 0);
      const note = await tab.evaluate(() => {
        const n = window.parlorNotes.made.at(-1);
        return { title: n.title, tag: n.options.tag, body: n.options.body };
      });
      assert.match(note.title, /Your turn: Nimrod/);
      assert.equal(note.tag, room, 'one notification per room');
      assert.ok(note.body.length > 0);
      assert.equal(await tab.getAttribute('body', 'data-beeps'), null, 'no beep in the background');
      // A click on it brings the tab to the room, at Ann's seat.
      await setHidden(tab, false);
      await tab.evaluate(() => window.parlorNotes.made.at(-1).onclick());
      await tab.waitForSelector('.seat.me');
      assert.ok(tab.url().endsWith(`#/room/${room}`), tab.url());
      // The switch turns the alerts off (the browser's permission stays).
      await tab.click('#games-link');
      await tab.click('#turn-alerts-switch');
      await tab.waitForSelector('#turn-alerts-switch[aria-pressed="false"]');
      assert.equal(await tab.textContent('#turn-alerts-state'), 'Off.');
      await axe(tab, 'turn-alerts-off');
    } finally {
      await other.close();
    }
  },

  async the_cli_and_the_page_move_in_one_accounts_seat({ page, url }) {
    const bin = cliBinary();
    if (!bin) {
      assert.ok(process.env.CI !== 'true', 'no parlor CLI binary: build it (cargo build -p parlor-cli)');
      console.log('     skipped: no parlor CLI binary in target/ (cargo build -p parlor-cli)');
      return;
    }
    await open(page, url);
    const ann = uniqueName('ann');
    await register(page, ann);
    const token = await page.evaluate(async ({ ann, password }) => {
      const t = await fetch('/api/tokens', {
        method: 'POST', credentials: 'omit',
        headers: { 'Content-Type': 'application/json', Authorization: `Basic ${btoa(`${ann}:${password}`)}` },
        body: JSON.stringify({ label: 'terminal' }),
      });
      if (t.status !== 201) throw new Error(`token: ${t.status}`);
      return (await t.json()).token;
    }, { ann, password: PASSWORD });
    // The terminal starts the game (Ann at seat 0, to move first, against
    // the optimal bot; piles as in gameAgainstBot).
    const cli = spawn(bin, ['play', 'nimrod', '--server', url.replace(/^http/, 'ws'), '--seat', '0', '--vs', 'optimal',
      '--options', '{"piles": [12, 20]}', '--token', token], { stdio: ['pipe', 'pipe', 'pipe'] });
    let out = '';
    cli.stdout.on('data', d => { out += d; });
    cli.stderr.on('data', d => { out += d; });
    try {
      const said = async text => {
        for (let i = 0; i < 200 && !out.includes(text); i++) await page.waitForTimeout(50);
        assert.ok(out.includes(text), `the CLI did not say ${JSON.stringify(text)}:\n${out}`);
      };
      await said('Your move');
      const room = out.match(/Created room ([0-9a-f]+)/)[1];
      // The page, opened at the room's link, shows the seat as Ann's (it
      // does not merely watch): both move in it.
      await page.goto(`${url}#/room/${room}`);
      await page.waitForSelector('.seat.me', { timeout: 10_000 });
      assert.equal(await page.textContent('.seat.me .seat-no'), 'Seat 0');
      let cliMoves = 0;
      const made = await playOut([page], [async () => {
        // "both 1" reads the same whichever pile the terminal calls A.
        if (!(await page.$('button.move.legal[data-take="1,1"]'))) return clickMove(page)();
        // Moved once the page shows the next step (playOut waits for it).
        cli.stdin.write('both 1\n');
        cliMoves++;
        return true;
      }, clickMove(page)]);
      assert.ok(made[1] >= 1, `moves from the page: ${made}`);
      assert.ok(cliMoves >= 1, `moves from the CLI: ${cliMoves}\n${out}`);
      assert.equal(await page.textContent('#conn'), 'connected');
    } finally {
      cli.kill();
    }
  },
};
