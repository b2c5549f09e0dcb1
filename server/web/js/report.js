// Reporting a player to the moderators (a small form in a dialog) and
// blocking one (a toggle), for a signed-in visitor: offered on players'
// pages, at a finished game's end and beside each chat line. Also the
// public moderation summary a player's page shows. Loaded with import()
// when first needed.

import { h, put } from './dom.js';
import { api, explain } from './api.js';
import { dateText } from './lib/dates.js';
import { needPanelsStyle } from './panelstyle.js';

needPanelsStyle();

/** Most characters in a report's text: the server's MAX_MOD_TEXT_CHARS. */
export const MAX_REPORT_TEXT_CHARS = 1000;

/** The reasons a player may give (the server's closed set). */
const REASONS = [
  ['cheat', 'Cheating (played with a program\'s help)'],
  ['abuse', 'Abuse (insults, harassment, threats)'],
  ['boost', 'Boosting (farming or sandbagging ratings)'],
  ['other', 'Other'],
];

/** What the server's refusals of a report or a block mean, for people. */
function refusalText(err) {
  switch (err.code) {
    case 'report/duplicate': return 'You have an open report about this player already: the moderators will read it.';
    case 'report/too_many': return `You filed as many reports as allowed in an hour: ${err.message}.`;
    default: return explain(err).text;
  }
}

/**
 * Opens the report form about `name` (the room filled in when given;
 * `about`, a message of an event's chat: `{event, message, quote}`).
 */
export function openReport(app, name, room, about) {
  const old = document.getElementById('report-dialog');
  if (old) old.remove();
  const said = h('p', { class: 'refusal', id: 'report-refusal', role: 'alert' });
  const done = h('p', { class: 'hint', id: 'report-done', 'aria-live': 'polite' });
  const form = h('form', { id: 'report-form', method: 'dialog' },
    h('h3', {}, `Report ${name}`),
    room ? h('p', { class: 'hint' }, `About room ${room}.`) : null,
    about ? h('p', { class: 'hint', id: 'report-about' }, `About their message in the event's chat: "${about.quote}"`) : null,
    h('fieldset', {}, h('legend', {}, 'Reason'),
      REASONS.map(([value, label], i) => h('div', {},
        h('label', {}, h('input', { type: 'radio', name: 'reason', value, id: `report-${value}`, checked: i === 0 }), ` ${label}`)))),
    h('label', { for: 'report-text' }, 'What happened (optional)'),
    h('textarea', { id: 'report-text', name: 'text', rows: 3, maxlength: MAX_REPORT_TEXT_CHARS }),
    said, done,
    h('div', { class: 'row' },
      h('button', { type: 'submit', class: 'primary', id: 'report-submit' }, 'Send the report'),
      h('button', { type: 'button', id: 'report-close', onclick: () => dialog.close() }, 'Close')));
  const dialog = h('dialog', { class: 'report', id: 'report-dialog', 'aria-label': `Report ${name}` }, form);
  dialog.addEventListener('close', () => dialog.remove());
  form.addEventListener('submit', async e => {
    e.preventDefault();
    said.textContent = '';
    done.textContent = '';
    const body = { player: name, reason: form.elements.reason.value, text: form.elements.text.value };
    if (room) body.room = room;
    if (about) { body.event = about.event; body.message = about.message; }
    try {
      const r = await api('POST', '/api/reports', body);
      done.textContent = 'Thank you: the moderators will read your report.';
      done.dataset.id = r.id;
    } catch (err) {
      said.textContent = refusalText(err);
      said.dataset.code = err.code;
    }
  });
  document.body.append(dialog);
  dialog.showModal();
  return dialog;
}

/**
 * Report and Block buttons about `name`, for a signed-in visitor who is
 * not `name` (null otherwise). The block's state is read from the
 * visitor's own list.
 */
export function playerActions(app, name, room) {
  const me = app.conn.account;
  if (!me || me.name.toLowerCase() === name.toLowerCase()) return null;
  // Ids on the player's page only: a room's end may list several players.
  const id = what => (room ? undefined : what);
  const said = h('p', { class: 'refusal', id: id('block-refusal'), role: 'alert' });
  let blocked = false;
  const block = h('button', { type: 'button', id: id('block-toggle'), 'aria-pressed': 'false', disabled: true, dataset: { player: name } }, 'Block');
  const draw = () => {
    block.textContent = `${blocked ? 'Unblock' : 'Block'}${room ? ` ${name}` : ''}`;
    block.setAttribute('aria-pressed', String(blocked));
    block.dataset.blocked = blocked ? 'yes' : 'no';
  };
  api('GET', '/api/blocks').then(r => {
    blocked = (r.blocks || []).some(b => b.player.toLowerCase() === name.toLowerCase());
    block.disabled = false;
    draw();
  }, err => { said.textContent = explain(err).text; });
  block.addEventListener('click', async () => {
    said.textContent = '';
    block.disabled = true;
    try {
      await api(blocked ? 'DELETE' : 'POST', `/api/blocks/${encodeURIComponent(name)}`);
      blocked = !blocked;
      draw();
    } catch (err) {
      said.textContent = explain(err).text;
      said.dataset.code = err.code;
    } finally { block.disabled = false; }
  });
  return h('div', { class: 'row player-actions' },
    h('button', { type: 'button', id: id('report-open'), class: 'report-open', dataset: { player: name }, onclick: () => openReport(app, name, room) },
      room ? `Report ${name}` : 'Report'),
    block, said);
}

const WHY = { fair_play: 'fair-play violation', boosting: 'boosting', abuse: 'abuse', spam: 'spam', name: 'an unacceptable name', request: 'the player\'s request', mistake: 'a mistake', other: 'another reason' };

const DONE = {
  close: 'Account closed', reopen: 'Account reopened', mark: 'Marked', unmark: 'Mark lifted', mute: 'Muted', playban: 'Banned from play',
};

/** The public moderation summary of a player's page (null when there is nothing to say). */
export function moderationSummary(m) {
  if (!m || (!m.closed && !m.mark && !(m.history || []).length)) return null;
  const box = h('div', { class: 'mod-summary', id: 'player-moderation' });
  const marks = { engine: 'engine', booster: 'booster' };
  put(box,
    m.closed ? h('p', { id: 'player-closed' }, h('strong', {}, 'This account is closed.')) : null,
    m.mark ? h('p', {}, 'Mark: ', h('span', { class: 'badge-mark', id: 'player-mark' }, marks[m.mark] || String(m.mark))) : null,
    (m.history || []).length ? h('ul', { id: 'player-mod-history' }, m.history.map(e =>
      h('li', {}, `${DONE[e.action] || e.action} for ${e.why || WHY[e.reason] || e.reason} on ${dateText(e.at_ms)}`))) : null);
  return box;
}
