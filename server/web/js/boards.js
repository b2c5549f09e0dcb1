// The module that draws each game's table. Only the room and the replay
// need them, so the lobby loads without them (see main.js).

import * as nimrod from './nimrod.js';
import * as rummikub from './rummikub.js';
import * as cribbage from './cribbage.js';
import * as mitsudomoe from './mitsudomoe.js';

const BOARDS = { nimrod, rummikub, cribbage, mitsudomoe };

/** The drawing module of `game`, or null for a game this client does not know. */
export function boardOf(game) {
  return Object.hasOwn(BOARDS, game) ? BOARDS[game] : null;
}
