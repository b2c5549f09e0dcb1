// What a room shows around its table beyond the game: the chat panel, and
// once a game of ours is over, Report and Block for the other players.
// Loaded with import() when a room is first drawn (not with the lobby).

import { h, put } from './dom.js';
import { chatPanel } from './chat.js';
import { needPanelsStyle } from './panelstyle.js';

/**
 * Fills `chatSlot` and `endSlot` for `room`; returns `{draw(update),
 * dispose()}`, `draw` called with each update.
 */
export function roomSide(app, room, chatSlot, endSlot) {
  needPanelsStyle();
  const chat = chatPanel(app, room);
  put(chatSlot, chat.el);
  let ended = false;
  const endActions = u => {
    const conn = app.conn;
    if (ended || u.status !== 'finished' || u.closed || u.you === undefined || !conn.account) return;
    ended = true;
    const me = conn.account.name.toLowerCase();
    const others = u.seats.filter(s => s.account && s.name.toLowerCase() !== me).map(s => s.name);
    if (!others.length) return;
    endSlot.id = 'end-actions';
    import('./report.js').then(m => put(endSlot, h('p', {}, 'The other players:'), others.map(n => m.playerActions(app, n, room))), () => {});
  };
  return {
    draw(u) { chat.draw(u); endActions(u); },
    dispose() { chat.dispose(); },
  };
}
