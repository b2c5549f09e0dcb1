// The tournaments page (#/tournaments): upcoming, running and finished
// events, each with its game, format, players, start or round, rated and
// who may enter; Join and Leave for signed-in players; and the form that
// creates one.

import { h, put } from './dom.js';
import { api, explain } from './api.js';
import { gameInfo } from './games.js';
import { dateText } from './lib/dates.js';
import { tournamentForm } from './tournamentform.js';
import { KINDS, eventHref, formatText, leftText, roundName } from './eventwords.js';

/** How often the open page asks again (events start, fill and end). */
const LIST_REFRESH_MS = 10000;

/** The lists the API answers with, in the order shown. */
const LISTS = [['upcoming', 'Upcoming'], ['running', 'Running'], ['finished', 'Finished']];

/** "starts 26 Nov 2026, 14:00 (in 4:32)", "round 2", "started …": where an event stands. */
function whenText(e) {
  if (e.status === 'upcoming') {
    const left = e.starts_at_ms - Date.now();
    return `starts ${dateText(e.starts_at_ms)}${left > 0 ? ` (in ${leftText(left)})` : ''}`;
  }
  if (e.status === 'running') return e.round ? `${roundName(e.format, e.round).toLowerCase()} under way` : 'starting';
  if (e.status === 'cancelled') return `cancelled (too few players on ${dateText(e.starts_at_ms)})`;
  return `started ${dateText(e.starts_at_ms)}`;
}

/**
 * Join, or "You are in" and Leave: the list says what a signed-in caller
 * entered (`entered`); the server says if one is refused (entered or left
 * elsewhere meanwhile).
 */
function entry(e, changed) {
  const say = h('span', { class: 'refusal', role: 'alert' });
  const box = h('span', { class: 'actions' });
  const draw = isIn => {
    const act = async (what, after) => {
      say.textContent = '';
      try {
        await api('POST', `/api/tournaments/${encodeURIComponent(e.id)}/${what}`);
        draw(after);
        changed(e.id);
      } catch (err) {
        // Already in (or out) from elsewhere: offer the other step.
        if (err.code === 'tournament/already_entered') draw(true);
        if (err.code === 'tournament/not_entered') draw(false);
        say.textContent = explain(err).text;
      }
    };
    put(box, isIn
      ? [h('span', { class: 'entered' }, 'You are in'), h('button', { class: 'leave-event', onclick: () => act('leave', false), 'aria-label': `Leave ${e.name}` }, 'Leave')]
      : h('button', { class: 'join-event', onclick: () => act('join', true), 'aria-label': `Join ${e.name}` }, 'Join'),
    say);
  };
  draw(Boolean(e.entered));
  return box;
}

function eventRow(app, e, changed) {
  const open = e.status === 'upcoming' || (e.status === 'running' && e.format === 'arena');
  return h('li', { class: `event ${e.status}`, dataset: { id: e.id, status: e.status } },
    h('a', { class: 'event-name', href: eventHref(e.id) }, e.name),
    h('span', { class: 'event-game' }, `${gameInfo(e.game).title} · ${formatText(e.format)}`),
    h('span', { class: 'event-players' }, `${e.players}/${e.max_players} players`),
    h('span', { class: 'event-when' }, whenText(e)),
    h('span', { class: 'event-tags' }, `${e.rated ? 'rated' : 'casual'} · open to ${KINDS[e.kind] || e.kind}`),
    app.conn.account && open ? entry(e, changed) : null);
}

export function showTournaments(app) {
  const body = h('div', { id: 'events-body' }, h('p', {}, 'Loading…'));
  const me = app.conn.account;
  const form = me ? tournamentForm(app) : null;
  // The form is below the lists: a way down to it (a hash link would route).
  const toForm = () => { form.scrollIntoView(); form.querySelector('input').focus({ preventScroll: true }); };
  put(app.main, h('section', { class: 'events-screen' },
    h('div', { class: 'row' }, h('h2', { id: 'events-title' }, 'Tournaments'),
      form ? h('button', { id: 'events-new', onclick: toForm }, 'New tournament') : null),
    h('p', { class: 'hint' }, 'Round robin, Swiss and arena events, for people, bots or both. ',
      'Each event publishes a commitment to its secret seed when it is made, and reveals the seed at its end: ',
      'anyone can then re-check every pairing and deal (parlor verify-tournament ID).'),
    body,
    form || h('p', { class: 'hint', id: 'events-sign-in' }, h('a', { href: '#/login' }, 'Log in'), ' or ',
      h('a', { href: '#/register' }, 'register'), ' to enter or create tournaments.')));

  let gone = false;
  const load = async () => {
    if (document.hidden) return;
    try {
      const lists = await api('GET', '/api/tournaments');
      if (gone) return;
      // Not redrawn while a button in it has the focus (a keyboard user's place).
      if (body.contains(document.activeElement) && body.dataset.loaded === 'yes') return;
      put(body, LISTS.map(([key, title]) => {
        const events = lists[key] || [];
        return h('section', { class: 'event-list', id: `events-${key}`, 'aria-labelledby': `events-${key}-title` },
          h('h3', { id: `events-${key}-title` }, `${title} (${events.length})`),
          events.length ? h('ul', { class: 'events' }, events.map(e => eventRow(app, e, changed)))
            : h('p', { class: 'hint' }, `No ${key} tournaments.`));
      }));
      body.dataset.loaded = 'yes';
    } catch (err) {
      if (!gone) put(body, h('p', { class: 'refusal', role: 'alert', id: 'events-error' }, explain(err).text));
    }
  };
  // After a join or leave: the counts again, the focus back on the row's button.
  const changed = async id => {
    body.dataset.loaded = '';
    await load();
    const button = body.querySelector(`li[data-id="${CSS.escape(id)}"] .actions button`);
    if (button) button.focus();
  };
  load();
  const timer = setInterval(load, LIST_REFRESH_MS);
  return () => { gone = true; clearInterval(timer); };
}
