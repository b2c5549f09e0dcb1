// A room's chat panel, beside the table (below it on a phone): the lines
// said on the channels this connection reads, an input and the canned
// phrases, the server's refusals in its words, a per-line "Report", and
// the "Chat off" switch that hides every room's chat and is remembered.
//
// Loaded with import() when a room is first drawn, so that the lobby's
// page weight does not carry it. The lines themselves are kept by
// main.js (app.chat) from the moment they arrive, since they may come
// before this module is loaded.

import { h, put } from './dom.js';

/** Most characters in one message: the server's MAX_CHAT_CHARS. */
export const MAX_CHAT_CHARS = 300;

/** Where the "Chat off" switch is remembered. */
const OFF_KEY = 'parlor.chatOff';

/** The canned phrases (protocol/src/chat.rs, Phrase) and their text. */
export const PHRASES = [
  ['good_game', 'Good game'],
  ['good_luck', 'Good luck'],
  ['thanks', 'Thanks'],
  ['well_played', 'Well played'],
];

/** Whether the player switched the chat off (in any room, and events' chat). */
export function chatOff() {
  return localStorage.getItem(OFF_KEY) === 'yes';
}

/** Remembers the switch (shared by rooms and events). */
export function setChatOff(off) {
  if (off) localStorage.setItem(OFF_KEY, 'yes');
  else localStorage.removeItem(OFF_KEY);
}

function timeText(ms) {
  return new Date(ms).toLocaleString();
}

/**
 * The panel for `room`: returns `{el, draw(update), dispose()}`. `el`
 * holds the switch and the panel; `draw` is called with each update (the
 * channels are labelled once the game is over).
 */
export function chatPanel(app, room) {
  const conn = app.conn;
  let finished = false;
  const lines = h('ol', { class: 'chat-lines', id: 'chat-lines', 'aria-live': 'polite', 'aria-label': 'Messages' });
  const refusal = h('p', { class: 'refusal', id: 'chat-refusal', role: 'alert' });
  const input = h('input', {
    id: 'chat-input', name: 'text', maxlength: MAX_CHAT_CHARS, autocomplete: 'off', 'aria-label': 'Message',
  });
  const say = msg => {
    refusal.textContent = '';
    conn.send({ type: 'say', room, ...msg });
  };
  const form = h('form', { class: 'chat-say', id: 'chat-form' },
    input, h('button', { type: 'submit', id: 'chat-send' }, 'Send'));
  form.addEventListener('submit', e => {
    e.preventDefault();
    const text = input.value.trim();
    if (!text) return;
    say({ text });
    input.value = '';
  });
  const phrases = h('div', { class: 'chat-phrases' }, PHRASES.map(([phrase, text]) =>
    h('button', { type: 'button', dataset: { phrase }, onclick: () => say({ phrase }) }, text)));
  const panel = h('details', { class: 'chat', id: 'chat', open: true },
    h('summary', {}, 'Chat'), lines, refusal, form, phrases);
  const offBox = h('input', { type: 'checkbox', id: 'chat-off' });
  offBox.checked = chatOff();
  const switchLabel = h('label', { class: 'chat-switch' }, offBox, ' Chat off');
  const el = h('div', { class: 'chat-box' }, switchLabel, panel);
  const applyOff = () => { panel.hidden = offBox.checked; };
  offBox.addEventListener('change', () => { setChatOff(offBox.checked); applyOff(); });
  applyOff();

  const report = (name) => import('./report.js')
    .then(m => m.openReport(app, name, room))
    .catch(() => { refusal.textContent = 'The report form could not be loaded: check the connection.'; });

  const drawLines = () => {
    const kept = app.chat.get(room);
    const me = conn.account && conn.account.name.toLowerCase();
    const all = kept ? [...kept.values()].sort((a, b) => a.id - b.id) : [];
    put(lines, all.map(l => h('li', { dataset: { to: l.to, id: l.id }, title: timeText(l.at_ms) },
      finished ? h('span', { class: 'chat-channel' }, l.to === 'spectators' ? '[spectators] ' : '[players] ') : null,
      h('strong', { class: 'chat-name' }, l.name), ': ',
      h('span', { class: 'chat-text' }, l.text),
      me && l.name.toLowerCase() !== me && !/ \(guest\)$/.test(l.name)
        ? h('button', { type: 'button', class: 'chat-report', 'aria-label': `Report ${l.name}`, onclick: () => report(l.name) }, 'Report')
        : null)));
    lines.scrollTop = lines.scrollHeight;
  };

  const offs = [
    conn.on('said', m => { if (m.room === room) drawLines(); }),
    conn.on('chat_history', m => { if (m.room === room) drawLines(); }),
    conn.on('error', m => {
      if (m.room !== room || !String(m.code).startsWith('chat/')) return;
      refusal.textContent = m.message;
      refusal.dataset.code = m.code;
    }),
    conn.on('welcome', drawLines),
  ];
  drawLines();

  return {
    el,
    draw(u) {
      const now = u.status === 'finished';
      if (now !== finished) { finished = now; drawLines(); }
    },
    dispose() { offs.forEach(off => off()); },
  };
}
