// Links from one screen to another that several screens draw alike: a
// player's name to their page, and a game to its replay, its seat or its
// table (the event page and the bot ladder).

import { h } from '../dom.js';

/** `name` linked to their page, marked when it is `me`. */
export function playerLink(name, me) {
  return h('a', { href: `#/player/${encodeURIComponent(name)}`, class: name === me ? 'me' : null }, name);
}

/** The game's link: replay when over, play for one's own, watch else. */
export function gameAction(g, me, label, play) {
  if (!g.room) return h('span', { class: 'hint' }, 'forfeited, not played');
  if (g.result) return h('a', { href: `#/replay/${g.room}`, class: 'button replay-link', 'aria-label': `Replay ${label}` }, 'Replay');
  const seat = g.seats.indexOf(me);
  if (seat >= 0) return h('button', { class: 'primary play-link', onclick: () => play(g.room, seat), 'aria-label': `Play ${label}` }, 'Play');
  return h('a', { href: `#/room/${g.room}/watch`, class: 'button watch-link', 'aria-label': `Watch ${label}` }, 'Watch');
}
