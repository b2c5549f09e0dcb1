// An event's page (#/tournament/ID): what it is (game, format, clock,
// rated, duplicate, who may enter, the seed's commitment and, at the end,
// the seed), a countdown to the start (or to an arena's end), Join and
// Leave, the players, the standings and the rounds. While the event is
// upcoming or running the page asks again every couple of seconds (and at
// once when a round seats this account), but not while the tab is hidden.
// The event's chat (eventchat.js) is loaded once the event is shown, and
// kept across redraws.

import { h, put } from './dom.js';
import { clientSeed } from './net.js';
import { api, explain } from './api.js';
import { gameInfo } from './games.js';
import { clockText } from './clocks.js';
import { dateText } from './lib/dates.js';
import { KINDS, formatLong, leftText } from './eventwords.js';
import { crosstable, standingsTable, roundsList } from './eventtables.js';

/** How often a live event is asked for again. */
const POLL_MS = 2000;
/** How often the countdown is redrawn. */
const TICK_MS = 1000;

const STATUS = {
  upcoming: 'Upcoming: taking entries',
  running: 'Running',
  finished: 'Finished',
  cancelled: 'Cancelled',
};

/** The running event's line: which round, of how many. */
function statusText(e) {
  if (e.status === 'cancelled' && e.cancelled) return `Cancelled: ${e.cancelled}`;
  if (e.status !== 'running') return STATUS[e.status] || e.status;
  const n = e.rounds.length;
  if (e.format === 'arena') return `Running: ${n} wave${n === 1 ? '' : 's'} paired`;
  return `Running: round ${n || 1}${e.rounds_total ? ` of ${e.rounds_total}` : ''}`;
}

/** What the countdown counts to, if anything: [words, when]. */
function countdownTarget(e) {
  if (e.status === 'upcoming') return ['Starts in', e.starts_at_ms];
  if (e.status === 'running' && e.format === 'arena' && e.minutes) return ['Ends in', e.starts_at_ms + e.minutes * 60000];
  return null;
}

/** One option's value in words: `[3, 5]` "3, 5"; `{"random": {"min": 1, "max": 15}}` "random (min 1, max 15)". */
function optionValue(v) {
  if (Array.isArray(v)) return v.map(optionValue).join(', ');
  if (v && typeof v === 'object') {
    return Object.entries(v).map(([k, x]) => (x && typeof x === 'object' ? `${k} (${optionValue(x)})` : `${k} ${x}`)).join(', ');
  }
  return String(v);
}

function facts(e) {
  const row = (term, id, ...value) => [h('dt', {}, term), h('dd', { id }, ...value)];
  const options = e.options && typeof e.options === 'object' && Object.keys(e.options).length
    ? Object.entries(e.options).map(([k, v]) => `${k} ${optionValue(v)}`).join('; ')
    : null;
  return h('dl', { class: 'facts event-facts' },
    row('Game', 'event-game-name', gameInfo(e.game).title),
    options ? row('Options', 'event-options-text', options) : null,
    row('Format', 'event-format-text', formatLong(e)),
    row('Clock', 'event-clock-text', clockText(e.clock)),
    row('Rated', 'event-rated', e.rated ? 'yes' : 'no'),
    row('Duplicate deals', 'event-duplicate', e.duplicate ? 'yes: each pairing plays one deal from both seats' : 'no'),
    row('Open to', 'event-kind', KINDS[e.kind] || e.kind),
    row('Players', 'event-count', `${e.players.length} of at most ${e.max_players}`),
    row(e.status === 'upcoming' ? 'Starts' : 'Started', 'event-start', dateText(e.starts_at_ms)),
    row('Made by', 'event-by', h('a', { href: `#/player/${encodeURIComponent(e.created_by)}` }, e.created_by)),
    row('Commitment', 'event-commitment', h('code', {}, e.commitment)),
    e.seed ? row('Seed', 'event-seed', h('code', {}, e.seed)) : null);
}

export function showTournament(app, id) {
  const conn = app.conn;
  const section = h('section', { class: 'event-screen', id: 'event', 'aria-labelledby': 'event-name' },
    h('h2', { id: 'event-name' }, 'Tournament'), h('p', {}, 'Loading…'));
  put(app.main, section);
  const countdown = h('p', { class: 'countdown', id: 'countdown', role: 'timer' });
  const say = h('p', { class: 'refusal', role: 'alert', id: 'event-error' });
  let info = null;
  let drawn = '';
  let gone = false;
  let poll = null;
  /** The chat's place: one element, kept across redraws. */
  const chatSlot = h('div', { class: 'event-chat-slot', id: 'event-chat-slot' });
  let chat = null;
  const loadChat = () => {
    import('./eventchat.js').then(m => {
      if (!gone) { chat = m.eventChatPanel(app, id); put(chatSlot, chat.el); }
    }, () => {
      put(chatSlot, h('p', { class: 'refusal', role: 'alert' }, 'The chat could not be loaded: check the connection and reload the page.'));
    });
  };

  const tick = () => {
    const target = info && countdownTarget(info);
    countdown.hidden = !target;
    if (target) {
      const left = target[1] - Date.now();
      countdown.textContent = left > 0 ? `${target[0]} ${leftText(left)}` : 'Any moment now…';
    }
  };

  /** Takes our seat in a game being played (held for us), then opens it. */
  const play = async (room, seat) => {
    say.textContent = '';
    try {
      await conn.ask({ type: 'join', room, seat, client_seed: clientSeed() }, m => m.type === 'joined' && m.room === room);
    } catch (err) {
      if (err.code !== 'room/already_seated') { say.textContent = err.message; return; }
    }
    location.hash = `#/room/${room}`;
  };

  const enter = async what => {
    say.textContent = '';
    try {
      apply(await api('POST', `/api/tournaments/${encodeURIComponent(id)}/${what}`));
      const again = section.querySelector('#event-join, #event-leave');
      if (again) again.focus();
    } catch (err) { say.textContent = explain(err).text; }
  };

  const actions = e => {
    const me = conn.account && conn.account.name;
    if (!me) {
      return e.status === 'upcoming' || e.status === 'running'
        ? h('p', { class: 'hint' }, h('a', { href: '#/login' }, 'Log in'), ' to enter.') : null;
    }
    const p = e.players.find(x => x.name.toLowerCase() === me.toLowerCase());
    const canJoin = e.status === 'upcoming' || (e.status === 'running' && e.format === 'arena');
    if (p && !p.withdrawn && (e.status === 'upcoming' || e.status === 'running')) {
      const running = e.status === 'running';
      return h('div', { class: 'row' }, h('span', { class: 'entered' }, 'You are in.'),
        h('button', {
          id: 'event-leave',
          onclick: () => {
            // Leaving a running event forfeits the games still to come.
            if (running && !confirm('Withdraw? Your remaining games are forfeited.')) return;
            enter('leave');
          },
        }, running ? 'Withdraw' : 'Leave'));
    }
    return canJoin ? h('button', { id: 'event-join', class: 'primary', onclick: () => enter('join') }, p ? 'Come back' : 'Join') : null;
  };

  const draw = e => {
    const me = conn.account ? conn.account.name : null;
    const entrants = e.status === 'upcoming'
      ? [h('h3', {}, `Players (${e.players.length})`),
        e.players.length
          ? h('ol', { class: 'entrants', id: 'entrants' }, e.players.map(p => h('li', { dataset: { name: p.name } },
            h('a', { href: `#/player/${encodeURIComponent(p.name)}` }, p.name))))
          : h('p', { class: 'hint', id: 'entrants' }, 'Nobody has entered yet.')]
      : null;
    const ranked = e.standings.length && e.status !== 'upcoming';
    put(section,
      h('h2', { id: 'event-name' }, e.name),
      h('p', { class: 'event-status', id: 'event-status', dataset: { status: e.status } }, statusText(e)),
      countdown,
      actions(e), say,
      h('div', { class: 'event-body' },
        h('div', { class: 'event-main' },
          entrants,
          ranked ? [h('h3', {}, e.status === 'finished' ? 'Final standings' : 'Standings'), standingsTable(e, me)] : null,
          ranked && e.format === 'round-robin' ? [h('h3', {}, 'Crosstable'), crosstable(e)] : null,
          e.rounds.length ? [h('h3', {}, e.format === 'arena' ? 'Waves, latest first' : 'Rounds, latest first'), roundsList(e, me, play)] : null),
        h('aside', { class: 'event-about', 'aria-labelledby': 'event-about' },
          chatSlot,
          h('h3', { id: 'event-about' }, 'About this event'),
          facts(e),
          e.seed ? h('p', { class: 'hint' }, 'The seed is revealed: its SHA-256 is the commitment, and with it anyone can re-check every pairing and deal (',
            h('code', {}, `parlor verify-tournament ${e.id}`), ').') : null)));
    section.dataset.status = e.status;
    section.dataset.loaded = 'yes';
  };

  const apply = e => {
    if (!info) loadChat();
    info = e;
    // Drawn again only when something changed: a redraw moves a keyboard
    // user's focus and makes a screen reader start over.
    const text = JSON.stringify(e);
    if (text !== drawn) {
      drawn = text;
      const focused = document.activeElement && document.activeElement.id;
      draw(e);
      const again = focused && section.querySelector(`#${CSS.escape(focused)}`);
      if (again) again.focus();
    }
    tick();
    const live = e.status === 'upcoming' || e.status === 'running';
    if (!live && poll) { clearInterval(poll); poll = null; }
  };

  const load = async () => {
    if (document.hidden || gone) return;
    try {
      const e = await api('GET', `/api/tournaments/${encodeURIComponent(id)}`);
      if (!gone) apply(e);
    } catch (err) {
      if (gone) return;
      if (!info) put(section, h('h2', { id: 'event-name' }, 'Tournament'), h('p', { class: 'refusal', role: 'alert', id: 'event-error' }, explain(err).text));
      else say.textContent = explain(err).text;
    }
  };

  load();
  poll = setInterval(load, POLL_MS);
  const ticker = setInterval(tick, TICK_MS);
  const visible = () => { if (!document.hidden && poll) load(); };
  document.addEventListener('visibilitychange', visible);
  const offs = [
    conn.on('tournament_game', m => { if (m.tournament === id) load(); }),
  ];
  return () => {
    gone = true;
    clearInterval(poll);
    clearInterval(ticker);
    document.removeEventListener('visibilitychange', visible);
    offs.forEach(off => off());
    if (chat) chat.dispose();
  };
}
