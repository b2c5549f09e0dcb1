// Tournaments: the list and its form, an event played from the page, an
// arena's page.

import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { axe, ourTurn, andWait, uniqueName, open, register, mySeat, photograph, accountWithToken, getJson, fitsPhone } from './helpers.mjs';

/** A request to the JSON API from the page as the account of `token`: [status, body]. */
function apiAs(page, token, method, path, body) {
  return page.evaluate(async ({ token, method, path, body }) => {
    const r = await fetch(path, {
      method, credentials: 'omit',
      headers: { Authorization: `Bearer ${token}`, ...(body ? { 'Content-Type': 'application/json' } : {}) },
      body: body ? JSON.stringify(body) : undefined,
    });
    return [r.status, await r.json().catch(() => null)];
  }, { token, method, path, body });
}

/**
 * Tournament players over WebSockets of their own in `page`, one per
 * account (`players`: [{name, token}]): each joins every game event `id`
 * seats it in and plays the first legal move on its turns, until the
 * event is over. Resolves with each player's count of games and any
 * error the server sent.
 */
function playTournament(page, players, id) {
  return page.evaluate(async ({ players, id }) => {
    const GIVE_UP_AFTER_MS = 110_000;
    const CHECK_EVERY_MS = 500;
    const errors = [];
    const clients = await Promise.all(players.map(p => new Promise(resolve => {
      const ws = new WebSocket(`ws://${location.host}/`);
      const played = new Map();
      const c = { ws, games: 0 };
      ws.onopen = () => ws.send(JSON.stringify({ type: 'hello', version: 1, token: p.token }));
      ws.onmessage = e => {
        const m = JSON.parse(e.data);
        if (m.type === 'welcome') resolve(c);
        else if (m.type === 'tournament_game' && m.tournament === id) {
          c.games++;
          ws.send(JSON.stringify({ type: 'join', room: m.room, seat: m.seat }));
        } else if (m.type === 'update' && m.status === 'playing' && m.you !== undefined && m.to_act.includes(m.you)
          && m.legal && m.legal.length && !(played.get(m.room) >= m.seq)) {
          played.set(m.room, m.seq);
          ws.send(JSON.stringify({ type: 'play', room: m.room, seat: m.you, seq: m.seq, move: m.legal[0] }));
        } else if (m.type === 'error') errors.push(`${p.name}: ${m.code} ${m.message}`);
      };
    })));
    const until = Date.now() + GIVE_UP_AFTER_MS;
    for (;;) {
      const e = await (await fetch(`/api/tournaments/${id}`)).json();
      if (e.status === 'finished' || e.status === 'cancelled') break;
      if (Date.now() > until) { errors.push(`the event is still ${e.status}`); break; }
      await new Promise(r => setTimeout(r, CHECK_EVERY_MS));
    }
    for (const c of clients) c.ws.close();
    return { games: clients.map(c => c.games), errors };
  }, { players, id });
}

/** Points as a person writes them: 1½, ½, 2. */
function halves(x) {
  const whole = Math.trunc(x);
  if (x === whole) return String(whole);
  assert.equal(x - whole, 0.5, `${x} is not a whole or a half`);
  return whole ? `${whole}½` : '½';
}

export const TESTS = {
  async tournaments_page_lists_creates_and_enters_with_refusals_explained({ page, url, shot }) {
    await open(page, url);
    // A guest sees the lists and is asked to sign in to take part.
    await page.click('#tournaments-link');
    await page.waitForSelector('#events-body[data-loaded="yes"]');
    assert.ok(await page.$('#events-sign-in'));
    assert.equal(await page.$('#event-form'), null);
    const host = uniqueName('host');
    await register(page, host);
    await page.click('#tournaments-link');
    await page.waitForSelector('#event-form');
    await page.click('#events-new');
    assert.equal(await page.evaluate(() => document.activeElement.id), 'event-name');
    // Refused by the server, in its words: more than 30 days ahead.
    await page.fill('#event-start', String(31 * 24 * 60));
    await page.click('#event-submit');
    await page.waitForSelector('#event-form-error:not(:empty)');
    assert.equal(await page.getAttribute('#event-form', 'data-code'), 'tournament/bad_request');
    assert.match(await page.textContent('#event-form-error'), /within 30 days/);
    await shot('tournament-form-refused');
    // Made: a rated Swiss event of Cribbage to 61, for people, in an hour.
    const name = `Cup ${uniqueName('c')}`;
    await page.fill('#event-name', name);
    await page.selectOption('#event-game', 'cribbage');
    await page.selectOption('#event-format', 'arena');
    assert.equal(await page.textContent('label[for=event-length]'), 'Minutes');
    await page.selectOption('#event-format', 'swiss');
    assert.equal(await page.textContent('label[for=event-length]'), 'Rounds');
    await page.fill('#event-length', '3');
    await page.selectOption('#event-options select[name=target]', '61');
    await page.selectOption('#event-clock', 'rapid');
    await page.check('#event-rated');
    await page.selectOption('#event-kind', 'human');
    await page.fill('#event-max', '8');
    await page.fill('#event-start', '60');
    const before = Date.now();
    await page.click('#event-submit');
    await page.waitForSelector('#event[data-loaded="yes"]');
    const id = decodeURIComponent(page.url().split('#/tournament/')[1]);
    const made = await getJson(page, `/api/tournaments/${id}`);
    assert.equal(made.name, name);
    assert.equal(made.created_by, host);
    assert.deepEqual([made.game, made.format, made.rounds_asked, made.rated, made.kind, made.max_players, made.duplicate],
      ['cribbage', 'swiss', 3, true, 'human', 8, false]);
    assert.equal(made.options.target, 61);
    assert.deepEqual(made.clock, { increment: { main_ms: 600000, increment_ms: 5000 } });
    assert.ok(made.starts_at_ms >= before + 59 * 60000 && made.starts_at_ms <= Date.now() + 60 * 60000, `starts at ${made.starts_at_ms}`);
    // The page says what it is, and counts down to the start.
    assert.equal(await page.textContent('#event-name'), name);
    assert.equal(await page.getAttribute('#event-status', 'data-status'), 'upcoming');
    assert.equal(await page.textContent('#event-format-text'), 'Swiss, 3 rounds');
    assert.equal(await page.textContent('#event-commitment'), made.commitment);
    assert.equal(await page.$('#event-seed'), null, 'the seed stays secret until the end');
    const first = await page.textContent('#countdown');
    assert.match(first, /^Starts in (59|1:00):\d\d$/);
    await page.waitForFunction(t => document.querySelector('#countdown').textContent !== t, first);
    // Entered from the event page, from the keyboard.
    await page.focus('#event-join');
    await page.keyboard.press('Enter');
    await page.waitForSelector(`#entrants li[data-name="${host}"]`);
    assert.equal(await page.textContent('#event-count'), '1 of at most 8');
    assert.ok(await page.$('#event-leave'));
    await axe(page, 'tournament-upcoming');
    await photograph(page, 'tournament-upcoming');
    await fitsPhone(page, 'the upcoming event page');
    // The list: the event under Upcoming, with its facts, and the host in
    // it from the first paint (the list's `entered`): no Join offered.
    await page.click('#tournaments-link');
    const row = `#events-upcoming li[data-id="${id}"]`;
    await page.waitForSelector(row);
    const text = await page.textContent(row);
    for (const bit of [name, 'Cribbage · Swiss', '1/8 players', 'rated', 'open to people']) assert.ok(text.includes(bit), `${bit} in ${text}`);
    assert.match(await page.textContent(`${row} .event-when`), /^starts .* \(in (59|1:00):\d\d\)$/);
    assert.equal(await page.textContent(`${row} .actions .entered`), 'You are in');
    assert.equal(await page.$(`${row} .join-event`), null);
    assert.equal((await getJson(page, '/api/tournaments')).upcoming.find(e => e.id === id).entered, true);
    // Left elsewhere meanwhile (the focus keeps the list from redrawing):
    // Leave is refused, explained, and Join offered; Join enters again.
    await page.focus(`${row} .leave-event`);
    assert.equal(await page.evaluate(id => fetch(`/api/tournaments/${id}/leave`, { method: 'POST' }).then(r => r.status), id), 200);
    await page.keyboard.press('Enter');
    await page.waitForSelector(`${row} .actions .refusal:not(:empty)`);
    assert.match(await page.textContent(`${row} .actions .refusal`), /not entered/i);
    await page.click(`${row} .join-event`);
    await page.waitForFunction(r => document.querySelector(`${r} .entered`) && document.querySelector(r).textContent.includes('1/8 players'), row);
    await page.click(`${row} .leave-event`);
    await page.waitForFunction(r => document.querySelector(r)?.textContent.includes('0/8 players'), row);
    assert.ok(await page.$(`${row} .join-event`));
    assert.equal((await getJson(page, `/api/tournaments/${id}`)).players.length, 0);
    await axe(page, 'tournaments');
    await photograph(page, 'tournaments');
    await fitsPhone(page, 'the tournaments page');
  },

  async a_tournament_made_on_the_page_is_played_and_its_page_matches_the_api({ page, url, browser, shot }) {
    await open(page, url);
    const host = uniqueName('host');
    await register(page, host);
    const others = await Promise.all([accountWithToken(page, uniqueName('rrb'), 'bot'), accountWithToken(page, uniqueName('rrc'), 'human')]);
    // A round robin of three (so one bye a round) of Nimrod on piles 2 and
    // 3, starting 21 s after it is made: time to enter, and to see the countdown.
    await page.click('#tournaments-link');
    await page.waitForSelector('#event-form');
    const name = `RR ${uniqueName('n')}`;
    await page.fill('#event-name', name);
    await page.selectOption('#event-game', 'nimrod');
    await page.selectOption('#event-format', 'round-robin');
    assert.equal(await page.textContent('label[for=event-length]'), 'Cycles');
    await page.fill('#event-options input[name=pile_a]', '2');
    await page.fill('#event-options input[name=pile_b]', '3');
    await page.fill('#event-start', '0.35');
    await page.click('#event-submit');
    await page.waitForSelector('#event[data-loaded="yes"]');
    const id = decodeURIComponent(page.url().split('#/tournament/')[1]);
    assert.match(await page.textContent('#countdown'), /^Starts in 0:[0-2]\d$/);
    await page.click('#event-join');
    await page.waitForSelector(`#entrants li[data-name="${host}"]`);
    for (const p of others) {
      const [status, body] = await apiAs(page, p.token, 'POST', `/api/tournaments/${id}/join`);
      assert.equal(status, 200, JSON.stringify(body));
    }
    // The others play over WebSockets of their own, in a page with no session.
    const botContext = await browser.newContext();
    const botPage = await botContext.newPage();
    await botPage.goto(url);
    const played = playTournament(botPage, others, id);
    // The page follows the entries and the start without a reload.
    await page.waitForFunction(() => document.querySelectorAll('#entrants li').length === 3);
    await page.waitForSelector('#event[data-status="running"]', { timeout: 45_000 });
    // The host plays their two games from the round's card.
    const mine = [];
    for (let game = 0; game < 2; game++) {
      const card = '.notice.event-game:has(.play-game)';
      await page.waitForSelector(card, { timeout: 45_000 });
      const seat = Number(await page.getAttribute(card, 'data-seat'));
      const room = await page.getAttribute(card, 'data-room');
      assert.equal(await page.getAttribute(card, 'data-tournament'), id);
      // The card names the event once it has asked for its name.
      await page.waitForFunction(n => document.querySelector('.notice.event-game .event-label')?.textContent === n, name);
      assert.match(await page.textContent(card), new RegExp(`Round \\d of ${name}: you play (${others.map(o => o.name).join('|')}), seat ${seat}`));
      if (game === 0) await shot('tournament-game-card');
      await page.click(`${card} .play-game`);
      await page.waitForURL(u => u.hash === `#/room/${room}`);
      await page.waitForSelector(`#seats .seat.me`);
      assert.equal(await mySeat(page), seat);
      while (await ourTurn(page)) {
        const legal = await page.$$('button.move.legal');
        await andWait(page, () => legal[legal.length - 1].click());
      }
      mine.push(room);
      // Back on the event's page, the game's result shows without a reload.
      await page.evaluate(id => { location.hash = `#/tournament/${id}`; }, id);
      await page.waitForSelector(`#rounds li.game[data-room="${room}"]:not([data-result="playing"]) .replay-link`);
    }
    const { games, errors } = await played;
    await botContext.close();
    assert.deepEqual(errors, []);
    assert.deepEqual(games, [2, 2], 'each of the others was seated twice');
    await page.waitForSelector('#event[data-status="finished"]', { timeout: 30_000 });
    const e = await getJson(page, `/api/tournaments/${id}`);
    assert.equal(e.status, 'finished');
    // Standings: the API's, in its order, with the tie-break named.
    const rows = await page.$$eval('#standings tbody tr', trs => trs.map(tr => ({
      name: tr.dataset.name, points: Number(tr.dataset.points), tiebreak: Number(tr.dataset.tiebreak), games: Number(tr.dataset.games),
      shown: [tr.children[0].textContent, tr.querySelector('.points').textContent, tr.querySelector('.tiebreak').textContent, tr.children[4].textContent],
    })));
    assert.deepEqual(rows.map(({ shown, ...r }) => r), e.standings);
    rows.forEach((r, i) => assert.deepEqual(r.shown, [String(i + 1), halves(r.points), halves(r.tiebreak), String(r.games)]));
    assert.equal(await page.textContent('#standings thead abbr'), 'SB');
    assert.match(await page.textContent('#tiebreak'), /Sonneborn-Berger tie-break/);
    // The crosstable: each row's score against each column, linked to the game.
    const cross = await page.$$eval('#crosstable tbody tr', trs => trs.map(tr => [tr.dataset.name,
      [...tr.querySelectorAll('td')].map(td => [td.textContent, [...td.querySelectorAll('a')].map(a => a.getAttribute('href'))])]));
    const names = e.standings.map(s => s.name);
    assert.deepEqual(cross, names.map(a => [a, names.map(b => {
      if (a === b) return ['—', []];
      const g = e.rounds.flat().find(x => x.seats.includes(a) && x.seats.includes(b));
      const seat = g.seats.indexOf(a);
      const x = !g.result.winners.length ? '½' : g.result.winners.includes(seat) ? '1' : '0';
      return [x, [`#/replay/${g.room}`]];
    })]));
    // And a hand count of the results: a win is a point, a draw half.
    const count = Object.fromEntries(e.players.map(p => [p.name, 0]));
    for (const round of e.rounds) {
      for (const g of round) {
        if (!g.result.winners.length) g.seats.forEach(n => { count[n] += 0.5; });
        else g.result.winners.forEach(w => { count[g.seats[w]] += 1; });
      }
    }
    assert.deepEqual(Object.fromEntries(rows.map(r => [r.name, r.points])), count);
    // Rounds: every game with its replay, every bye.
    assert.equal(e.rounds.length, 3);
    const shownRounds = await page.$$eval('#rounds .round', els => els.map(el => ({
      round: Number(el.dataset.round),
      games: [...el.querySelectorAll('li.game')].map(li => [li.dataset.room, li.dataset.result, li.querySelector('a.replay-link')?.getAttribute('href')]),
      bye: el.querySelector('.bye')?.dataset.bye ?? null,
    })));
    const results = g => (g.result.winners.length ? (g.result.winners[0] === 0 ? '1–0' : '0–1') : '½–½');
    assert.deepEqual(shownRounds, e.rounds.map((round, i) => ({
      round: i + 1,
      games: round.map(g => [g.room, results(g), `#/replay/${g.room}`]),
      bye: e.byes[i],
    })).reverse());
    assert.deepEqual(e.byes.slice().sort(), e.players.map(p => p.name).sort(), 'each player had one bye');
    for (const room of mine) assert.ok(e.rounds.flat().some(g => g.room === room));
    // The seed, revealed: its SHA-256 is the commitment published at the start.
    assert.equal(await page.textContent('#event-seed'), e.seed);
    assert.equal(createHash('sha256').update(Buffer.from(e.seed, 'hex')).digest('hex'), e.commitment);
    assert.equal(await page.$('#countdown:not([hidden])'), null);
    await axe(page, 'tournament-finished');
    await photograph(page, 'tournament-finished');
    await fitsPhone(page, 'the finished event page');
    // The list has it under Finished; a game's link opens its replay.
    await page.click('#tournaments-link');
    await page.waitForSelector(`#events-finished li[data-id="${id}"]`);
    await page.click(`#events-finished li[data-id="${id}"] .event-name`);
    await page.waitForSelector('#event[data-status="finished"] .replay-link');
    await page.click(`#rounds li.game[data-room="${mine[0]}"] .replay-link`);
    await page.waitForSelector('#step');
    assert.ok(page.url().endsWith(`#/replay/${mine[0]}`));
  },

  async a_running_arenas_page_shows_waves_waiting_players_and_watch_and_play_links({ page, url, shot }) {
    await open(page, url);
    const me = uniqueName('arena');
    await register(page, me);
    // A running arena in states a live one passes through too fast to
    // catch: a game being watched, one of ours to play, a wave's player
    // left waiting, a withdrawn player. The page is the server's shape
    // (TournamentInfo), answered for an id no event has.
    const id = 'feedc0ffee00';
    const now = Date.now();
    const info = {
      id, name: 'Evening arena', created_by: me, game: 'nimrod', format: 'arena', status: 'running', minutes: 30,
      options: { piles: { random: { min: 1, max: 15 } } }, clock: { increment: { main_ms: 180000, increment_ms: 2000 } }, rated: true, duplicate: false,
      kind: 'any', starts_at_ms: now - 5 * 60000, max_players: 16, commitment: 'ab'.repeat(32),
      players: [{ name: me, rating: 1500 }, { name: 'ann', rating: 1600 }, { name: 'ben', rating: 1550 }, { name: 'cal', rating: 1500 },
        { name: 'dee', rating: 1400, withdrawn: true }],
      rounds: [
        [{ room: 'aaaaaaaaaaa1', seats: ['ann', 'ben'], result: { winners: [0], end: 'time' } }, { room: 'aaaaaaaaaaa2', seats: [me, 'cal'], result: { winners: [], end: 'rules' } },
          { room: null, seats: ['dee', 'ann'], result: { winners: [1], end: 'forfeit' } }],
        [{ room: 'aaaaaaaaaaa3', seats: ['ann', 'cal'], result: null }, { room: 'aaaaaaaaaaa4', seats: ['ben', me], result: null }],
      ],
      byes: [null, null], waiting: [[], ['dee']],
      standings: [{ name: 'ann', points: 4, tiebreak: 1, games: 2 }, { name: me, points: 1, tiebreak: 1, games: 1 },
        { name: 'cal', points: 1, tiebreak: 1, games: 1 }, { name: 'ben', points: 0, tiebreak: 4, games: 1 }, { name: 'dee', points: 0, tiebreak: 4, games: 1 }],
      tiebreak: 'buchholz',
    };
    let asked = 0;
    await page.route(u => u.pathname === `/api/tournaments/${id}`, route => {
      asked++;
      return route.fulfill({ status: 200, contentType: 'application/json', body: JSON.stringify(info) });
    });
    await page.evaluate(id => { location.hash = `#/tournament/${id}`; }, id);
    await page.waitForSelector('#event[data-status="running"]');
    assert.equal(await page.textContent('#event-status'), 'Running: 2 waves paired');
    assert.match(await page.textContent('#countdown'), /^Ends in 2[45]:\d\d$/);
    assert.equal(await page.textContent('#event-format-text'), 'Arena, 30 min');
    assert.equal(await page.textContent('#event-options-text'), 'piles random (min 1, max 15)');
    assert.equal(await page.$('#crosstable'), null, 'a crosstable is for round robins');
    assert.match(await page.textContent('#tiebreak'), /a win 2, a draw 1, doubled.*Buchholz tie-break \(Buch\)/);
    assert.match(await page.textContent('#standings tr[data-name="dee"]'), /withdrawn/);
    // Latest wave first: a game to watch, ours to play, and dee left waiting.
    assert.deepEqual(await page.$$eval('#rounds .round', els => els.map(el => [el.dataset.round, el.querySelector('h4').textContent])), [['2', 'Wave 2'], ['1', 'Wave 1']]);
    assert.equal(await page.getAttribute('#rounds li.game[data-room="aaaaaaaaaaa3"] a.watch-link', 'href'), '#/room/aaaaaaaaaaa3/watch');
    assert.equal(await page.textContent('#rounds li.game[data-room="aaaaaaaaaaa3"] .result'), 'playing');
    assert.ok(await page.$('#rounds li.game[data-room="aaaaaaaaaaa4"] button.play-link'));
    assert.match(await page.textContent('.round[data-round="2"] .waiting-list'), /Left waiting for a partner: dee/);
    assert.equal(await page.$('.round[data-round="2"] .bye'), null);
    assert.deepEqual(await page.$$eval('.round[data-round="1"] li.game', lis => lis.map(li => [li.dataset.result, li.querySelector('a.replay-link')?.getAttribute('href') ?? li.lastChild.textContent])),
      [['1–0', '#/replay/aaaaaaaaaaa1'], ['½–½', '#/replay/aaaaaaaaaaa2'], ['0–1', 'forfeited, not played']]);
    // How each ended, where it was not played out.
    assert.equal(await page.textContent('#rounds li.game[data-room="aaaaaaaaaaa1"] .end'), 'ben lost on time');
    assert.equal(await page.$('#rounds li.game[data-room="aaaaaaaaaaa2"] .end'), null);
    assert.equal(await page.textContent('.round[data-round="1"] li.game:nth-child(3) .end'), 'forfeit: dee had left');
    assert.equal(await page.textContent('#event-leave'), 'Withdraw');
    await axe(page, 'tournament-running-arena');
    await shot('tournament-running-arena', { fullPage: true });
    // Play takes the seat; the server knows no such room, and says so.
    await page.click('#rounds li.game[data-room="aaaaaaaaaaa4"] button.play-link');
    await page.waitForSelector('#event-error:not(:empty)');
    assert.ok(page.url().endsWith(`#/tournament/${id}`));
    // Asked again every couple of seconds while it runs; not once the page is left.
    const before = asked;
    await page.waitForTimeout(4500);
    assert.ok(asked >= before + 2, `asked ${asked - before} times in 4.5 s`);
    await page.click('.brand');
    await page.waitForSelector('#quick-nimrod');
    const left = asked;
    await page.waitForTimeout(4500);
    assert.equal(asked, left, 'no asking once the page is left');
  },
};
