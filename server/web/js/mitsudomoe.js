// Mitsudomoe: the 5x5 board with ring stacks and balls, goals marked,
// and turns chosen on the board (click the squares a turn touches: the
// legal turns through them are listed and their squares outlined), from
// the legal list, or typed in the game's notation.

import { h, s, put } from './dom.js';
import { reduced } from './motion.js';
import { person } from './people.js';

const CELL = 60;
const ROWS = 'ABCDE';
/** The last turn's ball vaulting to its square, and its ring arriving. */
const VAULT_MS = 700;

/** "+C3 A4-C3", "B3-C3 A5-A3 xA4-E5": the notation of a turn. */
export function describe(move) {
  const ring = move.ring.from ? `${move.ring.from}-${move.ring.to}` : `+${move.ring.to}`;
  const ball = `${move.ball.from}-${move.ball.to}`;
  const rel = (move.relocate || []).map(r => ` x${r.from}-${r.to}`).join('');
  return `${ring} ${ball}${rel}`;
}

const SQ = '([A-Ea-e][1-5])';
const TURN = new RegExp(`^(?:\\+${SQ}|${SQ}-${SQ})\\s+${SQ}-${SQ}((?:\\s+x${SQ}-${SQ})*)$`);

/** The move a typed turn names, or null when it is not notation. */
export function parse(text) {
  const m = TURN.exec(text.trim());
  if (!m) return null;
  const up = x => x && x.toUpperCase();
  const relocate = [...(m[6] || '').matchAll(new RegExp(`x${SQ}-${SQ}`, 'g'))].map(r => ({ from: up(r[1]), to: up(r[2]) }));
  return {
    ring: m[1] ? { from: null, to: up(m[1]) } : { from: up(m[2]), to: up(m[3]) },
    ball: { from: up(m[4]), to: up(m[5]) },
    relocate,
  };
}

/** Every square a turn touches: its ring step, ball step and relocations. */
export function squares(move) {
  return [move.ring.from, move.ring.to, move.ball.from, move.ball.to,
    ...(move.relocate || []).flatMap(r => [r.from, r.to])].filter(Boolean);
}

/** The legal turns that touch every picked square. */
export function through(legal, picked) {
  return legal.filter(m => { const sq = squares(m); return picked.every(p => sq.includes(p)); });
}

/** Whether `seat`'s turn fills its home squares without winning: it loses at once (the anti-stalling rule). */
export function fillsHome(v, seat, move) {
  const me = v.players.find(p => p.seat === seat);
  if (!me) return false;
  const balls = new Map();
  v.board.forEach((row, r) => row.forEach((cell, c) => { if (cell.ball) balls.set(`${ROWS[r]}${c + 1}`, cell.ball); }));
  for (const st of [move.ball, ...(move.relocate || [])]) {
    balls.set(st.to, balls.get(st.from));
    balls.delete(st.from);
  }
  if (me.goals.every(g => balls.get(g) === me.color)) return false;
  return me.home.every(sq => balls.has(sq));
}

/** A square's centre in the drawing. */
function centre(name) {
  const r = ROWS.indexOf(name[0]);
  const c = Number(name.slice(1)) - 1;
  return { x: 20 + c * CELL + CELL / 2, y: 20 + r * CELL + CELL / 2 };
}

/** The last turn's path: the ring's step dashed, the ball's as an arc, relocations dotted. */
function path(m) {
  if (!m) return [];
  const arrow = (from, to, cls, lift) => {
    const a = centre(from);
    const b = centre(to);
    const mx = (a.x + b.x) / 2;
    const my = (a.y + b.y) / 2 - lift;
    return s('path', { d: `M${a.x},${a.y} Q${mx},${my} ${b.x},${b.y}`, class: `path ${cls}`, 'marker-end': 'url(#arrow)' });
  };
  return [
    m.ring.from ? arrow(m.ring.from, m.ring.to, 'ring-path', 0) : null,
    arrow(m.ball.from, m.ball.to, 'ball-path', 18),
    ...(m.relocate || []).map(r => arrow(r.from, r.to, 'relocate-path', 10)),
  ];
}

function board(v, pick, animate) {
  const goals = {};
  for (const p of v.players) for (const g of p.goals) goals[g] = p.color;
  const cells = [];
  v.board.forEach((row, r) => row.forEach((cell, c) => {
    const name = `${ROWS[r]}${c + 1}`;
    const x = 20 + c * CELL;
    const y = 20 + r * CELL;
    const cls = ['sq', goals[name] ? `goal-${goals[name]}` : ''].join(' ');
    const onclick = pick ? () => pick(name) : null;
    // Squares are picked from the keyboard too: Tab to one, Enter or Space.
    const onkeydown = pick ? e => {
      if (e.key !== 'Enter' && e.key !== ' ') return;
      e.preventDefault();
      pick(name);
    } : null;
    cells.push(s('rect', {
      x, y, width: CELL, height: CELL, class: cls, dataset: { sq: name }, onclick, onkeydown,
      tabindex: pick ? 0 : null, role: pick ? 'button' : null, 'aria-label': pick ? `square ${name}` : null,
    }));
    const last = v.last && v.last.move;
    // Rings stacked as seen from above: each lower one shows as a wider
    // rim (three at most; the count says how many).
    cell.rings.forEach((ring, i) => {
      const depth = cell.rings.length - 1 - i;
      if (depth > 2) return;
      const rr = 20 + depth * 3.5;
      const top = i === cell.rings.length - 1;
      const node = s('circle', { cx: x + CELL / 2, cy: y + CELL / 2, r: rr, class: `ring ring-${ring}${top && last && last.ring.to === name ? ' last' : ''}` });
      cells.push(s('circle', { cx: x + CELL / 2 + 1, cy: y + CELL / 2 + 2, r: rr + 2, class: 'ring-shadow' }), node);
      if (animate && top && last && last.ring.to === name) {
        node.animate([{ opacity: 0, transform: 'scale(1.3)' }, { opacity: 1, transform: 'none' }],
          { duration: VAULT_MS / 2, easing: 'ease-out' });
      }
    });
    if (cell.ball) {
      const ball = s('circle', { cx: x + CELL / 2, cy: y + CELL / 2, r: 10, class: `ball ball-${cell.ball}${last && last.ball.to === name ? ' last' : ''}` });
      cells.push(ball);
      if (animate && last && last.ball.to === name) {
        const from = centre(last.ball.from);
        const dx = from.x - (x + CELL / 2);
        const dy = from.y - (y + CELL / 2);
        ball.animate([
          { transform: `translate(${dx}px, ${dy}px)` },
          { transform: `translate(${dx / 2}px, ${dy / 2 - 26}px) scale(1.35)` },
          { transform: 'none' },
        ], { duration: VAULT_MS, easing: 'ease-in-out' });
      }
    }
    if (cell.rings.length > 1) cells.push(s('text', { x: x + CELL - 12, y: y + 14, class: 'stack' }, cell.rings.length));
  }));
  const labels = [];
  for (let i = 0; i < 5; i++) {
    labels.push(s('text', { x: 6, y: 20 + i * CELL + CELL / 2 + 4, class: 'coord' }, ROWS[i]));
    labels.push(s('text', { x: 20 + i * CELL + CELL / 2 - 3, y: 14, class: 'coord' }, i + 1));
  }
  // With squares to pick the board is a group of buttons, else a picture.
  return s('svg', { class: 'mitsu', viewBox: `0 0 ${40 + 5 * CELL} ${40 + 5 * CELL}`, role: pick ? 'group' : 'img', 'aria-label': `board: ${v.position}` },
    s('defs', {}, s('marker', { id: 'arrow', viewBox: '0 0 10 10', refX: 8, refY: 5, markerWidth: 5, markerHeight: 5, orient: 'auto-start-reverse' },
      s('path', { d: 'M0,0 L10,5 L0,10 z', class: 'arrow-head' }))),
    cells, path(v.last && v.last.move), labels);
}

const END_REASON = {
  all_on_goal: 'all three balls reached their goals',
  home_filled: 'the loser ended a turn with a ball on each of its own home squares (the anti-stalling rule)',
  no_turn: 'the loser had no legal turn',
  forfeit: 'the loser resigned or ran out of time',
  // Parlor's house rules, not the published game's.
  repetition: 'the same position came up for the third time (Parlor\'s house rule)',
  turn_limit: 'the room\'s turn limit was reached (Parlor\'s house rule)',
};

/** How the game ended, in words: a win or a house rule's draw. */
function ending(end) {
  const why = END_REASON[end.reason] || end.reason;
  if (!end.winner) return `Drawn: ${why}.`;
  return `${end.winner === 'black' ? 'Black' : 'White'} won: ${why}.`;
}

export function render(el, u, ctx) {
  const v = u.view;
  const st = ctx.state;
  /** Outlines the squares a turn's ball leaves and reaches. */
  const mark = m => {
    for (const r of el.querySelectorAll('rect.sq')) {
      r.classList.toggle('from', !!m && r.dataset.sq === m.ball.from);
      r.classList.toggle('to', !!m && r.dataset.sq === m.ball.to);
      r.classList.toggle('loses', !!m && r.dataset.sq === m.ball.to && loses(m));
    }
  };
  const legal = u.legal || [];
  // Squares picked on the board narrow the legal turns; a new position
  // starts again with none.
  if (st.pickedAt !== u.seq) { st.picked = []; st.pickedAt = u.seq; }
  const picked = st.picked;
  const shown = through(legal, picked);
  const pick = ctx.myTurn && legal.length ? name => {
    st.picked = picked.includes(name) ? picked.filter(p => p !== name) : [...picked, name];
    if (!through(legal, st.picked).length) st.picked = [name];
    ctx.rerender();
    const again = el.querySelector(`rect.sq[data-sq="${name}"]`);
    if (again) again.focus();
  } : null;
  const input = h('input', { id: 'turn', size: 22, placeholder: '+C3 A4-C3', 'aria-label': 'your turn in notation' });
  const submit = e => {
    e.preventDefault();
    const mv = parse(input.value);
    if (!mv) { st.note = 'Write a turn as ring step then ball step, e.g. "+C3 A4-C3" or "B3-C3 A5-A3 xA4-E5".'; ctx.rerender(); return; }
    st.note = '';
    ctx.play(mv);
  };
  const players = v.players.map(p => `${p.color} (${person(u, p.seat)}): ${p.supply} rings in supply`).join(' · ');
  const loses = m => u.you !== undefined && fillsHome(v, u.you, m);
  const losing = legal.filter(loses).length;
  const marked = () => {
    const reach = new Set(picked.length ? shown.flatMap(squares) : []);
    for (const r of el.querySelectorAll('rect.sq')) {
      r.classList.toggle('picked', picked.includes(r.dataset.sq));
      r.classList.toggle('can', reach.has(r.dataset.sq) && !picked.includes(r.dataset.sq));
    }
  };
  put(el,
    h('p', { class: 'hint' }, players),
    board(v, pick, ctx.fresh && v.last && v.last.seat !== u.you && !reduced()),
    v.last ? h('p', { class: 'last-move' }, `Last turn: ${person(u, v.last.seat)} ${v.last.notation}`) : null,
    v.max_turns ? h('p', { class: 'hint', id: 'turn-count' },
      `Turn ${v.turns} of ${v.max_turns} (then drawn)`
      + (!v.end && v.repeated && v.repeated.length
        ? ` · ${v.repeated.length} position${v.repeated.length > 1 ? 's' : ''} seen twice: a third time draws`
        : '')) : null,
    v.end ? h('p', { class: 'end', id: 'end-reason' }, ending(v.end)) : null,
    ctx.myTurn ? h('form', { class: 'row', onsubmit: submit },
      h('label', { for: 'turn' }, 'Your turn: '), input, h('button', { class: 'primary' }, 'Play'),
      st.note ? h('span', { class: 'refusal' }, st.note) : null) : null,
    ctx.myTurn && legal.length ? [
      h('h3', {}, picked.length
        ? `Legal turns through ${picked.join(', ')} (${shown.length} of ${legal.length}) `
        : `Legal turns (${legal.length}): click squares on the board to narrow them `,
      picked.length ? h('button', { id: 'unpick', onclick: () => { st.picked = []; ctx.rerender(); } }, 'clear') : null),
      losing ? h('p', { class: 'refusal', id: 'home-warning' },
        `⚠ ${losing} of these turns fill your home squares: that loses at once.`) : null,
      h('div', { class: 'legal-list', id: 'legal' }, shown.map(m => h('button', {
        class: loses(m) ? 'loses' : null,
        onclick: () => ctx.play(m),
        onmouseenter: () => mark(m),
        onfocus: () => mark(m),
        onmouseleave: () => mark(null),
      }, describe(m), loses(m) ? ' ⚠ loses' : ''))),
    ] : null);
  marked();
}
