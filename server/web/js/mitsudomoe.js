// Mitsudomoe: the 5x5 board with ring stacks and balls, goals marked,
// and turns chosen on the board (click the squares a turn touches: the
// legal turns through them are listed and their squares outlined), from
// the legal list, or typed in the game's notation.

import { h, s, put } from './dom.js';

const CELL = 60;
const ROWS = 'ABCDE';

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

function board(v, pick) {
  const goals = {};
  for (const p of v.players) for (const g of p.goals) goals[g] = p.color;
  const cells = [];
  v.board.forEach((row, r) => row.forEach((cell, c) => {
    const name = `${ROWS[r]}${c + 1}`;
    const x = 20 + c * CELL;
    const y = 20 + r * CELL;
    const cls = ['sq', goals[name] ? `goal-${goals[name]}` : ''].join(' ');
    const onclick = pick ? () => pick(name) : null;
    cells.push(s('rect', { x, y, width: CELL, height: CELL, class: cls, dataset: { sq: name }, onclick }));
    cell.rings.forEach((ring, i) => {
      const rr = 24 - i * 5;
      if (rr > 4) cells.push(s('circle', { cx: x + CELL / 2, cy: y + CELL / 2, r: rr, class: `ring-${ring}` }),
        s('circle', { cx: x + CELL / 2, cy: y + CELL / 2, r: rr + 2, class: 'ring-outline' }));
    });
    if (cell.ball) cells.push(s('circle', { cx: x + CELL / 2, cy: y + CELL / 2, r: 9, class: `ball-${cell.ball}` }));
    if (cell.rings.length > 1) cells.push(s('text', { x: x + CELL - 12, y: y + 14, class: 'stack' }, cell.rings.length));
  }));
  const labels = [];
  for (let i = 0; i < 5; i++) {
    labels.push(s('text', { x: 6, y: 20 + i * CELL + CELL / 2 + 4, class: 'coord' }, ROWS[i]));
    labels.push(s('text', { x: 20 + i * CELL + CELL / 2 - 3, y: 14, class: 'coord' }, i + 1));
  }
  return s('svg', { class: 'mitsu', viewBox: `0 0 ${40 + 5 * CELL} ${40 + 5 * CELL}`, role: 'img', 'aria-label': `board: ${v.position}` },
    cells, labels);
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
  } : null;
  const input = h('input', { id: 'turn', size: 22, placeholder: '+C3 A4-C3', 'aria-label': 'your turn in notation' });
  const submit = e => {
    e.preventDefault();
    const mv = parse(input.value);
    if (!mv) { st.note = 'Write a turn as ring step then ball step, e.g. "+C3 A4-C3" or "B3-C3 A5-A3 xA4-E5".'; ctx.rerender(); return; }
    st.note = '';
    ctx.play(mv);
  };
  const players = v.players.map(p => `${p.color} (seat ${p.seat}${p.seat === u.you ? ', you' : ''}): ${p.supply} rings in supply`).join(' · ');
  const marked = () => {
    const reach = new Set(picked.length ? shown.flatMap(squares) : []);
    for (const r of el.querySelectorAll('rect.sq')) {
      r.classList.toggle('picked', picked.includes(r.dataset.sq));
      r.classList.toggle('can', reach.has(r.dataset.sq) && !picked.includes(r.dataset.sq));
    }
  };
  put(el,
    h('p', { class: 'hint' }, players),
    board(v, pick),
    v.last ? h('p', { class: 'last-move' }, `Last turn: seat ${v.last.seat} ${v.last.notation}`) : null,
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
      h('div', { class: 'legal-list', id: 'legal' }, shown.map(m => h('button', {
        onclick: () => ctx.play(m),
        onmouseenter: () => mark(m),
        onfocus: () => mark(m),
        onmouseleave: () => mark(null),
      }, describe(m)))),
    ] : null);
  marked();
}
