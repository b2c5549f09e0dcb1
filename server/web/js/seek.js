// Play someone: a seek per game (from the lobby's cards), a waiting
// indicator with the time waited and Cancel in the notices area, and the
// room opened on `matched`. A seek ends with its connection.

import { h } from './dom.js';
import { clientSeed } from './net.js';
import { gameInfo } from './games.js';
import { CLOCKS, clockOf, clockText } from './clocks.js';

/** How often the time waited is redrawn. */
const WAIT_TICK_MS = 1000;

function waited(ms) {
  const t = Math.floor(ms / 1000);
  return `${Math.floor(t / 60)}:${String(t % 60).padStart(2, '0')}`;
}

export function setupSeeks(app) {
  const conn = app.conn;
  const box = h('div', { id: 'seeks', class: 'seeks' });
  app.notices.append(box);
  /** seek id -> {m, asked, since, el} */
  const seeks = new Map();
  const lost = h('p', { class: 'notice refusal', role: 'alert', id: 'seek-lost' });

  const tick = () => {
    for (const s of seeks.values()) {
      const el = s.el.querySelector('.waited');
      if (el) el.textContent = waited(performance.now() - s.since);
    }
  };
  setInterval(tick, WAIT_TICK_MS);

  /** Seeks already over (matched or ended), should that news come first. */
  const over = new Set();
  const end = id => {
    over.add(id);
    const s = seeks.get(id);
    if (s) { s.el.remove(); seeks.delete(id); }
  };

  const add = (m, asked) => {
    if (over.has(m.seek)) return;
    // A rated seek without a clock gets the game's rated default clock.
    const clock = asked.clock ? clockText(asked.clock) : asked.rated ? 'the rated clock' : clockText(null);
    const bits = [`${m.seats || asked.seats} players`, clock, asked.rated ? 'rated' : 'casual'];
    const el = h('div', { class: 'notice seeking', dataset: { seek: m.seek, game: m.game } },
      h('span', { class: 'spinner', 'aria-hidden': 'true' }),
      h('span', {}, `Looking for a ${gameInfo(m.game).title} opponent (${bits.join(', ')})… `),
      // Not read out every second (the notices area is a live region).
      h('span', { class: 'waited', 'aria-live': 'off' }, '0:00'),
      h('button', {
        class: 'cancel-seek', 'aria-label': `Cancel the ${gameInfo(m.game).title} seek`,
        onclick: () => conn.send({ type: 'cancel_seek', seek: m.seek }),
      }, 'Cancel'));
    seeks.set(m.seek, { m, asked, since: performance.now(), el });
    box.append(el);
  };

  conn.on('seek_ended', m => {
    end(m.seek);
    if (m.reason === 'lost') {
      lost.textContent = 'The server that held your seek went away: seek again.';
      box.append(lost);
    }
  });
  conn.on('matched', m => {
    end(m.seek);
    app.seats.set(m.room, m.seat);
    location.hash = `#/room/${m.room}`;
  });
  conn.on('status', m => {
    if (m.up) return;
    // The server forgets a connection's seeks when it closes.
    const had = seeks.size > 0;
    for (const id of [...seeks.keys()]) end(id);
    // A new connection's seeks are numbered afresh.
    over.clear();
    if (!had) return;
    lost.textContent = 'The connection dropped, which ended your seek: seek again.';
    box.append(lost);
  });

  /** Sends a seek; resolves on `seeking`, rejects with the server's error. */
  return async function seek(msg) {
    lost.remove();
    const m = await conn.ask({ type: 'seek', ...msg, client_seed: clientSeed() }, x => x.type === 'seeking' && x.game === msg.game,
      ['seek/', 'room/', 'auth/', 'request/', 'server/busy', 'server/storage', 'server/unreachable']);
    add(m, msg);
    return m;
  };
}

/** The "Play someone" part of a game's card in the lobby. */
export function seekForm(app, game) {
  const g = gameInfo(game);
  const account = app.conn.account;
  const id = `seek-${game}`;
  const seats = h('select', { name: 'seats', id: `${id}-seats` },
    Array.from({ length: g.seats[1] - g.seats[0] + 1 }, (_, i) => g.seats[0] + i)
      .map(n => h('option', { value: n }, `${n} players`)));
  const clock = h('select', { name: 'clock', id: `${id}-clock` },
    CLOCKS.map(c => h('option', { value: c.value, disabled: c.account && !account },
      c.account && !account ? `${c.label} (accounts only)` : c.label)));
  const rated = h('input', { type: 'checkbox', name: 'rated', id: `${id}-rated`, disabled: !account });
  const say = h('p', { class: 'form-error refusal', role: 'alert' });
  const form = h('form', { class: 'seek-form', id: `${id}-form`, 'aria-label': `Play ${g.title} with someone` },
    h('div', { class: 'row' },
      g.seats[0] === g.seats[1] ? null : [h('label', { for: seats.id, class: 'sr-only' }, 'Players'), seats],
      h('label', { for: clock.id }, 'Clock'), clock,
      h('label', { for: rated.id, title: account ? '' : 'rated games need an account' }, rated, account ? ' rated' : ' rated (accounts only)')),
    say,
    h('button', { type: 'submit', class: 'primary', id }, 'Find an opponent'));
  form.addEventListener('submit', async e => {
    e.preventDefault();
    say.textContent = '';
    const msg = { game, seats: Number(seats.value), rated: rated.checked };
    const c = clockOf(clock.value);
    if (c) msg.clock = c;
    try {
      await app.seek(msg);
    } catch (err) {
      say.textContent = err.message;
      say.dataset.code = err.code;
    }
  });
  return h('details', { class: 'play-someone' },
    h('summary', { id: `${id}-open` }, 'Play someone'), form);
}

