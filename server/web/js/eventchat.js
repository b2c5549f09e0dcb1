// A tournament's chat, on its page: the lines said by its entrants and
// watchers, an input and the canned phrases for a signed-in visitor (a
// guest reads), the server's refusals in its words, a "Report" beside
// each line, and the "Chat off" switch shared with the rooms' chat (one
// choice, remembered).
//
// The page asks the server for the lines after the last one it has
// every POLL_MS (not while the tab is hidden or the chat is off), and
// stops once the event is over: its chat then takes no more messages.
// Loaded with import() by the tournament's page, so that no first load
// carries it.

import { h, put } from './dom.js';
import { api, explain, waitText } from './api.js';
import { MAX_CHAT_CHARS, PHRASES, chatOff, setChatOff } from './chat.js';
import { needPanelsStyle } from './panelstyle.js';

needPanelsStyle();

/** How often the lines are asked for: the tournament page's pace. */
const POLL_MS = 2000;

/** The most lines kept on the page: older ones scroll away. */
const MAX_LINES_SHOWN = 200;

function timeText(ms) {
  return new Date(ms).toLocaleString();
}

/** What a refusal of a message means, for people. */
function refusalText(err) {
  switch (err.code) {
    case 'chat/rate_limited': return `Slow down: you may speak again in ${waitText(err.retryAfterMs || 1000)}.`;
    case 'chat/closed': return 'The event is over: its chat takes no more messages.';
    case 'chat/muted':
    case 'chat/bad_text': return err.message;
    default: return explain(err).text;
  }
}

/**
 * The chat of the event `id`: returns `{el, dispose()}`. `el` holds the
 * switch and the panel; the lines are asked for until `dispose`.
 */
export function eventChatPanel(app, id) {
  const conn = app.conn;
  const path = `/api/tournaments/${encodeURIComponent(id)}/chat`;
  /** message id -> line. */
  const kept = new Map();
  let last = null;
  let open = true;
  let gone = false;
  let asking = false;

  const lines = h('ol', { class: 'chat-lines', id: 'event-chat-lines', 'aria-live': 'polite', 'aria-label': 'Messages' });
  const refusal = h('p', { class: 'refusal', id: 'event-chat-refusal', role: 'alert' });
  const input = h('input', {
    id: 'event-chat-input', name: 'text', maxlength: MAX_CHAT_CHARS, autocomplete: 'off', 'aria-label': 'Message',
  });
  const form = h('form', { class: 'chat-say', id: 'event-chat-form' },
    input, h('button', { type: 'submit', id: 'event-chat-send' }, 'Send'));
  const phrases = h('div', { class: 'chat-phrases' }, PHRASES.map(([phrase, text]) =>
    h('button', { type: 'button', dataset: { phrase }, onclick: () => say({ phrase }) }, text)));
  const speak = h('div', { class: 'event-chat-speak' });
  const panel = h('details', { class: 'chat', id: 'event-chat', open: true },
    h('summary', {}, 'Event chat'), lines, refusal, speak);
  const offBox = h('input', { type: 'checkbox', id: 'event-chat-off' });
  offBox.checked = chatOff();
  const el = h('div', { class: 'chat-box event-chat-box' },
    h('label', { class: 'chat-switch' }, offBox, ' Chat off'), panel);

  /** The input for an account, a word for a guest or once it is over. */
  const drawSpeak = () => {
    if (!open) put(speak, h('p', { class: 'hint', id: 'event-chat-closed' }, 'The event is over: its chat is kept to read.'));
    else if (conn.account) put(speak, form, phrases);
    else put(speak, h('p', { class: 'hint', id: 'event-chat-guest' }, h('a', { href: '#/login' }, 'Log in'), ' to chat.'));
  };

  const report = line => import('./report.js')
    .then(m => m.openReport(app, line.name, null, { event: id, message: line.id, quote: line.text }))
    .catch(() => { refusal.textContent = 'The report form could not be loaded: check the connection.'; });

  const drawLines = () => {
    const me = conn.account && conn.account.name.toLowerCase();
    const all = [...kept.values()].sort((a, b) => a.id - b.id).slice(-MAX_LINES_SHOWN);
    // Text only (never markup): a link someone pastes is shown, not followed.
    put(lines, all.map(l => h('li', { dataset: { id: l.id }, title: timeText(l.at_ms) },
      h('strong', { class: 'chat-name' }, l.name), ': ',
      h('span', { class: 'chat-text' }, l.text),
      me && l.name.toLowerCase() !== me
        ? h('button', { type: 'button', class: 'chat-report', 'aria-label': `Report ${l.name}`, onclick: () => report(l) }, 'Report')
        : null)));
    lines.scrollTop = lines.scrollHeight;
  };

  const keep = got => {
    let added = false;
    for (const l of got) {
      if (!kept.has(l.id)) { kept.set(l.id, l); added = true; }
      if (last === null || l.id > last) last = l.id;
    }
    if (added) drawLines();
  };

  const load = async () => {
    if (gone || asking || document.hidden || offBox.checked) return;
    asking = true;
    try {
      const r = await api('GET', last === null ? path : `${path}?after=${last}`);
      if (gone) return;
      keep(r.lines || []);
      if (last === null) last = 0;
      if (r.open !== open) { open = r.open; drawSpeak(); }
      if (!open) stop();
    } catch { /* asked again at the next tick */ } finally { asking = false; }
  };

  async function say(msg) {
    refusal.textContent = '';
    delete refusal.dataset.code;
    try {
      keep([await api('POST', path, msg)]);
      return true;
    } catch (err) {
      refusal.textContent = refusalText(err);
      refusal.dataset.code = err.code;
      if (err.code === 'chat/closed') { open = false; drawSpeak(); }
      return false;
    }
  }

  form.addEventListener('submit', async e => {
    e.preventDefault();
    const text = input.value.trim();
    if (!text) return;
    if (await say({ text })) input.value = '';
  });

  let poll = setInterval(load, POLL_MS);
  function stop() { if (poll) { clearInterval(poll); poll = null; } }
  const applyOff = () => { panel.hidden = offBox.checked; if (!offBox.checked) load(); };
  offBox.addEventListener('change', () => { setChatOff(offBox.checked); applyOff(); });
  const visible = () => { if (!document.hidden) load(); };
  document.addEventListener('visibilitychange', visible);
  const offs = [conn.on('welcome', () => { drawSpeak(); drawLines(); })];
  drawSpeak();
  applyOff();

  return {
    el,
    dispose() {
      gone = true;
      stop();
      document.removeEventListener('visibilitychange', visible);
      offs.forEach(off => off());
    },
  };
}
