// What the lobby and the room need to know about each game: names, seat
// counts, bots, options. The module that draws it is in boards.js.

export const GAMES = {
  nimrod: {
    title: 'Nimrod', seats: [2, 2], bots: ['optimal', 'simple', 'random'],
    // What a waiting room cannot show yet: the deal needs every seat's seed.
    dealt: 'The two piles are dealt when every seat is taken',
    blurb: 'Two piles of rods: take from one pile, or the same from both. Whoever takes the last rod wins.',
  },
  rummikub: {
    title: 'Rummikub Lite', seats: [2, 4], bots: ['greedy', 'sampler', 'predictor', 'random'],
    dealt: 'The racks are dealt when every seat is taken',
    blurb: 'Lay rows of three blocks, add blocks to rows, or draw. First to empty the rack wins.',
  },
  cribbage: {
    title: 'Cribbage', seats: [2, 4], bots: ['expert', 'seed', 'random'],
    dealt: 'The cards are dealt and the first dealer drawn when every seat is taken',
    blurb: 'Throw two to the crib, peg to 31, score the show. First to 121 (or 61) wins.',
  },
  mitsudomoe: {
    title: 'Mitsudomoe', seats: [2, 2], bots: ['search', 'greedy', 'random'],
    // A fixed start: nothing is dealt, but nobody moves before every seat is taken.
    dealt: 'The board is set out when every seat is taken',
    // Bots watched by people think half a second a turn, so the match can be followed.
    watchBot: 'search:500',
    blurb: 'Lay or move a ring, then step or vault a ball; bring all three balls to the far corner.',
  },
};

export function gameInfo(name) {
  return GAMES[name] || { title: name, seats: [2, 2], bots: [], blurb: '', dealt: 'The game starts when every seat is taken' };
}

/** The name to show for a seat entry. */
export function seatName(entry) {
  if (!entry) return '?';
  // A guest is always marked: its name may look like an account's.
  if (entry.kind === 'player') return entry.account ? entry.name : `${entry.name} (guest)`;
  // A ladder's anchor plays as its own account: shown by that name.
  if (entry.kind === 'bot' && entry.account) return `${entry.account} (bot)`;
  if (entry.kind === 'bot') return `bot (${entry.strategy})`;
  // Never a bot's or a player's name: nobody sits there yet.
  return 'free seat';
}
