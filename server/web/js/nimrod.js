// Nimrod: two piles of rods drawn side by side; the rods the last move
// took stay as fading ghosts on top of their pile; the legal moves as
// buttons by pile (pointing at a button marks the rods it takes).

import { h, s, put } from './dom.js';
import { reduced } from './motion.js';

/** Most rods drawn one by one; a bigger pile is drawn as a number. */
const MAX_DRAWN_RODS = 40;
/** Taken rods fade out over this long. */
const FADE_MS = 800;

function pileSvg(label, count, taken, fade) {
  const all = Math.min(count + taken, MAX_DRAWN_RODS);
  const width = Math.max(120, all * 9 + 20);
  const rods = [];
  for (let i = 0; i < all; i++) {
    const gone = i >= all - Math.min(taken, all);
    const rod = s('rect', {
      x: 10 + i * 9, y: 20, width: 6, height: 60, rx: 2,
      class: gone ? 'rod gone' : 'rod', dataset: gone ? { gone: 1 } : { from: Math.min(count, MAX_DRAWN_RODS) - i },
    });
    if (gone && fade) rod.animate([{ opacity: 1 }, { opacity: 0.18 }], { duration: FADE_MS, easing: 'ease-in' });
    rods.push(rod);
  }
  return s('svg', {
    class: 'pile', dataset: { pile: label }, viewBox: `0 0 ${width} 100`, width, height: 100,
    role: 'img', 'aria-label': `pile ${label}: ${count} rods${taken ? ` (${taken} just taken)` : ''}`,
  },
  s('text', { x: 10, y: 14, class: 'pile-label' }, `Pile ${label}: ${count}`),
  rods,
  count > MAX_DRAWN_RODS ? s('text', { x: 10, y: 96, class: 'pile-more' }, `(${MAX_DRAWN_RODS} of ${count} drawn)`) : null);
}

/**
 * How many rods the last move took from each pile as drawn now (the
 * server lists the lesser pile first, so piles may have traded places).
 */
function takenNow(before, now, take) {
  if (!before || !take) return [0, 0];
  const after = [before[0] - take[0], before[1] - take[1]];
  if (after[0] === now[0] && after[1] === now[1]) return [take[0], take[1]];
  if (after[0] === now[1] && after[1] === now[0]) return [take[1], take[0]];
  return [0, 0];
}

/** "take 2 from pile A", for people. */
export function describe(move) {
  const [x, y] = move.take;
  if (x && y) return `take ${x} from both piles`;
  if (x) return `take ${x} from pile A`;
  return `take ${y} from pile B`;
}

export function render(el, u, ctx) {
  const [a, b] = u.view.piles;
  const legal = u.legal || [];
  const isLegal = (x, y) => legal.some(m => m.take[0] === x && m.take[1] === y);
  const button = (x, y, text) => h('button', {
    class: `move${isLegal(x, y) ? ' legal' : ''}`,
    disabled: !ctx.myTurn,
    dataset: { take: `${x},${y}` },
    'aria-label': describe({ take: [x, y] }),
    onclick: () => ctx.play({ take: [x, y] }),
    onmouseenter: () => mark(el, x, y),
    onfocus: () => mark(el, x, y),
    onmouseleave: () => mark(el, 0, 0),
    onblur: () => mark(el, 0, 0),
  }, text);
  const range = n => Array.from({ length: Math.min(n, MAX_DRAWN_RODS) }, (_, i) => i + 1);
  const last = u.view.last;
  // The last move's rods, when the position before it was on screen.
  const [ta, tb] = ctx.before && last ? takenNow(ctx.before.piles, [a, b], last.take) : [0, 0];
  const fade = ctx.fresh && !reduced();
  put(el,
    h('div', { class: 'piles felt' }, pileSvg('A', a, ta, fade), pileSvg('B', b, tb, fade)),
    last ? h('p', { class: 'last-move' }, `Last move: ${last.seat === u.you ? 'you' : `seat ${last.seat}`} took ${describe(last).replace(/^take /, '')}.`) : null,
    ctx.myTurn ? h('div', { class: 'moves nimrod-moves' },
      h('div', { class: 'move-row' }, h('span', {}, 'From pile A:'), range(a).map(x => button(x, 0, x))),
      h('div', { class: 'move-row' }, h('span', {}, 'From pile B:'), range(b).map(y => button(0, y, y))),
      a > 0 ? h('div', { class: 'move-row' }, h('span', {}, 'From both:'), range(a).map(x => button(x, x, x))) : null)
      : null);
}

/** Marks the rods a move would take (the top `x` of A and `y` of B). */
function mark(el, x, y) {
  for (const [pile, n] of [['A', x], ['B', y]]) {
    for (const rod of el.querySelectorAll(`svg[data-pile="${pile}"] .rod`)) {
      rod.classList.toggle('taking', Number(rod.dataset.from) <= n);
    }
  }
}
