// A room waiting for players: what it waits for (which seats are free),
// that nothing is dealt yet, and the invitation to share. The board is not
// drawn: the deal is made from every seat's client seed when the last seat
// is taken (fair dealing), so a provisional one would mislead.

import { h } from './dom.js';
import { gameInfo, seatName } from './games.js';

/** How long "Copied" stays on the button before it reads as before. */
const COPIED_SHOWN_MS = 2500;

/** The address that opens this room for someone else. */
export function inviteLink(room) {
  return `${location.origin}${location.pathname}#/room/${room}`;
}

async function copy(text, input) {
  try {
    await navigator.clipboard.writeText(text);
    return true;
  } catch {
    // No clipboard permission (an http page on a LAN): select the text so
    // that Ctrl+C or a long press copies it.
    input.focus();
    input.select();
    return false;
  }
}

/** The waiting room's panel, in place of the board. */
export function waitingPanel(u) {
  const g = gameInfo(u.game);
  const free = u.seats.filter(x => x.kind === 'empty');
  const seated = u.seats.filter(x => x.kind !== 'empty');
  const mine = u.you !== undefined;
  const link = inviteLink(u.room);
  const input = h('input', { id: 'invite-link', readonly: true, value: link, 'aria-label': 'Invite link', size: 30 });
  const done = h('span', { class: 'copied', id: 'invite-copied', role: 'status' });
  const button = h('button', {
    id: 'copy-invite', type: 'button', class: 'primary',
    onclick: async () => {
      const ok = await copy(link, input);
      done.textContent = ok ? 'Copied: send it to the people you want to play.' : 'Selected: copy it with Ctrl+C.';
      setTimeout(() => { done.textContent = ''; }, COPIED_SHOWN_MS);
    },
  }, 'Copy invite link');
  const n = free.length;
  return h('div', { class: 'waiting', id: 'waiting', dataset: { free: n } },
    h('h3', {}, n ? `Waiting for ${n} more player${n > 1 ? 's' : ''}` : 'Every seat is taken: starting'),
    h('ul', { class: 'waiting-seats' }, u.seats.map(x => h('li', { class: x.kind === 'empty' ? 'free' : 'taken' },
      `Seat ${x.seat}: `, x.kind === 'empty' ? h('em', {}, 'free') : seatName(x), x.seat === u.you ? ' (you)' : ''))),
    h('p', { class: 'dealt', id: 'dealt' }, `${g.dealt}, from every player's seed: nothing is dealt before.`),
    mine ? h('div', { class: 'invite' },
      h('p', {}, seated.length === 1 ? 'Invite someone: send them this link.' : 'Invite someone to a free seat: send them this link.'),
      h('div', { class: 'row' }, input, button), done)
      : h('p', { class: 'hint' }, 'Take a free seat to play (your name is the one in the header), or wait and watch.'));
}
