// Who sits where, in words: a table speaks of people, not seat numbers.
// "you" for the viewer's own seat, the player's or bot's name otherwise;
// the seat number only where two seats would read the same, or nobody
// sits there.

import { seatName } from './games.js';

/** The seat's holder as shown: "you", "alice", "bob (guest)", "bot (random)". */
export function person(u, seat) {
  if (u.you !== undefined && seat === u.you) return 'you';
  const entry = u.seats && u.seats[seat];
  if (!entry || entry.kind === 'empty') return `seat ${seat}`;
  const name = seatName(entry);
  // Two seats that read the same (two random bots) keep their numbers apart.
  const twin = u.seats.some(o => o.seat !== entry.seat && o.kind !== 'empty' && seatName(o) === name);
  return twin ? `${name}, seat ${seat}` : name;
}

/** [person] at the start of a sentence. */
export function Person(u, seat) {
  const p = person(u, seat);
  // Only our own word is capitalised: a name is written as its owner chose.
  return p === 'you' ? 'You' : p;
}

/** "your", "alice's": whose hand, crib or pile. */
export function whose(u, seat) {
  const p = person(u, seat);
  return p === 'you' ? 'your' : `${p}'s`;
}
