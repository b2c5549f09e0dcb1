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
const TICK_MS = 1000;

async function eventName(id) {
  if (!names.has(id)) {
    names.set(id, api('GET', `/api/tournaments/${encodeURIComponent(id)}`).catch(() => null));
  }
  return names.get(id);
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
  // The clock runs from the deal, whether we came or not: the card counts
  // our time down (the room's clocks once seen, else the event's).
  const left = h('span', { class: 'countdown' });
  const came = performance.now();
  let ev = null;
  const tick = () => {
    const r = app.latest.get(m.room);
    const c = ev && ev.clock;
    const ms = r && r.update.clocks ? r.update.clocks[m.seat] - (r.update.to_act.includes(m.seat) ? performance.now() - r.at : 0)
      : c && (c.per_move?.ms ?? c.increment?.main_ms ?? c.days_per_move * 864e5) - (m.seat === 0 || ev.game === 'cribbage' ? performance.now() - came : 0);
    left.textContent = ms >= 0 ? ` Your clock: ${clockText(ms)} left.` : '';
  };
  const timer = setInterval(() => (card.isConnected ? tick() : clearInterval(timer)), TICK_MS);
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
    `, seat ${m.seat} (you sit ${m.seat === 0 ? 'first' : 'second'}). The game has started.`, left),
  play,
  h('a', { href: eventHref(m.tournament), class: 'button event-link' }, 'Event page'),
  say);
  box.append(card);
  beep();
  eventName(m.tournament).then(e => {
    if (!e) return;
    ev = e;
    tick();
    put(what, h('a', { href: eventHref(m.tournament) }, e.name));
    round.textContent = roundName(e.format, m.round);
  });
}
