// A player's ratings on their page: for each game's pool the rating now
// (`?` while provisional) and its RD, the history plotted game by game,
// and the recent rated games with their opponents, result, change and a
// link to the replay.

import { changeText } from './ratingchange.js';
import { h } from './dom.js';
import { GAMES, gameInfo } from './games.js';
import { dateText } from './lib/dates.js';
import { ratingPlot, PLOT_WIDE, PLOT_NARROW } from './ratingplot.js';

/** Rated games listed per pool, newest first (the plot shows them all). */
const RECENT_SHOWN = 10;
/** Below this width (CSS px) the plot is drawn for a phone. */
const NARROW_BELOW_PX = 480;

/**
 * A figure holding the plot `draw(width)` makes, drawn again when the
 * figure crosses NARROW_BELOW_PX (a phone turned, a window resized).
 */
function plotFigure(id, draw, caption) {
  let drawnFor = null;
  const fig = h('figure', { class: 'rating-history', id }, draw(PLOT_WIDE), h('figcaption', { class: 'hint' }, caption));
  new ResizeObserver(entries => {
    const width = entries[0].contentRect.width < NARROW_BELOW_PX ? PLOT_NARROW : PLOT_WIDE;
    if (width === drawnFor) return;
    drawnFor = width;
    fig.querySelector('svg').replaceWith(draw(width));
  }).observe(fig);
  return fig;
}

function ordinal(n) {
  const tens = n % 100;
  if (tens >= 11 && tens <= 13) return `${n}th`;
  return `${n}${{ 1: 'st', 2: 'nd', 3: 'rd' }[n % 10] || 'th'}`;
}

/** "won", "lost, 2nd of 3", "drew": a game's result in words. */
function resultText(p) {
  if (p.result === 'drew' || p.players <= 2 || p.partners.length) return p.result;
  return `${p.result}, ${ordinal(p.place)} of ${p.players}`;
}

function signed(x) {
  return changeText(x);
}

function playerLinks(names) {
  return names.flatMap((n, i) => [i ? ', ' : '', h('a', { href: `#/player/${encodeURIComponent(n)}` }, n)]);
}

function recentTable(pool, points) {
  const title = gameInfo(pool).title;
  const recent = points.slice(-RECENT_SHOWN).reverse();
  return h('table', { class: 'board recent', id: `recent-${pool}` },
    h('caption', {}, `Recent rated ${title} games`),
    h('thead', {}, h('tr', {},
      h('th', { scope: 'col', class: 'ended' }, 'Ended'),
      h('th', { scope: 'col' }, 'Against'),
      h('th', { scope: 'col' }, 'Result'),
      h('th', { scope: 'col', class: 'num' }, 'Change'),
      h('th', { scope: 'col', class: 'num' }, 'Rating'),
      h('th', { scope: 'col' }, h('span', { class: 'sr-only' }, 'Replay')))),
    h('tbody', {}, recent.map(p => h('tr', { dataset: { n: p.n, room: p.room } },
      h('td', { class: 'ended' }, dateText(p.at_ms)),
      h('td', {}, playerLinks(p.opponents), p.partners.length ? [' (with ', playerLinks(p.partners), ')'] : null),
      h('td', { class: `result ${p.result}` }, resultText(p)),
      h('td', { class: `num change ${p.change >= 0 ? 'up' : 'down'}` }, signed(p.change)),
      h('td', { class: 'num' }, String(Math.round(p.rating))),
      h('td', {}, h('a', {
        href: `#/replay/${p.room}`, class: 'replay-link',
        'aria-label': `Replay of the game against ${p.opponents.join(', ')} that ended ${dateText(p.at_ms)}`,
      }, 'Replay'))))));
}

function poolSection(page, pool, history) {
  const r = page.ratings[pool];
  const title = gameInfo(pool).title;
  const id = `pool-${pool}`;
  const shown = `${Math.round(r.rating)}${r.provisional ? '?' : ''}`;
  const parts = [
    h('h4', { id: `${id}-h` }, title),
    h('p', { class: 'rating-now' },
      h('strong', { class: 'rating', id: `rating-${pool}`, title: r.provisional ? 'provisional rating' : 'rating' }, shown),
      ' ', h('span', { class: 'rd', id: `rd-${pool}` }, `RD ${Math.round(r.rd)}`),
      ` · ${r.games} rated game${r.games === 1 ? '' : 's'} · `,
      h('a', { href: `#/leaderboard/${pool}` }, `${title} leaderboard`)),
    r.provisional
      ? h('p', { class: 'hint' }, 'Provisional (the ?): the RD is above 110, so the rating is not sure yet and stays off the leaderboard.')
      : null,
  ];
  if (!history || history.error) {
    parts.push(h('p', { class: 'refusal', role: 'alert' }, `The history could not be read: ${(history && history.error) || 'no answer'}`));
  } else if (history.points.length) {
    const n = history.points.length;
    const first = history.truncated ? Math.max(1, r.games - n + 1) : 1;
    const from = history.truncated ? history.points[0] : history.start;
    parts.push(
      plotFigure(`history-${pool}`, width => ratingPlot({
        start: history.truncated ? null : history.start,
        points: history.points,
        first,
        width,
        label: `${page.name}'s ${title} rating after each of ${history.truncated ? `the last ${n}` : `their ${n}`} rated games: from ${Math.round(from.rating)} to ${Math.round(history.points[n - 1].rating)}`,
      }), `${title} rating after each rated game; the band is the rating plus or minus its RD.`),
      recentTable(pool, history.points));
  }
  return h('section', { class: 'pool', id, dataset: { pool }, 'aria-labelledby': `${id}-h` }, parts);
}

/** The ratings part of `page` (the player API's answer), with `histories` by pool. */
export function ratingsSection(page, histories) {
  const pools = Object.keys(GAMES).filter(g => page.ratings && page.ratings[g]);
  return h('section', { id: 'player-ratings', class: 'ratings', 'aria-labelledby': 'ratings-h' },
    h('h3', { id: 'ratings-h' }, 'Ratings'),
    pools.length
      ? pools.map(pool => poolSection(page, pool, histories[pool]))
      : h('p', { class: 'hint', id: 'no-ratings' }, 'No rated games yet. Rated games are played between accounts, through a rated seek or a rated challenge.'));
}
