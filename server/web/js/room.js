// One room, played or watched: seats and clocks, the game's board, the
// refusal of the last move (in the server's words), and the result.

import { h, put } from './dom.js';
import { clientSeed, savedName } from './net.js';
import { gameInfo, seatName } from './games.js';
import { boardOf } from './boards.js';
import { waitingPanel } from './waiting.js';
import { play as sound } from './sound.js';
import { setYourTurn } from './title.js';
import { settle } from './motion.js';
import { frameAt } from './net.js';
import { changeText } from './ratingchange.js';

/** Paint times kept for the browser tests' speed figures (most recent last). */
const PAINTS_KEPT = 200;

/** How often running clocks are redrawn. */
const CLOCK_TICK_MS = 200;

/** "4:07"; "23 h 59 min", "2 d 4 h" for a day clock. */
export function clockText(ms) {
  const t = Math.max(0, Math.ceil(ms / 1000));
  if (t >= 86400) return `${Math.floor(t / 86400)} d ${Math.floor((t % 86400) / 3600)} h`;
  if (t >= 3600) return `${Math.floor(t / 3600)} h ${Math.floor((t % 3600) / 60)} min`;
  return `${Math.floor(t / 60)}:${String(t % 60).padStart(2, '0')}`;
}

/**
 * "lost on time" or "forfeit" when the last position shows no end by the
 * rules (the update gives no reason), else "".
 */
function lossWord(u, losers) {
  const v = u.view || {};
  const byRules = { nimrod: () => !v.piles[0] && !v.piles[1], rummikub: () => !v.bag || v.rack_sizes.includes(0),
    cribbage: () => v.scores.some(x => x >= v.target), mitsudomoe: () => v.end.reason !== 'forfeit' }[u.game];
  if (!byRules || byRules()) return '';
  return losers.some(x => u.clocks && u.clocks[x] <= 0) ? 'lost on time' : 'forfeit';
}

function resultText(u) {
  if (u.closed === 'aborted') return 'Aborted before a first move: the match does not count.';
  if (u.closed) return u.closed === 'abandoned' ? 'The room closed: everyone left.' : 'The room closed before the match started.';
  const o = u.outcome;
  if (!o) return '';
  if (o.result === 'draw') return 'Drawn.';
  const name = w => (w === u.you ? 'you' : seatName(u.seats[w]));
  const names = o.winners.map(name);
  const losers = u.seats.map(x => x.seat).filter(x => !o.winners.includes(x));
  const word = lossWord(u, losers);
  const why = word && ` (${losers.map(name).join(' and ')} ${word === 'forfeit' ? 'forfeited' : word})`;
  if (u.you !== undefined) return o.winners.includes(u.you) ? `You won${names.length > 1 ? ` (with ${names.filter(n => n !== 'you').join(', ')})` : ''}${why}!` : `You lost${word && (word === 'forfeit' ? ' by forfeit' : ' on time')}: ${names.join(' and ')} won.`;
  return `${names.join(' and ')} won${why}.`;
}

export function showRoom(app, room, watchOnly) {
  const conn = app.conn;
  const state = { sentSeq: null, ui: {} };
  const title = h('h2', {});
  const status = h('p', { class: 'status-line', id: 'status', 'aria-live': 'polite' });
  const seatsBox = h('ul', { class: 'seats', id: 'seats' });
  const board = h('div', { class: 'board', id: 'board' });
  const refusal = h('p', { class: 'refusal', id: 'refusal', role: 'alert' });
  const tools = h('div', { class: 'tools' });
  let last = null;
  /** What the board showed last: to animate the step from it, and to sound once per step. */
  let shown = null;
  let stepBefore = null;
  /** Seats that offered a rematch (from `rematch_offered`). */
  let offers = [];
  const rematchNote = h('p', { class: 'hint', id: 'rematch-note', 'aria-live': 'polite' });

  const leave = async () => {
    const u = last && last.update;
    if (u && u.you !== undefined && u.status === 'playing' && !confirm('Leaving now resigns the match. Resign?')) return;
    try { await conn.ask({ type: 'leave', room }, m => m.type === 'left' && m.room === room); } catch { /* not a member */ }
    app.seats.delete(room);
    location.hash = '#/';
  };

  // Answered by the final update ("closed": "aborted"), or a refusal.
  const abort = () => {
    refusal.textContent = '';
    conn.send({ type: 'abort', room });
  };

  const play = move => {
    const u = last.update;
    refusal.textContent = '';
    state.sentSeq = u.seq;
    conn.send({ type: 'play', room, seat: u.you, seq: u.seq, move });
  };

  const drawClocks = () => {
    if (!last) return;
    const u = last.update;
    for (const li of seatsBox.querySelectorAll('[data-clock]')) {
      const seat = Number(li.dataset.clock);
      const running = u.status === 'playing' && u.to_act.includes(seat);
      const ms = u.clocks[seat] - (running ? performance.now() - last.at : 0);
      li.textContent = clockText(ms);
      li.classList.toggle('low', running && ms < 10000);
      li.classList.toggle('running', running);
    }
  };

  const render = () => {
    const u = last.update;
    const g = gameInfo(u.game);
    title.textContent = `${g.title} · room ${room}`;
    const mine = u.you !== undefined;
    const myTurn = mine && u.status === 'playing' && u.to_act.includes(u.you);
    let line;
    if (u.status === 'finished') line = resultText(u);
    else if (u.status === 'waiting') {
      const free = u.seats.filter(s => s.kind === 'empty').length;
      line = `Waiting for ${free} more player${free === 1 ? '' : 's'}: the match starts when every seat is taken.`;
    }
    else if (myTurn) line = 'Your turn.';
    else line = `${u.to_act.map(s => seatName(u.seats[s])).join(' and ')} to move.`;
    // A rated match's end: each player's rating before and after.
    if (u.status === 'finished' && Array.isArray(u.rating_changes) && u.rating_changes.length) {
      line += ` Ratings: ${u.rating_changes.map(c => `${c.name} ${Math.round(c.after)} (${changeText(c.after - c.before)})`).join(', ')}.`;
    }
    status.textContent = line;
    status.dataset.turn = myTurn ? 'yes' : 'no';
    status.dataset.status = u.status;
    status.dataset.seq = u.seq;
    put(seatsBox, u.seats.map(s => h('li', {
      class: `seat${u.to_act.includes(s.seat) ? ' to-act' : ''}${s.seat === u.you ? ' me' : ''}`,
    },
    h('span', { class: 'seat-no' }, `Seat ${s.seat}`), ' ',
    h('span', { class: 'who' }, s.account ? h('a', { href: `#/player/${encodeURIComponent(s.name)}` }, s.name) : seatName(s)),
    // A rated room's seats carry their rating (`?` while provisional).
    s.rating ? h('span', { class: 'rating', title: s.rating.provisional ? 'provisional rating' : 'rating' },
      ` ${Math.round(s.rating.rating)}${s.rating.provisional ? '?' : ''}`) : null,
    s.seat === u.you ? ' (you)' : '',
    s.kind === 'player' && !s.connected ? h('span', { class: 'away' }, ' away') : null,
    u.clocks ? h('span', { class: 'clock', dataset: { clock: s.seat } }) : null)));
    drawClocks();
    setYourTurn(myTurn);
    // A step that just arrived (not a reload, not a redraw) is animated.
    const fresh = shown !== null && u.seq === shown.seq + 1;
    // The position before this step, kept for redraws (the last move stays marked).
    if (!shown || u.seq !== shown.seq) stepBefore = fresh ? shown.view : null;
    if (u.status === 'waiting') {
      put(board, waitingPanel(u));
    } else if (boardOf(u.game)) {
      boardOf(u.game).render(board, u, {
        play, myTurn, state: state.ui, fresh, before: stepBefore,
        rerender: render,
      });
    } else {
      put(board, h('pre', {}, JSON.stringify(u.view, null, 1)));
    }
    settle(board);
    if (!shown || u.seq !== shown.seq || u.status !== shown.status) {
      if (u.status === 'finished' && shown && shown.status !== 'finished') sound('end');
      else if (myTurn && !(shown && shown.myTurn)) sound('turn');
      else if (fresh) sound('move');
    }
    shown = { seq: u.seq, status: u.status, view: u.view, myTurn };
    // A rematch follows a match that ended, with an outcome or aborted.
    const rematchable = mine && u.status === 'finished' && (!u.closed || u.closed === 'aborted');
    const offered = mine && offers.includes(u.you);
    const others = offers.filter(x => x !== u.you).map(x => (u.seats[x] ? seatName(u.seats[x]) : `seat ${x}`));
    rematchNote.textContent = !rematchable || !offers.length ? ''
      : others.length && offered ? `Rematch offered by you and ${others.join(', ')}.`
        : others.length ? `${others.join(' and ')} offer${others.length > 1 ? '' : 's'} a rematch.`
          : 'You offered a rematch: waiting for the others.';
    put(tools,
      rematchable ? h('button', {
        class: 'primary', id: 'rematch', disabled: offered,
        onclick: () => conn.ask({ type: 'rematch', room, client_seed: clientSeed() }, m => m.type === 'rematch_offered' && m.room === room)
          .catch(err => { refusal.textContent = err.message; refusal.dataset.code = err.code; }),
      }, offered ? 'Rematch offered' : others.length ? 'Accept the rematch' : 'Rematch') : null,
      u.status === 'finished' && !u.closed ? h('a', { class: 'button', href: `#/replay/${room}`, id: 'open-replay' }, 'Replay') : null,
      !mine && u.status === 'waiting' && u.seats.some(s => s.kind === 'empty')
        ? h('button', { onclick: () => conn.send({ type: 'join', room, client_seed: clientSeed() }) }, 'Take a seat') : null,
      // Until one's own first move the match may be ended unrated.
      mine && u.may_abort ? h('button', { id: 'abort', onclick: abort, title: 'End the match without a result: it does not count' }, 'Abort') : null,
      h('button', { onclick: leave, id: 'leave' }, mine && u.status === 'playing' ? 'Resign' : 'Leave'),
      h('a', { class: 'button', href: '#/' }, 'Lobby'));
  };

  /** The name the seat was last taken again under (tried once per name). */
  let renamedTo = null;
  /**
   * A guest who types a name in the header while seated in a waiting room:
   * the seat still carries the name of the connection that took it, so it
   * is left and taken again under the new one (nothing is dealt yet; a
   * started match keeps its names).
   */
  const rename = u => {
    if (u.status !== 'waiting' || u.you === undefined || conn.account) return;
    const want = savedName().trim();
    const seat = u.seats[u.you];
    if (!want || !seat || seat.kind !== 'player' || renamedTo === want) return;
    if (seat.name === want || seat.name === `${want} (guest)`) return;
    renamedTo = want;
    const at = u.you;
    conn.ask({ type: 'leave', room }, m => m.type === 'left' && m.room === room)
      .then(() => conn.ask({ type: 'join', room, seat: at, client_seed: clientSeed() }, m => m.type === 'joined' && m.room === room))
      .catch(err => { refusal.textContent = err.message; refusal.dataset.code = err.code; });
  };

  /** The account's seat asked for by this screen (once from an update: a refusal is not asked again). */
  let claimed = false;
  const claim = seat => {
    claimed = true;
    conn.send({ type: 'join', room, seat, client_seed: clientSeed() });
  };
  /**
   * Sits or watches. An account holding a seat here (opened in another
   * tab, on another device, from a link) joins it, named by its games
   * list or, failing that, by the first update seen watching.
   */
  const enter = again => {
    const known = app.seats.has(room);
    const listed = conn.account && !watchOnly && (app.games || []).find(g => g.room === room);
    if (conn.account && !watchOnly && (again || !known) && (known || listed)) claim(known ? app.seats.get(room) : listed.seat);
    else if (!known || watchOnly) conn.send({ type: 'spectate', room });
  };
  const offs = [
    conn.on('update', m => {
      if (m.room !== room) return;
      const me = !claimed && !watchOnly && m.you === undefined && m.status !== 'finished' && conn.account;
      const held = me && m.seats.find(s => s.kind === 'player' && s.account && s.name.toLowerCase() === me.name.toLowerCase());
      if (held) claim(held.seat);
      if (!last || m.seq !== last.update.seq) refusal.textContent = '';
      last = app.latest.get(room);
      if (side) side.draw(m);
      const at = frameAt();
      render();
      rename(m);
      // From the WebSocket frame to the painted board: the frame after
      // the next animation frame comes once the browser has painted.
      requestAnimationFrame(() => setTimeout(() => {
        const ms = performance.now() - at;
        board.dataset.paintMs = ms.toFixed(1);
        const paints = (window.parlorPaints = window.parlorPaints || []);
        paints.push({ seq: m.seq, game: m.game, ms });
        if (paints.length > PAINTS_KEPT) paints.shift();
      }, 0));
    }),
    conn.on('rematch_offered', m => {
      if (m.room !== room) return;
      offers = m.seats;
      if (last) render();
    }),
    conn.on('error', m => {
      if (m.room !== room) return;
      if (m.code.startsWith('chat/')) return; // The chat shows its own.
      // A move that crossed another step is asked again by the next update.
      if (m.code === 'action/stale_seq') return;
      refusal.textContent = m.message;
      refusal.dataset.code = m.code;
      sound('refusal');
    }),
    conn.on('status', m => {
      // After a reconnection a guest's seats come back through resume;
      // an account's seat is joined again (it may be held under another
      // tab's token); a watcher must ask again.
      if (m.up) enter(true);
    }),
  ];
  const timer = setInterval(drawClocks, CLOCK_TICK_MS);

  // The chat, and Report and Block at the end: a module loaded on demand.
  const chatSlot = h('div', { class: 'chat-slot' });
  const endSlot = h('div', { class: 'end-actions' });
  let side = null;
  let gone = false;
  import('./roomside.js').then(m => {
    if (gone) return;
    side = m.roomSide(app, room, chatSlot, endSlot);
    if (last) side.draw(last.update);
  }, () => {});
  put(app.main, h('section', { class: 'room-screen' }, title, status, seatsBox, refusal, board, chatSlot, rematchNote, tools, endSlot));
  last = app.latest.get(room) || null;
  if (last) render();
  else status.textContent = 'Loading the room…';
  if (!app.watching.has(room) && conn.ready) enter(false);

  return () => {
    gone = true;
    if (side) side.dispose();
    offs.forEach(off => off());
    clearInterval(timer);
    setYourTurn(false);
    if (app.watching.has(room)) { app.watching.delete(room); conn.send({ type: 'leave', room }); }
  };
}
