// The app: one connection, screens (lobby, room, replay, account pages,
// players, leaderboards, tournaments, bot ladders, your games) chosen by
// the URL's hash, so that a reload or a shared link lands in the same place.
//
// The lobby's modules load with this one; the other screens' (the tables,
// the replay, players' pages) are imported when first shown, and fetched
// in the background once the first screen is drawn. Fetching every module
// before the first paint made it wait on a busy machine (issue 28).

import { Conn, clientSeed } from './net.js';
import { h, put } from './dom.js';
import { showLobby } from './lobby.js';
import { showLogin, showRegister } from './account.js';
import { showMyGames } from './mygames.js';
import { setupHeader } from './header.js';
import { setupSeeks } from './seek.js';
import { setupChallenges } from './challenges.js';
import { setupTurns } from './mygames.js';

const app = {
  conn: new Conn(),
  /** room id -> our seat there (from `joined`, also after a resume). */
  seats: new Map(),
  /** room id -> {update, at}: the latest update and when it arrived. */
  latest: new Map(),
  /** Rooms this connection watches. */
  watching: new Set(),
  /** room id -> (message id -> line): the chat read there (`said`, `chat_history`). */
  chat: new Map(),
  main: document.getElementById('app'),
  /** Where seeks waiting and challenges show, whatever the screen. */
  notices: document.getElementById('notices'),
  /** Called when the screen is left, to drop its listeners and timers. */
  leaveScreen: null,
};

app.conn.on('joined', m => {
  app.seats.set(m.room, m.seat);
  // Seated now, not watching: leaving the screen must not `leave` (resign).
  app.watching.delete(m.room);
  // A seat taken for us (a seek matched, a challenge accepted, a rematch,
  // a tournament's or the ladder's game) waits for our seed, sent now that
  // `joined` has shown the room's commitment: the deal then depends on us
  // too, and the server could not have chosen its seed around ours.
  if (m.seed_wanted) app.conn.send({ type: 'seed', room: m.room, client_seed: clientSeed() });
});
/** Keeps a chat line for the room's panel, once per message id. */
const keepChat = (room, line) => {
  if (!app.chat.has(room)) app.chat.set(room, new Map());
  app.chat.get(room).set(line.id, line);
};
app.conn.on('said', m => keepChat(m.room, m));
app.conn.on('chat_history', m => { for (const line of m.lines || []) keepChat(m.room, line); });
app.conn.on('left', m => { app.seats.delete(m.room); app.watching.delete(m.room); });
app.conn.on('spectating', m => app.watching.add(m.room));
app.conn.on('status', m => { if (!m.up) app.watching.clear(); });
app.conn.on('update', m => app.latest.set(m.room, { update: m, at: performance.now() }));
app.conn.on('presence', m => {
  const seen = app.latest.get(m.room);
  const seat = seen && seen.update.seats.find(x => x.seat === m.seat);
  if (seat) seat.connected = m.connected;
});
// A new tab stays where its address says (the header counts the turns).
app.conn.on('resumed', m => { for (const { room, seat } of m.seats) app.seats.set(room, seat); });

const status = document.getElementById('conn');
app.conn.on('status', m => {
  status.textContent = m.up ? 'connected' : m.taken ? 'in use elsewhere' : 'reconnecting…';
  status.dataset.up = m.up ? 'yes' : 'no';
  if (m.taken) import('./tabs.js').then(t => t.showTaken(app), () => {});
});

app.conn.on('rematch_started', m => {
  app.seats.set(m.next, m.seat);
  location.hash = `#/room/${m.next}`;
});

setupTurns(app);
setupHeader(app);
app.seek = setupSeeks(app);
app.challenge = setupChallenges(app);

// Screens offer different things to guests and accounts: draw the current
// one again when the connection's account changes (a login, a logout).
let accountShown = null;
app.conn.on('welcome', m => {
  const name = m.account ? m.account.name : null;
  if (name === accountShown) return;
  accountShown = name;
  if (!location.hash.startsWith('#/room/')) route();
});

/** The screens loaded when first shown: how to get each one's function. */
const LATER = {
  room: () => import('./room.js').then(m => m.showRoom),
  replay: () => import('./replay.js').then(m => m.showReplay),
  tokens: () => import('./tokens.js').then(m => m.showTokens),
  player: () => import('./player.js').then(m => m.showPlayer),
  leaderboard: () => import('./leaderboard.js').then(m => m.showLeaderboard),
  tournaments: () => import('./tournaments.js').then(m => m.showTournaments),
  tournament: () => import('./tournament.js').then(m => m.showTournament),
  ladder: () => import('./ladder.js').then(m => m.showLadder),
  mod: () => import('./modpage.js').then(m => m.showModPage),
  // Not a screen: the card a tournament's round shows, whatever the screen.
  eventGame: () => import('./eventnotice.js').then(m => m.showEventGame),
};

// A round of a tournament seated this account: say so on any screen.
app.conn.on('tournament_game', m => {
  LATER.eventGame().then(show => show(app, m), () => {});
});

/**
 * Screens few people open (the moderators', the API tokens'), the
 * replay (opened from a finished game, which has time to fetch it) and
 * the tournament round's card (fetched when a round seats us): loaded
 * when needed, never prefetched, so that everyone's first load stays
 * light (the page-weight budget).
 */
const ON_DEMAND = new Set(['mod', 'tokens', 'eventGame', 'replay']);

/** How long after the first screen the other screens' modules are fetched, at the latest. */
const PREFETCH_WITHIN_MS = 2000;

/** Counts routings, so that a screen whose module arrives too late is not shown. */
let routed = 0;

/** `show` for the screen a later-loaded module draws, once it is loaded. */
async function later(name, show) {
  const n = routed;
  put(app.main, h('p', {}, 'Loading…'));
  let screen;
  try {
    screen = await LATER[name]();
  } catch {
    if (n === routed) put(app.main, h('p', { class: 'refusal', role: 'alert' }, 'This screen could not be loaded: check the connection and reload the page.'));
    return;
  }
  if (n !== routed) return;
  app.leaveScreen = show(screen);
  app.main.focus({ preventScroll: true });
}

function route() {
  routed++;
  if (app.leaveScreen) { app.leaveScreen(); app.leaveScreen = null; }
  const [path, query = ''] = location.hash.replace(/^#\/?/, '').split('?');
  const parts = path.split('/');
  if (parts[0] === 'room' && parts[1]) later('room', show => show(app, parts[1], parts[2] === 'watch'));
  else if (parts[0] === 'replay' && parts[1]) later('replay', show => show(app, parts[1]));
  else if (parts[0] === 'tokens') later('tokens', show => show(app));
  else if (parts[0] === 'player' && parts[1]) later('player', show => show(app, decodeURIComponent(parts[1])));
  else if (parts[0] === 'tournaments') later('tournaments', show => show(app));
  else if (parts[0] === 'tournament' && parts[1]) later('tournament', show => show(app, decodeURIComponent(parts[1])));
  else if (parts[0] === 'mod') later('mod', show => show(app, parts[1] || ''));
  else if (parts[0] === 'ladder') later('ladder', show => show(app, decodeURIComponent(parts[1] || '')));
  else if (parts[0] === 'leaderboard') {
    const kind = new URLSearchParams(query).get('kind');
    later('leaderboard', show => show(app, parts[1] || 'nimrod', kind === 'human' || kind === 'bot' ? kind : ''));
  }
  else {
    if (parts[0] === 'login') app.leaveScreen = showLogin(app);
    else if (parts[0] === 'register') app.leaveScreen = showRegister(app);
    else if (parts[0] === 'games') app.leaveScreen = showMyGames(app);
    else app.leaveScreen = showLobby(app);
    app.main.focus({ preventScroll: true });
  }
}

window.addEventListener('hashchange', route);
app.conn.connect();
route();
// The other screens, fetched while the player reads the first one
// (data-prefetched on <html> says when: the speed test weighs them all).
const prefetch = () => Promise.allSettled(Object.entries(LATER).filter(([name]) => !ON_DEMAND.has(name)).map(([, load]) => load()))
  .then(() => { document.documentElement.dataset.prefetched = 'yes'; });
if ('requestIdleCallback' in window) requestIdleCallback(prefetch, { timeout: PREFETCH_WITHIN_MS });
else setTimeout(prefetch, 0);
