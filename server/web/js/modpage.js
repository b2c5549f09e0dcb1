// The moderators' page (#/mod): the open reports to resolve, the actions
// on an account (close, reopen, mark, unmark, mute, play-ban), the
// moderation log a page at a time, and the fair-play review of a game.
// Linked in the header only for accounts whose role moderates; the server
// refuses everyone else (mod/forbidden) whatever the page shows. Loaded
// with import() when opened, never prefetched with the lobby.

import { h, put } from './dom.js';
import { api, explain } from './api.js';
import { dateText } from './lib/dates.js';
import { GAMES } from './games.js';
import { needPanelsStyle } from './panelstyle.js';

/** Most characters in a moderator's text: the server's MAX_MOD_TEXT_CHARS. */
export const MAX_MOD_TEXT_CHARS = 1000;

/** Most minutes of a mute or a play ban: the server's MAX_SANCTION_MINUTES (30 days). */
export const MAX_SANCTION_MINUTES = 43200;

/** The moderation reasons (the server's closed set) and their public words. */
const REASONS = [
  ['fair_play', 'fair-play violation'], ['boosting', 'rating manipulation'], ['abuse', 'abusive behaviour'],
  ['spam', 'spam'], ['name', 'an inappropriate name'], ['request', 'the owner\'s request'],
  ['mistake', 'a correction'], ['other', 'a breach of the rules'],
];

/** The actions on an account and what each needs beyond a reason and a text. */
const ACTIONS = [
  ['close', 'Close'], ['reopen', 'Reopen'], ['mark', 'Mark'], ['unmark', 'Unmark'], ['mute', 'Mute'], ['playban', 'Ban from play'],
];

let uid = 0;

/** A labelled <select> of the reasons. */
function reasonSelect(id) {
  return [h('label', { for: id }, 'Reason'),
    h('select', { id, name: 'reason' }, REASONS.map(([v, words]) => h('option', { value: v }, `${v} (${words})`)))];
}

function textInput(id) {
  return [h('label', { for: id }, 'Text'), h('input', { id, name: 'text', maxlength: MAX_MOD_TEXT_CHARS, required: true })];
}

function failure(box, err) {
  box.textContent = explain(err).text;
  box.dataset.code = err.code;
}

function reportsTab() {
  const box = h('div', { id: 'mod-reports' }, h('p', {}, 'Loading…'));
  const load = async () => {
    let r;
    try { r = await api('GET', '/api/mod/reports?status=open'); } catch (err) {
      put(box, h('p', { class: 'refusal', role: 'alert' }, explain(err).text));
      return;
    }
    if (!r.reports.length) { put(box, h('p', { class: 'hint', id: 'mod-reports-empty' }, 'No open reports.')); return; }
    put(box, h('ul', { class: 'list' }, r.reports.map(rep => {
      const n = ++uid;
      const said = h('p', { class: 'refusal', role: 'alert' });
      const form = h('form', { class: 'row', 'aria-label': `Resolve report ${rep.id}` },
        h('label', { for: `res-action-${n}` }, 'Resolution'),
        h('select', { id: `res-action-${n}`, name: 'action' }, h('option', { value: 'dismissed' }, 'dismissed'), h('option', { value: 'actioned' }, 'actioned')),
        reasonSelect(`res-reason-${n}`), textInput(`res-text-${n}`),
        h('button', { type: 'submit', class: 'primary' }, 'Resolve'));
      form.addEventListener('submit', async e => {
        e.preventDefault();
        said.textContent = '';
        try {
          await api('POST', `/api/mod/reports/${rep.id}/resolve`,
            { action: form.elements.action.value, reason: form.elements.reason.value, text: form.elements.text.value });
          load();
        } catch (err) { failure(said, err); }
      });
      return h('li', { class: 'mod-report', dataset: { id: rep.id, player: rep.player } },
        h('p', {}, h('strong', {}, `#${rep.id} `), `${rep.reporter} reports `,
          h('a', { href: `#/player/${encodeURIComponent(rep.player)}` }, rep.player),
          ` for ${rep.reason} (${rep.player_open} open)`,
          rep.room ? [' in room ', h('a', { href: `#/replay/${rep.room}` }, rep.room)] : null,
          ` on ${dateText(rep.at_ms)}.`),
        rep.text ? h('p', { class: 'mod-report-text' }, rep.text) : null,
        form, said);
    })));
  };
  load();
  return box;
}

function accountTab() {
  const said = h('p', { class: 'refusal', id: 'mod-action-refusal', role: 'alert' });
  const done = h('p', { class: 'hint', id: 'mod-action-done', 'aria-live': 'polite' });
  const form = h('form', { class: 'create', id: 'mod-action-form', 'aria-label': 'Act on an account' },
    h('div', { class: 'row' },
      h('label', { for: 'mod-account' }, 'Account'), h('input', { id: 'mod-account', name: 'account', required: true, maxlength: 32 }),
      h('label', { for: 'mod-action' }, 'Action'),
      h('select', { id: 'mod-action', name: 'action' }, ACTIONS.map(([v, l]) => h('option', { value: v }, l)))),
    h('div', { class: 'row' },
      h('label', { for: 'mod-mark' }, 'Mark (for Mark)'),
      h('select', { id: 'mod-mark', name: 'mark' }, h('option', { value: 'engine' }, 'engine'), h('option', { value: 'booster' }, 'booster')),
      h('label', { for: 'mod-void' }, 'Void rated results from (optional, for Mark)'),
      h('input', { id: 'mod-void', name: 'void', type: 'date' }),
      h('label', { for: 'mod-minutes' }, 'Minutes (for Mute, Ban)'),
      h('input', { id: 'mod-minutes', name: 'minutes', type: 'number', min: 1, max: MAX_SANCTION_MINUTES, value: 60 })),
    h('div', { class: 'row' }, reasonSelect('mod-reason'), textInput('mod-text')),
    said, done,
    h('button', { type: 'submit', class: 'primary', id: 'mod-act' }, 'Act'));
  form.addEventListener('submit', async e => {
    e.preventDefault();
    said.textContent = '';
    done.textContent = '';
    const f = form.elements;
    const action = f.action.value;
    const body = { reason: f.reason.value, text: f.text.value };
    if (action === 'mark') {
      body.mark = f.mark.value;
      // The date is read as the start of that day, UTC.
      if (f.void.value) body.void_from_ms = Date.parse(`${f.void.value}T00:00:00Z`);
    }
    if (action === 'mute' || action === 'playban') body.minutes = Number(f.minutes.value);
    try {
      const entry = await api('POST', `/api/mod/accounts/${encodeURIComponent(f.account.value.trim())}/${action}`, body);
      done.textContent = `Done: ${entry.action} ${entry.account} (log entry ${entry.id}).`;
      done.dataset.id = entry.id;
    } catch (err) { failure(said, err); }
  });
  return form;
}

function logTab() {
  const box = h('div', { id: 'mod-log' });
  const list = h('ul', { class: 'list', id: 'mod-log-entries' });
  const said = h('p', { class: 'refusal', role: 'alert' });
  const more = h('button', { type: 'button', id: 'mod-log-more', hidden: true }, 'Older entries');
  let before = null;
  const load = async () => {
    said.textContent = '';
    try {
      const r = await api('GET', `/api/mod/log${before ? `?before=${before}` : ''}`);
      list.append(...r.entries.map(e => h('li', { dataset: { id: e.id, action: e.action } },
        `${dateText(e.at_ms)}: ${e.moderator} ${e.action} ${e.account || ''}${e.room ? ` room ${e.room}` : ''} (${e.reason})${e.text ? `: ${e.text}` : ''}`)));
      if (r.entries.length) before = r.entries[r.entries.length - 1].id;
      // A full page may have more behind it.
      more.hidden = r.entries.length < 100;
    } catch (err) { failure(said, err); }
  };
  more.addEventListener('click', load);
  load();
  put(box, list, said, more);
  return box;
}

function fairplayTab() {
  const out = h('div', { id: 'mod-fairplay-out' });
  const form = h('form', { class: 'row', id: 'mod-fairplay-form', 'aria-label': 'Fair-play review' },
    h('label', { for: 'mod-fp-game' }, 'Game'),
    h('select', { id: 'mod-fp-game', name: 'game' }, Object.entries(GAMES).map(([k, g]) => h('option', { value: k }, g.title))),
    h('button', { type: 'submit' }, 'Review'));
  form.addEventListener('submit', async e => {
    e.preventDefault();
    put(out, h('p', {}, 'Loading…'));
    try {
      const r = await api('GET', `/api/mod/fairplay?game=${encodeURIComponent(form.elements.game.value)}`);
      put(out,
        h('p', {}, `${r.counted} matches counted, ${r.tested} accounts tested (at least ${r.min} choices).`),
        h('h3', {}, 'Flagged'),
        r.flagged.length ? h('ul', { class: 'list', id: 'mod-flagged' }, r.flagged.map(f => h('li', {},
          h('a', { href: `#/player/${encodeURIComponent(f.name)}` }, f.name),
          ` ${f.agreed}/${f.choices} choices agreed (p = ${f.p_value.toExponential(2)}), ${f.games} games${f.mark ? `, marked ${f.mark}` : ''}: `,
          f.rooms.map((room, i) => [i ? ' ' : '', h('a', { href: `#/replay/${room}` }, room)])))) : h('p', { class: 'hint' }, 'Nobody flagged.'),
        h('h3', {}, 'Boosting'),
        r.boosting.length ? h('ul', { class: 'list', id: 'mod-boosting' }, r.boosting.map(b => h('li', {},
          h('a', { href: `#/player/${encodeURIComponent(b.name)}` }, b.name),
          ` ${b.wins} wins, ${b.losses} losses in ${b.early_results} early results; ${b.with_partner} with ${b.partner}`))) : h('p', { class: 'hint' }, 'No boosting signal.'));
    } catch (err) { put(out, h('p', { class: 'refusal', role: 'alert' }, explain(err).text)); }
  });
  return [form, out];
}

const TABS = [
  ['reports', 'Open reports', reportsTab],
  ['account', 'Act on an account', accountTab],
  ['log', 'Moderation log', logTab],
  ['fairplay', 'Fair-play review', fairplayTab],
];

export function showModPage(app, tab) {
  needPanelsStyle();
  const current = TABS.find(t => t[0] === tab) || TABS[0];
  put(app.main, h('section', { class: 'mod-screen' },
    h('h2', {}, 'Moderation'),
    h('nav', { class: 'row', 'aria-label': 'Moderation' }, TABS.map(([key, label]) =>
      h('a', { class: 'button', href: `#/mod/${key}`, id: `mod-tab-${key}`, 'aria-current': key === current[0] ? 'page' : undefined }, label))),
    current[2]()));
  return null;
}
