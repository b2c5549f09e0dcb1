// A tournament round seated us (`tournament_game`): a card in the notices
// area, whatever the screen, naming the event, the round and the opponent,
// with "Play now" (takes the seat held for us and opens the room) and a
// link to the event's page. One card per event: the next round's replaces
// it, and it goes once the game is over.

import { h, put } from './dom.js';
import { clientSeed } from './net.js';
import { api } from './api.js';
import { beep } from './sound.js';
import { eventHref, roundName } from './eventwords.js';
import { clockText } from './room.js';

/** Events' names already asked for: the message carries only the id. */
const names = new Map();

/** How often the card's countdown is redrawn. */
const COUNTDOWN_TICK_MS = 1000;

async function eventName(id) {
  if (!names.has(id)) {
    names.set(id, api('GET', `/api/tournaments/${encodeURIComponent(id)}`).then(e => ({ name: e.name, format: e.format, clock: e.clock, game: e.game }), () => null));
  }
  return names.get(id);
}

/** The time a seat has for its first move under `clock`, in ms (null: no clock). */
function firstMoveMs(clock) {
  if (!clock) return null;
  if (clock.per_move) return clock.per_move.ms;
  if (clock.increment) return clock.increment.main_ms;
  if (clock.days_per_move) return clock.days_per_move * 86400000;
  return null;
}

/**
 * The game's clock runs from the moment it is made, whether or not we
 * have come: the card counts down our time. The room's own clocks when
 * this page has them, else the event's clock from when the card came.
 */
function countdown(app, m, clockOf, card) {
  const span = h('span', { class: 'countdown', 'aria-live': 'off' });
  const came = performance.now();
  const draw = () => {
    if (!card.isConnected) { clearInterval(timer); return; }
    const seen = app.latest && app.latest.get(m.room);
    let left = null;
    let running = true;
    if (seen && seen.update.clocks) {
      const u = seen.update;
      running = u.status === 'playing' && u.to_act.includes(m.seat);
      left = u.clocks[m.seat] - (running ? performance.now() - seen.at : 0);
    } else if (clockOf() && firstMoveMs(clockOf().clock) !== null) {
      // The first seat moves first; in Cribbage everyone throws to the crib at once.
      running = m.seat === 0 || clockOf().game === 'cribbage';
      left = firstMoveMs(clockOf().clock) - (running ? performance.now() - came : 0);
    }
    span.textContent = left === null ? '' : running
      ? ` Your clock is running: ${clockText(left)} left.` : ` Your clock: ${clockText(left)}.`;
    span.classList.toggle('low', running && left !== null && left < 10000);
  };
  const timer = setInterval(draw, COUNTDOWN_TICK_MS);
  draw();
  return [span, draw];
}

let box = null;

export function showEventGame(app, m) {
  const conn = app.conn;
  if (!box) {
    box = h('div', { id: 'event-games', class: 'event-games' });
    app.notices.append(box);
    // The card goes when its game is over (the table says the result).
    conn.on('update', u => {
      if (u.status !== 'finished') return;
      for (const card of box.querySelectorAll(`.event-game[data-room="${CSS.escape(u.room)}"]`)) card.remove();
    });
  }
  for (const old of box.querySelectorAll(`.event-game[data-tournament="${CSS.escape(m.tournament)}"]`)) old.remove();
  const opponent = m.players.find((_, i) => i !== m.seat) || '?';
  const what = h('span', { class: 'event-label' }, 'a tournament');
  const round = h('span', {}, `Round ${m.round}`);
  const say = h('p', { class: 'card-error refusal', role: 'alert' });
  let clock = null;
  const holder = { card: null };
  const [timerSpan, redraw] = countdown(app, m, () => clock, { get isConnected() { return !holder.card || holder.card.isConnected; } });
  const play = h('button', {
    class: 'primary play-game', id: `play-${m.room}`,
    onclick: async () => {
      say.textContent = '';
      try {
        await conn.ask({ type: 'join', room: m.room, seat: m.seat, client_seed: clientSeed() }, x => x.type === 'joined' && x.room === m.room);
      } catch (err) {
        if (err.code !== 'room/already_seated') { say.textContent = err.message; return; }
      }
      location.hash = `#/room/${m.room}`;
      // Opened: the card stays as the way back to the event.
      play.replaceWith(h('a', { href: `#/room/${m.room}`, class: 'button' }, 'Back to the game'));
    },
  }, 'Play now');
  const card = h('div', {
    class: 'notice event-game', role: 'region', 'aria-label': 'Tournament game',
    dataset: { tournament: m.tournament, room: m.room, round: m.round, seat: m.seat },
  },
  h('button', { class: 'dismiss', 'aria-label': 'Dismiss', title: 'Dismiss', onclick: () => card.remove() }, '×'),
  h('p', {}, round, ' of ', what, ': you play ', h('a', { href: `#/player/${encodeURIComponent(opponent)}` }, opponent),
    `, seat ${m.seat} (you sit ${m.seat === 0 ? 'first' : 'second'}). The game has started.`, timerSpan),
  play,
  h('a', { href: eventHref(m.tournament), class: 'button event-link' }, 'Event page'),
  say);
  holder.card = card;
  box.append(card);
  beep();
  eventName(m.tournament).then(e => {
    if (!e) return;
    clock = e.clock ? { clock: e.clock, game: e.game } : null;
    redraw();
    put(what, h('a', { href: eventHref(m.tournament) }, e.name));
    round.textContent = roundName(e.format, m.round);
  });
}
