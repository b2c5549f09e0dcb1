// The bot ladders: #/ladder lists every game's; #/ladder/GAME shows the
// entrants best first with their ladder records, the games being played
// and the latest results. It asks again every few seconds while shown
// (not while the tab is hidden), as the event page does.

import { h, put } from './dom.js';
import { api, explain } from './api.js';
import { GAMES, gameInfo } from './games.js';
import { gameAction, playerLink } from './lib/links.js';
import { endText } from './eventwords.js';

/** How often the open page asks again: the ladder pairs every 2 s. */
const POLL_MS = 3000;

const RESULTS = { seat0: '1–0', seat1: '0–1', draw: '½–½', void: 'void' };

/** The winning seats of a result. */
const WINNERS = { seat0: [0], seat1: [1], draw: [] };

/** How a finished game ended, beside its result, when not played out. */
function endSpan(g) {
  const text = g.end && WINNERS[g.result] ? endText(g.end, g.seats, WINNERS[g.result]) : '';
  return text ? h('span', { class: 'end', dataset: { end: g.end } }, text) : null;
}

const col = (text, cls) => h('th', { scope: 'col', class: cls }, text);
const abbr = (text, title) => h('abbr', { title }, text);

function entrant(e, i) {
  const on = e.connected ? 'connected' : 'not connected';
  // A disconnected entrant stays listed, greyed, until it leaves.
  return h('tr', { class: e.connected ? null : 'away', dataset: { name: e.name, builtin: e.builtin } },
    h('td', { class: 'num' }, String(i + 1)),
    h('th', { scope: 'row' }, h('span', { class: `conn-dot${e.connected ? ' on' : ''}`, role: 'img', 'aria-label': on, title: on }), ' ',
      playerLink(e.name), e.builtin ? h('span', { class: 'kind-tag anchor', title: 'a built-in bot: a fixed point' }, 'anchor') : null),
    h('td', { class: 'num rating' }, `${Math.round(e.rating)}${e.provisional ? '?' : ''}`),
    h('td', { class: 'num wide' }, String(Math.round(e.rd))),
    h('td', { class: 'num wide' }, String(e.games)),
    h('td', { class: 'num' }, `${e.wins}–${e.losses}–${e.draws}`),
    h('td', { class: 'num' }, String(e.playing)));
}

/** The games being played (to watch) or the latest results (to replay). */
function gamesList(games, id, empty) {
  return games.length ? h('ul', { class: 'games', id }, games.map(g => h('li', { class: 'game', dataset: { room: g.room, result: g.result || '' } },
    h('span', { class: 'pair' }, playerLink(g.seats[0]), ' – ', playerLink(g.seats[1])),
    h('span', { class: `result${g.result ? '' : ' live'}` }, RESULTS[g.result] || 'playing'),
    endSpan(g),
    gameAction(g, null, g.seats.join(' against ')))))
    : h('p', { class: 'hint', id }, empty);
}

function ladderPage(l) {
  return [
    l.running ? null : h('p', { class: 'refusal', id: 'ladder-off' }, 'This server pairs no ladder games now.'),
    h('div', { class: 'table-wrap' }, h('table', { class: 'board', id: 'ladder' },
      h('caption', {}, 'Entrants, best rating first (? while provisional)'),
      h('thead', {}, h('tr', {}, col('Rank', 'num'), col('Bot'), col('Rating', 'num'), col(abbr('RD', 'rating deviation'), 'num wide'),
        col('Games', 'num wide'), col(abbr('W–L–D', 'wins, losses, draws'), 'num'), col(abbr('Now', 'games being played'), 'num'))),
      h('tbody', {}, l.entrants.map(entrant)))),
    h('h3', {}, `Being played (${l.playing.length})`), gamesList(l.playing, 'ladder-playing', 'None now.'),
    h('h3', {}, 'Latest results'), gamesList(l.recent, 'ladder-recent', 'No game has finished yet.'),
  ];
}

export function showLadder(app, game) {
  const title = game ? `${gameInfo(game).title} bot ladder` : 'Bot ladders';
  const body = h('div', { id: 'ladder-body' }, h('p', {}, 'Loading…'));
  put(app.main, h('section', { class: 'leaderboard-screen' }, h('h2', { id: 'ladder-title' }, title),
    h('nav', { class: 'board-games', 'aria-label': 'Each game\'s ladder' }, Object.entries(GAMES).map(([g, info]) =>
      h('a', { href: `#/ladder/${g}`, class: 'button', 'aria-current': g === game ? 'page' : null }, info.title))),
    h('p', { class: 'hint', id: 'ladder-how' }, 'Any bot account may enter: ',
      h('code', {}, `parlor bot --token T --ladder ${game || 'GAME'} --strategy S`), ', or ', h('code', {}, 'ladder_join'),
      ' over the protocol. While connected it is paired again and again, rated, with the entrant nearest its rating; anchors are the server\'s own bots. ',
      game ? h('a', { href: `#/leaderboard/${game}?kind=bot`, id: 'ladder-board-link' }, 'Bots\' leaderboard') : null),
    body));

  let gone = false;
  let drawn = '';
  const load = async () => {
    if (document.hidden || gone) return;
    try {
      const l = await api('GET', `/api/ladder${game ? `/${encodeURIComponent(game)}` : ''}`);
      const text = JSON.stringify(l);
      // Drawn again only when something changed, a focused link kept.
      if (gone || text === drawn) return;
      drawn = text;
      const at = body.contains(document.activeElement) && document.activeElement.getAttribute('href');
      put(body, game ? ladderPage(l) : h('ul', { id: 'ladders' }, l.map(x => h('li', { dataset: { game: x.game } },
        h('a', { href: `#/ladder/${x.game}` }, gameInfo(x.game).title), `: ${x.entrants} entrants, ${x.playing} being played`))));
      const again = at && body.querySelector(`a[href="${CSS.escape(at)}"]`);
      if (again) again.focus();
      body.dataset.loaded = 'yes';
    } catch (err) {
      if (gone || drawn) return;
      put(body, h('p', { class: 'refusal', role: 'alert', id: 'ladder-error' }, explain(err).text));
      // No such game: nothing to ask again for.
      if (err.status === 404) clearInterval(poll);
    }
  };
  load();
  const poll = setInterval(load, POLL_MS);
  document.addEventListener('visibilitychange', load);
  return () => { gone = true; clearInterval(poll); document.removeEventListener('visibilitychange', load); };
}
