// Seats in words: "you", else the holder's name (with the seat number
// only where two seats read alike, or nobody sits there).

import { seatName } from './games.js';

export function person(u, seat) {
  if (seat === u.you) return 'you';
  const e = u.seats && u.seats[seat];
  if (!e || e.kind === 'empty') return `seat ${seat}`;
  const n = seatName(e);
  return u.seats.some(o => o !== e && o.kind !== 'empty' && seatName(o) === n) ? `${n}, seat ${seat}` : n;
}

/** "your", "alice's". */
export function whose(u, seat) {
  const p = person(u, seat);
  return p === 'you' ? 'your' : `${p}'s`;
}
