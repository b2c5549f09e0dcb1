// Rummikub Lite: the table's rows laid as melds on felt, the rack as a
// wooden rack of tiles (sorted by number or by colour), moves made by
// selecting (lay a row, add a block to a row) or from the list of legal
// moves. Tiles carry a letter beside their colour. The last move's tiles
// stay marked; another player's slide onto the felt.

import { person } from './people.js';
import { h, put } from './dom.js';
import { reduced } from './motion.js';

/** A tile's slide onto the table. */
const SLIDE_MS = 500;

const COLORS = ['red', 'blue', 'yellow', 'black'];
const LETTER = { red: 'r', blue: 'b', yellow: 'y', black: 'k' };

const key = b => `${b.number}${LETTER[b.color]}`;
const byNumber = (a, b) => a.number - b.number || COLORS.indexOf(a.color) - COLORS.indexOf(b.color);
const byColor = (a, b) => COLORS.indexOf(a.color) - COLORS.indexOf(b.color);

/** A block as people see it: number over colour letter, in its colour. */
export function block(b, { class: extra, ...attrs } = {}, tag = 'span') {
  return h(tag, {
    ...attrs,
    class: `block ${b.color}${extra ? ` ${extra}` : ''}`,
    // The name holds what is written on the tile (number, letter), then the colour.
    'aria-label': `${b.number} ${LETTER[b.color].toUpperCase()} ${b.color}`,
    title: `${b.number} ${b.color}`,
  }, h('span', { class: 'n' }, b.number), ' ', h('span', { class: 'c' }, LETTER[b.color].toUpperCase()));
}

function rowKind(row) { return row.nrow ? 'nrow' : 'crow'; }
function rowBlocks(row) { return row.nrow || row.crow || []; }

/** "lay 2b 3b 4b", "add 8k to row 1", "draw", for people. */
export function describe(move, table = []) {
  if (move === 'draw' || move.draw !== undefined) return move.draw ? `draw ${key(move.draw)}` : 'draw';
  if (move.playrow) return `lay ${rowBlocks(move.playrow).map(key).join(' ')}`;
  if (move.playblock) {
    const { block: b, row } = move.playblock;
    // Before the move the row lacks the block; after it (a last move) it is the row.
    let at = table.findIndex(r => sameBlocks([...rowBlocks(r), b], rowBlocks(row)));
    if (at < 0) at = table.findIndex(r => sameBlocks(rowBlocks(r), rowBlocks(row)));
    return at >= 0 ? `add ${key(b)} to row ${at + 1}` : `add ${key(b)} making ${rowBlocks(row).map(key).join(' ')}`;
  }
  return JSON.stringify(move);
}

function sameBlocks(a, b) {
  return a.length === b.length && a.map(key).sort().join() === b.map(key).sort().join();
}

/** The row the selected blocks would make. */
function rowOf(blocks) {
  const sameNumber = blocks.every(b => b.number === blocks[0].number);
  return sameNumber ? { crow: blocks.slice().sort(byColor) } : { nrow: blocks.slice().sort(byNumber) };
}

/** `row` with `b` added, in the order the game keeps rows. */
function grown(row, b) {
  const kind = rowKind(row);
  const blocks = [...rowBlocks(row), b].sort(kind === 'nrow' ? byNumber : byColor);
  return { [kind]: blocks };
}

export function render(el, u, ctx) {
  const v = u.view;
  const st = ctx.state;
  if (st.seq !== u.seq) { st.seq = u.seq; st.selected = []; }
  const rack = v.rack || [];
  const legal = u.legal || [];
  const chosen = () => st.selected.map(i => rack[i]).filter(Boolean);
  const inLegal = new Set();
  for (const m of legal) {
    if (m.playrow) rowBlocks(m.playrow).forEach(b => inLegal.add(key(b)));
    if (m.playblock) inLegal.add(key(m.playblock.block));
  }
  const toggle = i => {
    st.selected = st.selected.includes(i) ? st.selected.filter(x => x !== i) : [...st.selected, i];
    ctx.rerender();
    const again = el.querySelector(`button.block[data-i="${i}"]`);
    if (again) again.focus();
  };
  const addTo = row => {
    const [b] = chosen();
    const match = legal.find(m => m.playblock && key(m.playblock.block) === key(b)
      && sameBlocks(rowBlocks(m.playblock.row), [...rowBlocks(row), b]));
    ctx.play(match || { playblock: { block: b, row: grown(row, b) } });
  };
  const one = ctx.myTurn && chosen().length === 1;
  const seats = u.seats.map((s, i) => `${person(u, i)}: ${v.rack_sizes[i]} blocks`).join(' · ');
  // The blocks the last move put on the table, to mark them.
  const lastMove = v.last && v.last.move;
  const lastKeys = new Set(lastMove && lastMove.playrow ? rowBlocks(lastMove.playrow).map(key)
    : lastMove && lastMove.playblock ? [key(lastMove.playblock.block)] : []);
  const slide = ctx.fresh && v.last && v.last.seat !== u.you && !reduced();
  // The rack in the order asked for (the server sends it sorted by number).
  const order = rack.map((b, i) => i);
  if (st.sort === 'color') order.sort((i, j) => byColor(rack[i], rack[j]) || rack[i].number - rack[j].number);
  const tileOnTable = b => {
    const t = block(b, lastKeys.has(key(b)) ? { class: 'last' } : {});
    if (slide && lastKeys.has(key(b))) {
      t.animate([{ transform: 'translateY(-40px) scale(1.2)', opacity: 0 }, { transform: 'none', opacity: 1 }],
        { duration: SLIDE_MS, easing: 'ease-out' });
    }
    return t;
  };

  put(el,
    h('p', { class: 'hint' }, `Bag: ${v.bag} blocks · ${seats}`),
    v.last ? h('p', { class: 'last-move' }, `Last move: ${person(u, v.last.seat)} ${describe(v.last.move, v.table)}${v.last.drew ? ` (you drew ${key(v.last.drew)})` : ''}.`) : null,
    h('h3', {}, 'Table'),
    h('div', { class: 'table-rows felt', id: 'table-rows' },
      v.table.length ? v.table.map((row, i) => h('div', {
        class: `table-row${one ? ' target' : ''}`,
        dataset: { row: i },
      },
      h('span', { class: 'label' }, `Row ${i + 1}`),
      h('span', { class: 'blocks meld' }, rowBlocks(row).map(tileOnTable)),
      one ? h('button', { class: 'add-here', onclick: () => addTo(row) }, `Add ${key(chosen()[0])} here`) : null))
        : h('p', { class: 'felt-label' }, 'No rows on the table yet.')),
    v.rack ? [
      h('div', { class: 'row rack-head' }, h('h3', {}, 'Your rack'),
        h('span', { class: 'sort', role: 'group', 'aria-label': 'Sort the rack' }, 'Sort: ',
          ['number', 'color'].map(k => h('button', {
            type: 'button', id: `sort-${k}`, 'aria-pressed': String((st.sort || 'number') === k),
            onclick: () => { st.sort = k; st.selected = []; ctx.rerender(); },
          }, k === 'number' ? '1-2-3' : 'colour')))),
      h('div', { class: 'blocks rack', id: 'rack' }, order.map(i => [rack[i], i]).map(([b, i]) => block(b, {
        class: `${st.selected.includes(i) ? 'selected' : ''} ${ctx.myTurn && inLegal.has(key(b)) ? 'playable' : ''}`.trim(),
        dataset: { i },
        'aria-pressed': st.selected.includes(i) ? 'true' : 'false',
        disabled: !ctx.myTurn,
        onclick: () => toggle(i),
      }, 'button'))),
    ] : null,
    ctx.myTurn ? h('div', { class: 'row' },
      h('button', { id: 'lay-row', class: 'primary', disabled: chosen().length < 3, onclick: () => ctx.play({ playrow: rowOf(chosen()) }) },
        'Lay the selected blocks as a row'),
      h('button', { id: 'draw', onclick: () => ctx.play('draw') }, 'Draw'),
      st.selected.length ? h('button', { onclick: () => { st.selected = []; ctx.rerender(); } }, 'Clear selection') : null) : null,
    ctx.myTurn && legal.length ? [
      h('h3', {}, 'Legal moves'),
      h('div', { class: 'legal-list', id: 'legal' }, legal.map(m => h('button', { onclick: () => ctx.play(m) }, describe(m, v.table)))),
    ] : null);
}
