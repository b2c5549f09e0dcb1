// An event's standings and its rounds as the event page draws them: the
// standings table (rank, player, points, the tie-break named and
// explained, games), a round robin's crosstable, and each round's games
// with their results, each linked to watch (being played), play (your
// own) or replay (over), the round's bye and an arena wave's players left
// waiting.

import { h } from './dom.js';
import { TIEBREAKS, endText, pointsText, roundName } from './eventwords.js';
import { gameAction, playerLink } from './lib/links.js';

/** Rounds drawn at most (an arena pairs wave after wave): the latest. */
const ROUNDS_SHOWN = 40;

export function standingsTable(info, me) {
  const [tbName, tbShort, tbText] = TIEBREAKS[info.tiebreak] || [info.tiebreak, info.tiebreak, 'the tie-break'];
  const withdrawn = new Set(info.players.filter(p => p.withdrawn).map(p => p.name));
  return h('div', { class: 'table-wrap' }, h('table', { class: 'board standings', id: 'standings' },
    h('caption', { class: 'sr-only' }, 'Standings, best first'),
    h('thead', {}, h('tr', {},
      h('th', { scope: 'col', class: 'num' }, 'Rank'),
      h('th', { scope: 'col' }, 'Player'),
      h('th', { scope: 'col', class: 'num' }, 'Points'),
      h('th', { scope: 'col', class: 'num' }, h('abbr', { title: `${tbName} tie-break` }, tbShort)),
      h('th', { scope: 'col', class: 'num' }, 'Games'))),
    h('tbody', {}, info.standings.map((s, i) => h('tr', {
      class: s.name === me ? 'me' : null,
      dataset: { name: s.name, points: s.points, tiebreak: s.tiebreak, games: s.games },
    },
    h('td', { class: 'num' }, String(i + 1)),
    h('th', { scope: 'row' }, playerLink(s.name, me), withdrawn.has(s.name) ? h('span', { class: 'kind-tag' }, ' withdrawn') : null),
    h('td', { class: 'num points' }, pointsText(s.points)),
    h('td', { class: 'num tiebreak' }, pointsText(s.tiebreak)),
    h('td', { class: 'num' }, String(s.games)))))),
  h('p', { class: 'hint', id: 'tiebreak' }, `Points: ${info.format === 'arena' ? 'a win 2, a draw 1, doubled after two wins in a row until a game is not won' : `a win 1, a draw ½${info.format === 'swiss' ? ', a bye 1' : ''}`}. Equal points are split by the ${tbName} tie-break (${tbShort}): ${tbText}.`));
}

/** A seat's score in a finished game: 1, ½ or 0. */
function score(g, seat) {
  const w = g.result.winners;
  return !w.length ? '½' : w.includes(seat) ? '1' : '0';
}

/**
 * A round robin's crosstable: each row's scores against each column's
 * player (in standings order), every score linked to its game's replay.
 */
export function crosstable(info) {
  const names = info.standings.map(s => s.name);
  const at = new Map(names.map((n, i) => [n, i]));
  const cells = names.map(() => names.map(() => []));
  for (const g of info.rounds.flat()) {
    const [a, b] = g.seats.map(n => at.get(n));
    if (!g.result || a === undefined || b === undefined) continue;
    cells[a][b].push([score(g, 0), g.room]);
    cells[b][a].push([score(g, 1), g.room]);
  }
  const cell = (i, j) => (i === j ? '—' : cells[i][j].map(([x, room], k) => [k ? ' ' : '', room
    ? h('a', { href: `#/replay/${room}`, 'aria-label': `${x} against ${names[j]}: replay` }, x) : x]));
  return h('div', { class: 'table-wrap' }, h('table', { class: 'board crosstable', id: 'crosstable' },
    h('caption', { class: 'sr-only' }, 'Crosstable: each row\'s scores against each column\'s player'),
    h('thead', {}, h('tr', {}, h('th', { scope: 'col' }, 'Player'),
      names.map((n, i) => h('th', { scope: 'col', class: 'num' }, h('abbr', { title: n }, String(i + 1)))))),
    h('tbody', {}, names.map((n, i) => h('tr', { dataset: { name: n } },
      h('th', { scope: 'row' }, `${i + 1}. ${n}`),
      names.map((_, j) => h('td', { class: 'num' }, cell(i, j))))))));
}

/** "1–0", "½–½", "playing": a game's result by seat. */
function resultText(g) {
  if (!g.result) return g.room ? 'playing' : '';
  return `${score(g, 0)}–${score(g, 1)}`;
}

/** How a finished game ended, when it was not played out ('' otherwise). */
export function endSpan(result, seats, winners) {
  const text = result && result.end ? endText(result.end, seats, winners) : '';
  return text ? h('span', { class: 'end', dataset: { end: result.end } }, text) : null;
}

/**
 * The rounds, latest first; `play(room, seat)` takes one's own seat in a
 * game being played.
 */
export function roundsList(info, me, play) {
  const numbered = info.rounds.map((games, i) => [i + 1, games]).reverse().slice(0, ROUNDS_SHOWN);
  const byePoints = info.format === 'swiss' ? ' (1 point)' : ' (no points)';
  return h('div', { id: 'rounds' },
    info.rounds.length > ROUNDS_SHOWN
      ? h('p', { class: 'hint' }, `The latest ${ROUNDS_SHOWN} of ${info.rounds.length}; every one is in the API's answer (/api/tournaments/${info.id}).`)
      : null,
    numbered.map(([n, games]) => {
      const name = roundName(info.format, n);
      const bye = info.byes[n - 1];
      const waiting = (info.waiting || [])[n - 1] || [];
      return h('section', { class: 'round', dataset: { round: n }, 'aria-label': name },
        h('h4', {}, name),
        h('ul', { class: 'games' }, games.map((g, b) => {
          const label = `${g.seats.join(' against ')}, ${name.toLowerCase()}`;
          return h('li', { class: 'game', dataset: { room: g.room || '', board: b, result: resultText(g) } },
            h('span', { class: 'pair' }, playerLink(g.seats[0], me), ' – ', playerLink(g.seats[1], me)),
            h('span', { class: `result${g.result ? '' : ' live'}` }, resultText(g)),
            endSpan(g.result, g.seats, g.result && g.result.winners),
            gameAction(g, me, label, play));
        })),
        bye ? h('p', { class: 'bye', dataset: { bye } }, 'Bye: ', playerLink(bye, me), byePoints) : null,
        waiting.length ? h('p', { class: 'waiting-list' }, 'Left waiting for a partner: ', waiting.map((w, i) => [i ? ', ' : '', playerLink(w, me)])) : null);
    }));
}
