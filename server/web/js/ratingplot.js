// A rating's history in SVG: the rating after each rated game as a line,
// with a band of one rating deviation (RD) either side: the band narrows
// as the rating becomes surer. Every point is a circle carrying its values
// (data-game, data-n, data-rating, data-rd), so what is drawn can be read
// back exactly.

import { s } from './dom.js';

/** The drawing's width for a wide screen and for a phone, in SVG units: the text stays readable at either. */
export const PLOT_WIDE = 600;
export const PLOT_NARROW = 340;
const H = 240;
const PAD = { left: 48, right: 12, top: 12, bottom: 34 };
/** Rating steps the y axis may be marked in, the smallest that gives few enough lines. */
const Y_STEPS = [25, 50, 100, 200, 250, 500];
/** Most horizontal grid lines: more would crowd the 240-unit-high plot. */
const MAX_Y_LINES = 6;
/** Most game numbers written under the x axis. */
const MAX_X_LABELS = 8;
/** Fewer on a phone's narrower drawing. */
const MAX_X_LABELS_NARROW = 5;

/**
 * start: {rating, rd} before the first game (or null); points: [{n,
 * rating, rd}] oldest first; first: the game number of points[0] (1 when
 * the whole history is there); label: what the plot shows, in words;
 * width: PLOT_WIDE or PLOT_NARROW.
 */
export function ratingPlot({ start, points, first = 1, label, width = PLOT_WIDE }) {
  const W = width;
  // x is the player's game number in the pool; the start is the game before.
  const all = [
    ...(start ? [{ x: first - 1, rating: start.rating, rd: start.rd, start: true }] : []),
    ...points.map((p, i) => ({ ...p, x: first + i })),
  ];
  const xMin = all.length ? all[0].x : 0;
  const xMax = Math.max(xMin + 1, ...all.map(p => p.x));
  const lows = all.map(p => p.rating - p.rd);
  const highs = all.map(p => p.rating + p.rd);
  const lo0 = Math.min(...lows, 1500);
  const hi0 = Math.max(...highs, 1500);
  const widest = Y_STEPS[Y_STEPS.length - 1];
  const step = Y_STEPS.find(st => (hi0 - lo0) / st <= MAX_Y_LINES)
    ?? widest * Math.ceil((hi0 - lo0) / (MAX_Y_LINES * widest));
  const lo = Math.floor(lo0 / step) * step;
  const hi = Math.max(lo + step, Math.ceil(hi0 / step) * step);
  const X = x => PAD.left + ((x - xMin) / (xMax - xMin)) * (W - PAD.left - PAD.right);
  const Y = y => H - PAD.bottom - ((y - lo) / (hi - lo)) * (H - PAD.top - PAD.bottom);
  const f = v => v.toFixed(1);

  const yTicks = [];
  for (let t = lo; t <= hi; t += step) yTicks.push(t);
  const xEvery = Math.max(1, Math.ceil((xMax - xMin) / (W < PLOT_WIDE ? MAX_X_LABELS_NARROW : MAX_X_LABELS)));
  const xTicks = [];
  for (let x = xMin; x <= xMax; x += xEvery) xTicks.push(x);

  const band = all.length
    ? s('polygon', {
      class: 'rd-band',
      points: [...all.map(p => `${f(X(p.x))},${f(Y(p.rating + p.rd))}`),
        ...all.slice().reverse().map(p => `${f(X(p.x))},${f(Y(p.rating - p.rd))}`)].join(' '),
    })
    : null;
  return s('svg', { class: 'plot rating-plot', viewBox: `0 0 ${W} ${H}`, role: 'img', 'aria-label': label },
    yTicks.map(t => [
      s('line', { class: 'grid', x1: PAD.left, x2: W - PAD.right, y1: f(Y(t)), y2: f(Y(t)) }),
      s('text', { x: 4, y: f(Y(t) + 4) }, String(t)),
    ]),
    xTicks.map(x => s('text', { x: f(X(x) - 4), y: H - 18 }, String(x))),
    s('text', { x: W - PAD.right - 80, y: H - 4 }, 'rated games'),
    band,
    s('polyline', { class: 'line0', points: all.map(p => `${f(X(p.x))},${f(Y(p.rating))}`).join(' ') }),
    all.map(p => s('circle', {
      class: p.start ? 'dot start' : 'dot',
      cx: f(X(p.x)), cy: f(Y(p.rating)), r: 3,
      dataset: p.start ? { game: p.x, rating: p.rating, rd: p.rd }
        : { game: p.x, n: p.n, rating: p.rating, rd: p.rd },
    }, s('title', {}, p.start
      ? `before game ${p.x + 1}: ${Math.round(p.rating)} ± ${Math.round(p.rd)}`
      : `after game ${p.x}: ${Math.round(p.rating)} ± ${Math.round(p.rd)}`))));
}
