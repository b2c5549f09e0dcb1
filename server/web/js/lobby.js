// The lobby: quick play, a form to create a room with options, and the
// list of rooms (filtered by game and status) to join, watch or replay;
// for an account, the players it follows (following.js, loaded then).

import { h, put } from './dom.js';
import { clientSeed } from './net.js';
import { GAMES, gameInfo, seatName } from './games.js';
import { seekForm } from './seek.js';
import { optionFields, readOptions } from './lib/options.js';

/** How often the open lobby refreshes its room list. */
const LIST_REFRESH_MS = 4000;

/** Creates a room, sits in seat 0 unless `watch`, fills the other seats. */
async function startRoom(app, { game, seats, options, clock, private: priv, opponents, watch }) {
  const conn = app.conn;
  const msg = { type: 'create_room', game, seats };
  if (options) msg.options = options;
  if (clock) msg.clock = clock;
  if (priv) msg.private = true;
  const { room } = await conn.ask(msg, m => m.type === 'room_created');
  const first = watch ? 0 : 1;
  if (watch) {
    // Watch from before the start: a spectator who arrives while bots
    // are mid-match is only sent the room's state when they pause.
    await conn.ask({ type: 'spectate', room }, m => m.type === 'spectating' && m.room === room);
    app.watching.add(room);
  } else {
    await conn.ask({ type: 'join', room, seat: 0, client_seed: clientSeed() },
      m => m.type === 'joined' && m.room === room);
  }
  for (let seat = first; seat < seats; seat++) {
    const who = opponents[seat - first];
    if (who && who !== 'person') {
      await conn.ask({ type: 'add_bot', room, seat, strategy: who },
        m => m.type === 'bot_added' && m.room === room);
    }
  }
  location.hash = watch ? `#/room/${room}/watch` : `#/room/${room}`;
}

function createForm(app, say) {
  const form = h('form', { class: 'create', 'aria-label': 'Create a room' });
  const gameSel = h('select', { name: 'game', id: 'create-game' },
    Object.entries(GAMES).map(([k, g]) => h('option', { value: k }, g.title)));
  const seatsSel = h('select', { name: 'seats', id: 'create-seats', 'aria-label': 'Players' });
  const optionsBox = h('div', { class: 'options' });
  const opponentsBox = h('div', { class: 'opponents' });
  const clockInput = h('input', { name: 'clock', type: 'number', min: 1, placeholder: 'none', id: 'create-clock' });

  const redraw = () => {
    const g = gameInfo(gameSel.value);
    const wanted = Number(seatsSel.value) || g.seats[0];
    put(seatsSel, Array.from({ length: g.seats[1] - g.seats[0] + 1 }, (_, i) => g.seats[0] + i)
      .map(n => h('option', { value: n, selected: n === wanted }, `${n} players`)));
    put(optionsBox, optionFields(gameSel.value));
    const seats = Number(seatsSel.value);
    put(opponentsBox, Array.from({ length: seats - 1 }, (_, i) =>
      h('label', {}, `Seat ${i + 1}: `, h('select', { name: `opp${i}`, class: 'opp' },
        g.bots.map(b => h('option', { value: b }, `bot: ${b}`)),
        h('option', { value: 'person' }, 'a person (invite)')))));
  };
  gameSel.addEventListener('change', () => { seatsSel.value = ''; redraw(); });
  seatsSel.addEventListener('change', redraw);
  redraw();

  form.addEventListener('submit', async e => {
    e.preventDefault();
    const game = gameSel.value;
    const seats = Number(seatsSel.value);
    const opponents = [...form.querySelectorAll('select.opp')].map(s => s.value);
    const secs = Number(clockInput.value);
    try {
      await startRoom(app, {
        game, seats, opponents,
        options: readOptions(game, form),
        clock: secs > 0 ? { per_move: { ms: Math.round(secs * 1000) } } : null,
        private: form.elements.private.checked,
      });
    } catch (err) {
      say(err.message || String(err));
    }
  });

  return put(form,
    h('h2', {}, 'New game'),
    h('div', { class: 'row' }, h('label', { for: 'create-game' }, 'Game '), gameSel, seatsSel),
    optionsBox, opponentsBox,
    h('div', { class: 'row' },
      h('label', { for: 'create-clock' }, 'Seconds per move '), clockInput,
      h('label', {}, h('input', { type: 'checkbox', name: 'private' }), ' private')),
    h('button', { type: 'submit', class: 'primary', id: 'create-submit' }, 'Create and sit down'));
}

function roomRow(app, r) {
  const g = gameInfo(r.game);
  const free = r.seats.some(s => s.kind === 'empty');
  const mine = app.seats.has(r.room);
  const actions = [];
  if (mine) actions.push(h('a', { href: `#/room/${r.room}`, class: 'button' }, 'Back to it'));
  else if (r.status === 'waiting' && free) {
    actions.push(h('button', {
      onclick: async () => {
        try {
          await app.conn.ask({ type: 'join', room: r.room, client_seed: clientSeed() },
            m => m.type === 'joined' && m.room === r.room);
          location.hash = `#/room/${r.room}`;
        } catch (err) { alert(err.message); }
      },
    }, 'Join'));
  }
  actions.push(h('a', { href: `#/room/${r.room}/watch`, class: 'button' }, 'Watch'));
  if (r.status === 'finished') actions.push(h('a', { href: `#/replay/${r.room}`, class: 'button' }, 'Replay'));
  return h('li', { class: `room ${r.status}`, dataset: { room: r.room, game: r.game, status: r.status } },
    h('span', { class: 'game' }, g.title),
    h('span', { class: 'status' }, r.status),
    h('span', { class: 'players' }, r.seats.map(seatName).join(' · ')),
    r.spectators ? h('span', { class: 'watchers' }, `${r.spectators} watching`) : null,
    h('span', { class: 'actions' }, actions));
}

export function showLobby(app) {
  const msgBox = h('p', { class: 'refusal', role: 'alert' });
  const say = text => { msgBox.textContent = text; };
  const list = h('ul', { class: 'rooms', id: 'room-list', 'aria-live': 'polite' });
  const gameFilter = h('select', { id: 'filter-game', 'aria-label': 'Game' },
    h('option', { value: '' }, 'all games'),
    Object.entries(GAMES).map(([k, g]) => h('option', { value: k }, g.title)));
  const statusFilter = h('select', { id: 'filter-status', 'aria-label': 'Status' },
    h('option', { value: '' }, 'any status'),
    ['waiting', 'playing', 'finished'].map(st => h('option', { value: st }, st)));

  const refresh = async () => {
    const msg = { type: 'list_rooms', limit: 100 };
    if (gameFilter.value) msg.game = gameFilter.value;
    if (statusFilter.value) msg.status = statusFilter.value;
    try {
      const reply = await app.conn.ask(msg, m => m.type === 'rooms', ['request/', 'server/busy', 'server/reply_too_large']);
      // Newest matches are the interesting ones; ids are random, so
      // order waiting rooms first, then playing, then finished.
      const order = { waiting: 0, playing: 1, finished: 2 };
      const rooms = reply.rooms.slice().sort((a, b) => order[a.status] - order[b.status]);
      put(list, rooms.length ? rooms.map(r => roomRow(app, r)) : h('li', { class: 'empty' }, 'No rooms yet.'));
    } catch (err) { say(err.message); }
  };
  gameFilter.addEventListener('change', refresh);
  statusFilter.addEventListener('change', refresh);

  const quick = Object.entries(GAMES).map(([k, g]) => h('div', { class: 'quick-game' },
    h('h3', {}, g.title), h('p', {}, g.blurb),
    h('button', {
      class: 'primary', id: `quick-${k}`,
      onclick: () => startRoom(app, { game: k, seats: g.seats[0], opponents: [g.bots[0]] }).catch(e => say(e.message)),
    }, `Play against a bot`),
    h('button', {
      id: `watch-bots-${k}`,
      onclick: () => startRoom(app, { game: k, seats: g.seats[0], opponents: Array(g.seats[0]).fill(g.watchBot || g.bots[0]), watch: true })
        .catch(e => say(e.message)),
    }, 'Watch bots play'),
    h('a', { href: `#/leaderboard/${k}`, id: `leaderboard-${k}`, class: 'board-link' }, `${g.title} leaderboard`),
    seekForm(app, k)));

  const following = app.conn.account ? h('section', { class: 'list following', id: 'following', 'aria-labelledby': 'following-title' },
    h('h2', { id: 'following-title' }, 'Following'), h('p', { class: 'hint' }, 'Loading…')) : null;
  let stopFollowing = null;
  let left = false;
  if (following) {
    import('./following.js').then(m => { if (!left) stopFollowing = m.showFollowing(app, following); },
      () => { following.lastChild.textContent = 'This panel could not be loaded: reload the page.'; });
  }

  put(app.main, following,
    h('section', { class: 'quick' }, h('h2', {}, 'Quick play'), h('div', { class: 'quick-grid' }, quick)),
    msgBox,
    createForm(app, say),
    h('section', { class: 'list' },
      h('h2', {}, 'Rooms'),
      h('div', { class: 'row' }, gameFilter, statusFilter, h('button', { onclick: refresh, id: 'refresh' }, 'Refresh')),
      list));
  // When the lobby is on the page, for the speed test (a first load's is the one that counts).
  performance.mark('lobby-drawn');
  refresh();
  const timer = setInterval(refresh, LIST_REFRESH_MS);
  return () => {
    left = true;
    clearInterval(timer);
    if (stopFollowing) stopFollowing();
  };
}
