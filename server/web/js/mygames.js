// "Your games": the account's unfinished rooms (`my_games`), with a
// your-turn badge each; the header's count of games waiting for us,
// kept by `games`, `your_turn` and updates; a beep on `your_turn`.

import { h, put } from './dom.js';
import { clientSeed } from './net.js';
import { gameInfo } from './games.js';
import { clockText } from './clocks.js';
import { beep } from './sound.js';

/** How often the open page asks again (deadlines and turns move). */
const GAMES_REFRESH_MS = 15000;

export function setupTurns(app) {
  const conn = app.conn;
  /** Rooms where it is this account's turn. */
  app.turns = new Set();
  const changed = () => conn.emit('turns', { type: 'turns', count: app.turns.size });

  conn.on('games', m => {
    app.games = m.games;
    app.turns = new Set(m.games.filter(g => g.your_turn).map(g => g.room));
    changed();
  });
  conn.on('your_turn', m => {
    app.turns.add(m.room);
    changed();
    // In view: a beep; in the background: a notification, if allowed.
    if (!document.hidden) beep();
    else import('./turnalerts.js').then(t => t.notifyTurn(app, m), () => {});
  });
  // A tab in the background sees no table's updates: count the turns again.
  document.addEventListener('visibilitychange', () => { if (!document.hidden && conn.ready && conn.account) conn.send({ type: 'my_games' }); });
  conn.on('update', u => {
    if (u.you === undefined) return;
    const ours = u.status === 'playing' && u.to_act.includes(u.you);
    if (ours === app.turns.has(u.room)) return;
    if (ours) app.turns.add(u.room); else app.turns.delete(u.room);
    changed();
  });
  conn.on('welcome', m => {
    app.games = [];
    app.turns.clear();
    changed();
    if (m.account) conn.send({ type: 'my_games' });
  });
}

function deadlineText(ms) {
  if (!ms) return '';
  const left = ms - Date.now();
  if (left <= 0) return 'time is up';
  const h_ = Math.floor(left / 3600000);
  if (h_ >= 48) return `${Math.floor(h_ / 24)} days left`;
  if (h_ >= 1) return `${h_} h left`;
  return `${Math.max(1, Math.ceil(left / 60000))} min left`;
}

async function open(app, g, say) {
  if (!app.seats.has(g.room)) {
    // The seat may be held by another of our connections: joining it at
    // that seat moves it here.
    try {
      await app.conn.ask({ type: 'join', room: g.room, seat: g.seat, client_seed: clientSeed() },
        m => m.type === 'joined' && m.room === g.room);
    } catch (err) {
      if (err.code !== 'room/already_seated') { say.textContent = err.message; return; }
    }
  }
  location.hash = `#/room/${g.room}`;
}

export function showMyGames(app) {
  const conn = app.conn;
  const say = h('p', { class: 'refusal', role: 'alert' });
  const list = h('ul', { class: 'rooms my-games', id: 'my-games', 'aria-live': 'polite' }, h('li', {}, 'Loading…'));
  const draw = m => {
    const games = m.games.slice().sort((a, b) => Number(b.your_turn) - Number(a.your_turn));
    put(list, games.length ? games.map(g => h('li', { class: 'room', dataset: { room: g.room, turn: g.your_turn ? 'yes' : 'no' } },
      h('span', { class: 'game' }, gameInfo(g.game).title),
      g.your_turn ? h('span', { class: 'badge turn-badge' }, 'your turn') : h('span', { class: 'status' }, g.status === 'waiting' ? 'waiting' : 'their turn'),
      h('span', { class: 'players' }, g.players.join(' · ')),
      h('span', { class: 'clock-text' }, [clockText(g.clock), g.deadline_ms ? ` · ${deadlineText(g.deadline_ms)}` : ''].join('')),
      g.rated ? h('span', { class: 'rated' }, 'rated') : null,
      h('span', { class: 'actions' }, h('button', { class: 'open-game', onclick: () => open(app, g, say) }, 'Open'))))
      : h('li', { class: 'empty' }, 'No games going. Find one from the lobby: "Play someone".'));
  };
  const ask = () => { if (conn.account) conn.send({ type: 'my_games' }); };
  const render = () => {
    if (!conn.account) {
      put(app.main, h('section', {}, h('h2', {}, 'Your games'),
        h('p', {}, h('a', { href: '#/login' }, 'Log in'), ' to see the games you have going (guests find theirs in the lobby).')));
      return;
    }
    const alerts = h('p', {});
    import('./turnalerts.js').then(t => alerts.replaceWith(t.alertsSwitch() || ''), () => {});
    put(app.main, h('section', { class: 'list my-games-screen' }, h('h2', {}, 'Your games'), alerts, say, list));
    ask();
  };
  const offs = [
    conn.on('games', draw),
    conn.on('error', e => { if (!e.room && e.code === 'auth/required') say.textContent = e.message; }),
  ];
  render();
  const timer = setInterval(ask, GAMES_REFRESH_MS);
  return () => { offs.forEach(off => off()); clearInterval(timer); };
}
