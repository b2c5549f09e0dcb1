// A player's page (#/player/NAME): name, kind, joined, games; their
// rating in each game's pool with its history plotted and their recent
// rated games; and, for a signed-in visitor other than the player, a
// challenge form (#/player/NAME?challenge=GAME: set to GAME, focused),
// Follow, Report and Block; and the public moderation summary (closed,
// marked) when there is one.

import { h, put } from './dom.js';
import { api, explain } from './api.js';
import { GAMES } from './games.js';
import { CLOCKS, clockOf } from './clocks.js';
import { dateText } from './lib/dates.js';
import { ratingsSection } from './playerratings.js';

/** A record reads played, won, drawn, lost; counts not named here follow. */
const RECORD = ['played', 'won', 'drawn', 'lost'];
const rank = k => (RECORD.indexOf(k) + 5) % 5;

function gamesList(games) {
  const entries = Object.entries(games || {});
  if (!entries.length) return h('p', { class: 'hint', id: 'player-games' }, 'No finished games recorded yet.');
  const words = v => (typeof v === 'object' && v !== null
    ? Object.entries(v).sort(([a], [b]) => rank(a) - rank(b)).map(([k, n]) => `${n} ${k}`).join(', ')
    : String(v));
  return h('ul', { id: 'player-games' }, entries.map(([g, v]) =>
    h('li', {}, h('strong', {}, (GAMES[g] && GAMES[g].title) || g), `: ${words(v)}`)));
}

function challengeForm(app, name) {
  const form = h('form', { class: 'create challenge-form', id: 'challenge-form', 'aria-label': `Challenge ${name}` },
    h('h3', {}, `Challenge ${name}`),
    h('div', { class: 'row' },
      h('label', { for: 'challenge-game' }, 'Game'),
      h('select', { id: 'challenge-game', name: 'game' }, Object.entries(GAMES).map(([k, g]) => h('option', { value: k }, g.title))),
      h('label', { for: 'challenge-clock' }, 'Clock'),
      h('select', { id: 'challenge-clock', name: 'clock' }, CLOCKS.map(c => h('option', { value: c.value }, c.label))),
      h('label', {}, h('input', { type: 'checkbox', name: 'rated', id: 'challenge-rated' }), ' rated')),
    h('p', { class: 'form-error refusal', role: 'alert' }),
    h('button', { type: 'submit', class: 'primary', id: 'challenge-submit' }, 'Challenge'));
  form.addEventListener('submit', async e => {
    e.preventDefault();
    const say = form.querySelector('.form-error');
    say.textContent = '';
    const msg = { to: name, game: form.elements.game.value, seats: 2, rated: form.elements.rated.checked };
    const clock = clockOf(form.elements.clock.value);
    if (clock) msg.clock = clock;
    try {
      await app.challenge(msg);
      say.textContent = '';
    } catch (err) { say.textContent = err.message; say.dataset.code = err.code; }
  });
  return form;
}

export function showPlayer(app, name) {
  const section = h('section', { class: 'player-screen' }, h('h2', {}, name), h('p', {}, 'Loading…'));
  put(app.main, section);
  let gone = false;
  const draw = async () => {
    try {
      const p = await api('GET', `/api/players/${encodeURIComponent(name)}`);
      // Each rated pool's history, asked for at once.
      const pools = Object.keys(p.ratings || {});
      const histories = await Promise.all(pools.map(pool =>
        api('GET', `/api/players/${encodeURIComponent(p.name)}/history?pool=${encodeURIComponent(pool)}`)
          .catch(err => ({ error: explain(err).text }))));
      if (gone) return;
      // Report, Block and the moderation summary: a module of their own,
      // loaded with the page's answer (not prefetched with the lobby).
      const extras = h('div', { class: 'player-extras' });
      import('./report.js').then(m => {
        put(extras, m.moderationSummary(p.moderation), m.playerActions(app, p.name));
        extras.dataset.loaded = 'yes';
      }, () => { extras.textContent = 'Part of this page could not be loaded: reload it.'; });
      const me = app.conn.account;
      const self = me && me.name.toLowerCase() === p.name.toLowerCase();
      const follow = h('div', {});
      if (me && !self) import('./following.js').then(m => follow.replaceWith(m.followButton(app, p.name)), () => {});
      put(section,
        h('h2', { id: 'player-name' }, p.name),
        h('dl', { class: 'facts' },
          h('dt', {}, 'Kind'), h('dd', { id: 'player-kind' }, p.kind === 'bot' ? 'bot' : 'person'),
          h('dt', {}, 'Joined'), h('dd', { id: 'player-joined' }, dateText(p.created))),
        self ? h('p', { class: 'hint' }, 'This is you.')
          : me ? challengeForm(app, p.name)
            : h('p', { class: 'hint' }, h('a', { href: '#/login' }, 'Log in'), ` to challenge ${p.name}.`),
        follow, extras,
        ratingsSection(p, Object.fromEntries(pools.map((pool, i) => [pool, histories[i]]))),
        h('h3', {}, 'Games'), gamesList(p.games));
      const game = new URLSearchParams(location.hash.split('?')[1]).get('challenge');
      const pick = section.querySelector('#challenge-game');
      if (game !== null && pick) {
        if (GAMES[game]) pick.value = game;
        pick.focus();
      }
    } catch (err) {
      if (gone) return;
      put(section, h('h2', {}, name), h('p', { class: 'refusal', role: 'alert', id: 'player-error' }, explain(err).text));
    }
  };
  draw();
  return () => { gone = true; };
}
