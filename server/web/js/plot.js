// A line plot in SVG: one or more series over steps. Every point is a
// circle carrying its values (data-x, data-y), so what is drawn can be
// read back exactly.

import { s } from './dom.js';

const W = 600;
const H = 240;
const PAD = { left: 44, right: 12, top: 12, bottom: 28 };

/**
 * series: [{name, points: [[x, y], ...]}]; yMax: the top of the y axis
 * (yMin is 0); yLabel formats y-axis ticks; now: an x to mark.
 */
export function linePlot({ series, yMax, yTicks, yLabel = String, now = null, label }) {
  const xs = series.flatMap(sr => sr.points.map(p => p[0]));
  const xMax = Math.max(1, ...xs);
  const X = x => PAD.left + (x / xMax) * (W - PAD.left - PAD.right);
  const Y = y => H - PAD.bottom - (y / yMax) * (H - PAD.top - PAD.bottom);
  const grid = yTicks.map(t => [
    s('line', { class: 'grid', x1: PAD.left, x2: W - PAD.right, y1: Y(t), y2: Y(t) }),
    s('text', { x: 4, y: Y(t) + 4 }, yLabel(t)),
  ]);
  const lines = series.map((sr, i) => [
    s('polyline', { class: `line${i % 4}`, points: sr.points.map(([x, y]) => `${X(x)},${Y(y)}`).join(' ') }),
    sr.points.map(([x, y]) => s('circle', {
      class: `dot series${i}`, cx: X(x), cy: Y(y), r: 2.5, dataset: { series: i, x, y },
    }, s('title', {}, `${sr.name}: step ${x}, ${yLabel(y)}`))),
  ]);
  return s('svg', { class: 'plot', viewBox: `0 0 ${W} ${H}`, role: 'img', 'aria-label': label },
    grid,
    s('line', { class: 'axis', x1: PAD.left, x2: W - PAD.right, y1: Y(0), y2: Y(0) }),
    s('text', { x: W - PAD.right - 60, y: H - 6 }, `step (0–${xMax})`),
    now !== null ? s('line', { class: 'now', x1: X(now), x2: X(now), y1: PAD.top, y2: H - PAD.bottom }) : null,
    lines,
    series.length > 1 ? series.map((sr, i) => s('text', { x: PAD.left + 8 + i * 110, y: PAD.top + 10, class: `legend series${i}` }, `— ${sr.name}`)) : null);
}
