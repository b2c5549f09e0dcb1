// The app: one connection, three screens (lobby, room, replay) chosen by
// the URL's hash, so that a reload or a shared link lands in the same place.

import { Conn, savedName, saveName } from './net.js';
import { showLobby } from './lobby.js';
import { showRoom } from './room.js';
import { showReplay } from './replay.js';

const app = {
  conn: new Conn(),
  /** room id -> our seat there (from `joined`, also after a resume). */
  seats: new Map(),
  /** room id -> {update, at}: the latest update and when it arrived. */
  latest: new Map(),
  /** Rooms this connection watches. */
  watching: new Set(),
  main: document.getElementById('app'),
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

const nameInput = document.getElementById('name');
nameInput.value = savedName();
nameInput.addEventListener('change', () => saveName(nameInput.value.trim()));

function route() {
  if (app.leaveScreen) { app.leaveScreen(); app.leaveScreen = null; }
  const parts = location.hash.replace(/^#\/?/, '').split('/');
  if (parts[0] === 'room' && parts[1]) app.leaveScreen = showRoom(app, parts[1], parts[2] === 'watch');
  else if (parts[0] === 'replay' && parts[1]) app.leaveScreen = showReplay(app, parts[1]);
  else app.leaveScreen = showLobby(app);
  app.main.focus({ preventScroll: true });
}

window.addEventListener('hashchange', route);
app.conn.connect();
route();
