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
 * Where the server's piles stand on screen. The server lists the lesser
 * pile first, so after a move its A may be the pile drawn as B: the screen
 * keeps each pile where it was (matched by what the move left in it) and
 * starts over from the server's order after a reload or a missed step.
 * Returns whether the screen's A is the server's B.
 */
function placePiles(st, u) {
  const now = u.view.piles;
  const last = u.view.last;
  const seen = st.nimrod;
  let swapped = false;
  if (seen && u.seq === seen.seq) swapped = seen.swapped;
  else if (seen && last && u.seq === seen.seq + 1) {
    const shown = seen.swapped ? [seen.piles[1], seen.piles[0]] : seen.piles;
    const took = seen.swapped ? [last.take[1], last.take[0]] : last.take;
    const after = [shown[0] - took[0], shown[1] - took[1]];
    swapped = after[0] === now[1] && after[1] === now[0] && after[0] !== after[1];
  }
  st.nimrod = { seq: u.seq, piles: [now[0], now[1]], swapped };
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
  // [from the screen's A, from its B] <-> the server's [A, B].
  const server = ([x, y]) => (swapped ? [y, x] : [x, y]);
  const [a, b] = server(u.view.piles);
  const legal = u.legal || [];
  const isLegal = (x, y) => legal.some(m => m.take[0] === server([x, y])[0] && m.take[1] === server([x, y])[1]);
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
  // The last move's rods, on the pile they came from, when the position before it was on screen.
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
