// Cribbage's peg board in SVG: one lane per side, the holes in streets of
// 30 (groups of 5), serpentine, to the game hole at the target (121 or
// 61). Each side has two pegs: the front one at its score, the back one
// where the front stood before its last score, as players peg.

import { s } from './dom.js';
import { reduced } from './motion.js';

/** Holes per street: four streets for 121, two for 61. */
const STREET = 30;
/** Hole spacing and the gap between groups of five, in SVG units. */
const PITCH = 9;
const GROUP_GAP = 4;
const LANE = 8;
const STREET_GAP = 9;
const LEFT = 26;
const TOP = 10;
/** A peg's slide along the board. */
const PEG_MS = 700;

function width() {
  return LEFT + STREET * PITCH + (STREET / 5 - 1) * GROUP_GAP + 26;
}

/**
 * Where hole `score` is for `lane` of `lanes`: 0 is the start, left of
 * the first street; `target` is the game hole after the last street.
 */
export function hole(score, lane, lanes, target) {
  const streets = Math.ceil((target - 1) / STREET);
  const streetH = lanes * LANE + STREET_GAP;
  if (score <= 0) return { x: 10, y: TOP + lane * LANE };
  if (score >= target) return { x: width() - 10, y: TOP + (streets * streetH - STREET_GAP) / 2 - LANE / 2 };
  const i = score - 1;
  const street = Math.floor(i / STREET);
  const along = i % STREET;
  // Serpentine: odd streets run back from right to left.
  const col = street % 2 ? STREET - 1 - along : along;
  return {
    x: LEFT + col * PITCH + Math.floor(col / 5) * GROUP_GAP,
    y: TOP + street * streetH + lane * LANE,
  };
}

/**
 * The board. sides: [{name, front, back, before}] where `before` is the
 * front peg's hole in the board drawn last (it slides from there).
 */
export function pegBoard(sides, target) {
  const lanes = sides.length;
  const streets = Math.ceil((target - 1) / STREET);
  const h = TOP + streets * (lanes * LANE + STREET_GAP) - STREET_GAP + 8;
  const holes = [];
  for (let lane = 0; lane < lanes; lane++) {
    for (let score = 1; score < target; score++) {
      const p = hole(score, lane, lanes, target);
      holes.push(s('circle', { cx: p.x, cy: p.y, r: 1.6, class: `hole lane${lane}` }));
    }
    const st = hole(0, lane, lanes, target);
    holes.push(s('circle', { cx: st.x, cy: st.y, r: 1.6, class: 'hole' }));
  }
  const end = hole(target, 0, lanes, target);
  holes.push(s('circle', { cx: end.x, cy: end.y, r: 3.2, class: 'hole game-hole' }));
  const pegs = [];
  const slides = [];
  sides.forEach((side, lane) => {
    const back = hole(side.back, lane, lanes, target);
    const front = hole(side.front, lane, lanes, target);
    pegs.push(s('circle', { cx: back.x, cy: back.y, r: 3, class: `peg back side${lane}`, dataset: { side: lane, score: side.back } }));
    const peg = s('circle', {
      cx: front.x, cy: front.y, r: 3.4, class: `peg front side${lane}`, dataset: { side: lane, score: side.front },
    }, s('title', {}, `${side.name}: ${side.front}`));
    pegs.push(peg);
    if (side.before !== undefined && side.before !== side.front) {
      const from = hole(side.before, lane, lanes, target);
      slides.push([peg, from.x - front.x, from.y - front.y]);
    }
  });
  const svg = s('svg', {
    class: 'pegboard', id: 'pegboard', viewBox: `0 0 ${width()} ${h}`, role: 'img',
    'aria-label': `peg board to ${target}: ${sides.map(x => `${x.name} ${x.front}`).join(', ')}`,
  }, s('rect', { x: 0, y: 0, width: width(), height: h, rx: 6, class: 'board-wood' }), holes, pegs);
  // The front pegs slide from where they stood (after the board is in the page).
  if (!reduced()) {
    for (const [peg, dx, dy] of slides) {
      peg.animate([{ transform: `translate(${dx}px, ${dy}px)` }, { transform: 'translate(0, 0)' }],
        { duration: PEG_MS, easing: 'ease-in-out' });
    }
  }
  return svg;
}
