// Nimrod: two piles of rods drawn side by side; the rods the last move
// took stay as fading ghosts on top of their pile; the legal moves as
// buttons by pile (pointing at a button marks the rods it takes).

import { h, s, put } from './dom.js';
import { reduced } from './motion.js';
import { person } from './people.js';

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
 * Whether the screen's pile A is the server's B: the server lists the
 * lesser pile first, the screen keeps each pile where it was.
 */
function placePiles(st, u) {
  const [a, b] = u.view.piles;
  const was = st.nimrod;
  let swapped = false;
  if (was && u.seq === was.seq) swapped = was.swapped;
  else if (was && u.view.last && u.seq === was.seq + 1) {
    const [x, y] = u.view.last.take;
    const [p, q] = was.piles;
    // What the move left, in the screen's order.
    swapped = (was.swapped ? [q - y, p - x] : [p - x, q - y]).join() === `${b},${a}` && a !== b;
  }
  st.nimrod = { seq: u.seq, piles: [a, b], swapped };
  return swapped;
}

/** "take 2 from pile A", for people. */
export function describe(move) {
  const [x, y] = move.take;
  if (x && y) return `take ${x} from both piles`;
  if (x) return `take ${x} from pile A`;
  return `take ${y} from pile B`;
}

export function render(el, u, ctx) {
  const swapped = placePiles(ctx.state || {}, u);
  const server = ([x, y]) => (swapped ? [y, x] : [x, y]);
  const [a, b] = server(u.view.piles);
  const legal = u.legal || [];
  const isLegal = (x, y) => legal.some(m => `${m.take}` === `${server([x, y])}`);
  const button = (x, y, text) => h('button', {
    class: `move${isLegal(x, y) ? ' legal' : ''}`,
    disabled: !ctx.myTurn,
    dataset: { take: `${x},${y}` },
    'aria-label': describe({ take: [x, y] }),
    onclick: () => ctx.play({ take: server([x, y]) }),
    onmouseenter: () => mark(el, x, y),
    onfocus: () => mark(el, x, y),
    onmouseleave: () => mark(el, 0, 0),
    onblur: () => mark(el, 0, 0),
  }, text);
  const range = n => Array.from({ length: Math.min(n, MAX_DRAWN_RODS) }, (_, i) => i + 1);
  const last = u.view.last;
  const took = last ? server(last.take) : null;
  // The last move's rods, when the position before it was on screen.
  const [ta, tb] = ctx.before && last ? took : [0, 0];
  const fade = ctx.fresh && !reduced();
  put(el,
    h('div', { class: 'piles felt' }, pileSvg('A', a, ta, fade), pileSvg('B', b, tb, fade)),
    last ? h('p', { class: 'last-move' }, `Last move: ${person(u, last.seat)} took ${describe({ take: took }).replace(/^take /, '')}.`) : null,
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
