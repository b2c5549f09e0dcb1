// Nimrod: two piles of rods drawn side by side; the legal moves as
// buttons by pile (pointing at a button marks the rods it takes).

import { h, s, put } from './dom.js';

/** Most rods drawn one by one; a bigger pile is drawn as a number. */
const MAX_DRAWN_RODS = 40;

function pileSvg(label, count) {
  const drawn = Math.min(count, MAX_DRAWN_RODS);
  const width = Math.max(120, drawn * 9 + 20);
  const rods = [];
  for (let i = 0; i < drawn; i++) {
    rods.push(s('rect', { x: 10 + i * 9, y: 20, width: 6, height: 60, rx: 2, class: 'rod', dataset: { from: drawn - i } }));
  }
  return s('svg', {
    class: 'pile', dataset: { pile: label }, viewBox: `0 0 ${width} 100`, width, height: 100,
    role: 'img', 'aria-label': `pile ${label}: ${count} rods`,
  },
  s('text', { x: 10, y: 14, class: 'pile-label' }, `Pile ${label}: ${count}`),
  rods,
  count > MAX_DRAWN_RODS ? s('text', { x: 10, y: 96, class: 'pile-more' }, `(${MAX_DRAWN_RODS} of ${count} drawn)`) : null);
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
  put(el,
    h('div', { class: 'piles' }, pileSvg('A', a), pileSvg('B', b)),
    last ? h('p', { class: 'last-move' }, `Last move: seat ${last.seat} took ${describe(last).replace(/^take /, '')}.`) : null,
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
