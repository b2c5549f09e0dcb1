// A game's leaderboard (#/leaderboard/GAME?kind=human|bot): the server's
// established ratings, best first, people, bots or both. Provisional
// ratings are left out by the server; the page says so, and how to get
// rated when the board is empty.

import { h, put } from './dom.js';
import { api, explain } from './api.js';
import { GAMES, gameInfo } from './games.js';

/** Rows asked for: the server's default page. */
const ROWS = 50;

/** The switch's choices: the `kind` asked for ('' for all) and its label. */
const KINDS = [['human', 'People'], ['bot', 'Bots'], ['', 'All']];

/** The address of `game`'s leaderboard showing `kind`. */
export function boardHref(game, kind = '') {
  return `#/leaderboard/${game}${kind ? `?kind=${kind}` : ''}`;
}

function row(p) {
  return h('tr', { dataset: { name: p.name, rank: p.rank } },
    h('td', { class: 'num' }, String(p.rank)),
    h('th', { scope: 'row' }, h('a', { href: `#/player/${encodeURIComponent(p.name)}` }, p.name),
      p.kind === 'bot' ? h('span', { class: 'kind-tag' }, ' bot') : null),
    h('td', { class: 'num rating' }, String(Math.round(p.rating))),
    h('td', { class: 'num' }, String(Math.round(p.rd))),
    h('td', { class: 'num' }, String(p.games)));
}

function emptyState(game, kind) {
  const who = kind === 'bot' ? 'No bot has' : kind === 'human' ? 'Nobody has' : 'No player has';
  return h('div', { id: 'leaderboard-empty', class: 'empty-board' },
    h('p', {}, h('strong', {}, `${who} an established ${gameInfo(game).title} rating yet.`)),
    h('p', {}, 'To get rated: ', h('a', { href: '#/register' }, 'register'),
      ' (a person or a bot), then play rated games: "Play someone" on the lobby with "rated" ticked, or a rated challenge from a player\'s page. ',
      'Your rating is listed here once its RD is 110 or less, often after 10 to 20 rated games.'));
}

export function showLeaderboard(app, game, kind) {
  if (!Object.hasOwn(GAMES, game)) {
    put(app.main, h('section', { class: 'leaderboard-screen' }, h('h2', {}, 'Leaderboard'),
      h('p', { class: 'refusal', role: 'alert', id: 'leaderboard-error' }, `No game is called "${game}".`),
      h('p', {}, 'Leaderboards: ', Object.keys(GAMES).map(g => [h('a', { href: boardHref(g) }, GAMES[g].title), ' ']))));
    return null;
  }
  const title = gameInfo(game).title;
  // Which board it holds, so that a reader can tell it from the one before.
  const body = h('div', { id: 'leaderboard-body', dataset: { game, kind: kind || 'all' } }, h('p', {}, 'Loading…'));
  const games = h('nav', { class: 'board-games', 'aria-label': 'Leaderboards of the other games' },
    Object.entries(GAMES).map(([g, info]) => h('a', {
      href: boardHref(g, kind), class: 'button', 'aria-current': g === game ? 'page' : null,
    }, info.title)));
  const kinds = h('nav', { class: 'board-kinds', 'aria-label': 'Which players' },
    KINDS.map(([k, text]) => h('a', {
      href: boardHref(game, k), class: 'button', id: `kind-${k || 'all'}`, 'aria-current': k === kind ? 'page' : null,
    }, text)));
  put(app.main, h('section', { class: 'leaderboard-screen' },
    h('h2', { id: 'leaderboard-title' }, `${title} leaderboard`),
    games, kinds,
    h('p', { class: 'hint' }, 'Glicko-2 ratings from rated matches. Provisional ratings (an RD above 110, shown as 1500? on players\' pages) are not listed. ',
      'Every rating can be recomputed from the public ', h('a', { href: '/api/ratings/ledger' }, 'ratings ledger'), '. ',
      'Bots climb the ', h('a', { href: `#/ladder/${game}`, id: 'board-ladder-link' }, `${title} bot ladder`), '.'),
    body));

  let gone = false;
  (async () => {
    try {
      const q = kind ? `?kind=${kind}&limit=${ROWS}` : `?limit=${ROWS}`;
      const board = await api('GET', `/api/leaderboard/${game}${q}`);
      if (gone) return;
      const who = kind === 'bot' ? 'bots' : kind === 'human' ? 'people' : 'people and bots';
      put(body, board.players.length
        ? h('table', { class: 'board', id: 'leaderboard' },
          h('caption', {}, `${title}: the best established ratings of ${who}`),
          h('thead', {}, h('tr', {},
            h('th', { scope: 'col', class: 'num' }, 'Rank'),
            h('th', { scope: 'col' }, 'Player'),
            h('th', { scope: 'col', class: 'num' }, 'Rating'),
            h('th', { scope: 'col', class: 'num' }, h('abbr', { title: 'rating deviation: how sure the rating is (lower is surer)' }, 'RD')),
            h('th', { scope: 'col', class: 'num' }, 'Games'))),
          h('tbody', {}, board.players.map(row)))
        : emptyState(game, kind));
      body.dataset.loaded = 'yes';
    } catch (err) {
      if (gone) return;
      put(body, h('p', { class: 'refusal', role: 'alert', id: 'leaderboard-error' }, explain(err).text));
    }
  })();
  return () => { gone = true; };
}
