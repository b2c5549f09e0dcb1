// The app: one connection, screens (lobby, room, replay, account pages,
// players, your games) chosen by the URL's hash, so that a reload or a
// shared link lands in the same place.

import { Conn } from './net.js';
import { showLobby } from './lobby.js';
import { showRoom } from './room.js';
import { showReplay } from './replay.js';
import { showLogin, showRegister } from './account.js';
import { showTokens } from './tokens.js';
import { showPlayer } from './player.js';
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
  main: document.getElementById('app'),
  /** Where seeks waiting and challenges show, whatever the screen. */
  notices: document.getElementById('notices'),
  /** Called when the screen is left, to drop its listeners and timers. */
  leaveScreen: null,
};

app.conn.on('joined', m => app.seats.set(m.room, m.seat));
app.conn.on('left', m => { app.seats.delete(m.room); app.watching.delete(m.room); });
app.conn.on('spectating', m => app.watching.add(m.room));
app.conn.on('status', m => { if (!m.up) app.watching.clear(); });
app.conn.on('update', m => app.latest.set(m.room, { update: m, at: performance.now() }));
app.conn.on('presence', m => {
  const seen = app.latest.get(m.room);
  const seat = seen && seen.update.seats.find(x => x.seat === m.seat);
  if (seat) seat.connected = m.connected;
});
app.conn.on('resumed', m => {
  for (const { room, seat } of m.seats) app.seats.set(room, seat);
  // Back in a match after a reload: go to it if the page was not on one.
  if (m.seats.length && !location.hash.startsWith('#/room/')) {
    location.hash = `#/room/${m.seats[0].room}`;
  }
});

const status = document.getElementById('conn');
app.conn.on('status', m => {
  status.textContent = m.up ? 'connected' : 'reconnecting…';
  status.dataset.up = m.up ? 'yes' : 'no';
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

function route() {
  if (app.leaveScreen) { app.leaveScreen(); app.leaveScreen = null; }
  const parts = location.hash.replace(/^#\/?/, '').split('/');
  if (parts[0] === 'room' && parts[1]) app.leaveScreen = showRoom(app, parts[1], parts[2] === 'watch');
  else if (parts[0] === 'replay' && parts[1]) app.leaveScreen = showReplay(app, parts[1]);
  else if (parts[0] === 'login') app.leaveScreen = showLogin(app);
  else if (parts[0] === 'register') app.leaveScreen = showRegister(app);
  else if (parts[0] === 'tokens') app.leaveScreen = showTokens(app);
  else if (parts[0] === 'games') app.leaveScreen = showMyGames(app);
  else if (parts[0] === 'player' && parts[1]) app.leaveScreen = showPlayer(app, decodeURIComponent(parts[1]));
  else app.leaveScreen = showLobby(app);
  app.main.focus({ preventScroll: true });
}

window.addEventListener('hashchange', route);
app.conn.connect();
route();
