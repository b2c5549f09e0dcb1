// A finished match, step by step: a slider over the log's moves, the
// position where it can be rebuilt from the log, and plots: Rummikub's
// exact win chance after each move (the server's predict).

import { h, put } from './dom.js';
import { gameInfo } from './games.js';
import { linePlot } from './plot.js';
import * as rummikub from './rummikub.js';

function actionText(game, action) {
  if (action === 'forfeit') return 'forfeits';
  const mv = action.move ?? action.timeout_move;
  const mod = gameInfo(game).module;
  const text = mod && mod.describe ? mod.describe(mv) : JSON.stringify(mv);
  return action.timeout_move !== undefined ? `ran out of time; played for them: ${text}` : text;
}

/** Nimrod piles after each step, when the log's options give the piles. */
function nimrodPositions(log) {
  const start = log.header.options && log.header.options.piles;
  if (!start) return null;
  let piles = start.slice().sort((a, b) => a - b);
  const out = [piles];
  for (const m of log.moves) {
    const mv = m.action.move;
    if (mv) piles = [piles[0] - mv.take[0], piles[1] - mv.take[1]].sort((a, b) => a - b);
    out.push(piles);
  }
  return out;
}

/** Rummikub's table and rack sizes after each step, from predict's replay (which names drawn blocks). */
function rummikubPositions(log, replay) {
  const seats = log.header.seats;
  let racks = Array(seats).fill(log.header.options.rack_size);
  let bag = 52 - seats * log.header.options.rack_size;
  let table = [];
  const out = [{ table, racks, bag }];
  log.moves.forEach((m, i) => {
    const mv = m.action.move ?? m.action.timeout_move;
    racks = racks.slice();
    if (mv === 'draw' || (replay && replay[i + 1] && replay[i + 1].action.draw)) { racks[m.seat]++; bag--; }
    else if (mv && mv.playrow) { table = [...table, mv.playrow]; racks[m.seat] -= 3; }
    else if (mv && mv.playblock) {
      const { row } = mv.playblock;
      const kind = row.nrow ? 'nrow' : 'crow';
      const n = row[kind].length - 1;
      const at = table.findIndex(r => (r[kind] || []).length === n
        && (r[kind] || []).every(b => row[kind].some(x => x.number === b.number && x.color === b.color)));
      table = table.map((r, j) => (j === at ? row : r));
      racks[m.seat]--;
    }
    out.push({ table, racks, bag });
  });
  return out;
}

export function showReplay(app, room) {
  const conn = app.conn;
  const box = h('section', { class: 'replay-screen' }, h('h2', {}, `Replay of room ${room}`), h('p', { id: 'replay-status' }, 'Loading the log…'));
  put(app.main, box);
  let live = true;

  const draw = (log, predict) => {
    const g = gameInfo(log.header.game);
    const n = log.moves.length;
    const slider = h('input', { type: 'range', min: 0, max: n, value: n, id: 'step', 'aria-label': 'step' });
    const where = h('div', { class: 'panel', id: 'position' });
    const steps = h('ol', { class: 'steps', start: 1 }, log.moves.map((m, i) => h('li', { dataset: { step: i + 1 } },
      `seat ${m.seat}: ${actionText(log.header.game, m.action)}`)));
    const plotBox = h('div', { class: 'panel', id: 'plot' });
    const nimrod = log.header.game === 'nimrod' ? nimrodPositions(log) : null;
    const rummy = log.header.game === 'rummikub' ? rummikubPositions(log, predict) : null;

    const show = () => {
      const k = Number(slider.value);
      for (const li of steps.children) li.classList.toggle('current', Number(li.dataset.step) === k);
      const cur = steps.querySelector('.current');
      if (cur) cur.scrollIntoView({ block: 'nearest' });
      const parts = [h('p', { id: 'step-text' }, k === 0 ? 'Before the first move.' : `After step ${k}: seat ${log.moves[k - 1].seat} ${actionText(log.header.game, log.moves[k - 1].action)}.`)];
      if (nimrod) parts.push(h('p', { class: 'piles-text' }, `Piles: A ${nimrod[k][0]}, B ${nimrod[k][1]}`));
      if (rummy) {
        const p = rummy[k];
        parts.push(h('p', { class: 'hint' }, `Bag ${p.bag} · racks ${p.racks.map((r, i) => `seat ${i}: ${r}`).join(', ')}`),
          h('div', { class: 'table-rows' }, p.table.map((row, i) => h('div', { class: 'table-row' },
            h('span', { class: 'label' }, `Row ${i + 1}`),
            h('span', { class: 'blocks' }, (row.nrow || row.crow).map(b => rummikub.block(b)))))));
      }
      if (predict) {
        const r = predict[k];
        if (r) parts.push(h('p', { id: 'win-chance' }, `Seat 0's exact win chance here: ${(r.win_fraction * 100).toFixed(1)}%`));
        put(plotBox, h('h3', {}, 'Seat 0\'s win chance after each move (exact, from the server\'s predict)'),
          linePlot({
            series: [{ name: 'seat 0 wins', points: predict.map(x => [x.ply, x.win_fraction]) }],
            yMax: 1, yTicks: [0, 0.25, 0.5, 0.75, 1], yLabel: y => `${Math.round(y * 100)}%`, now: k,
            label: 'win chance of seat 0 by step',
          }));
      }
      put(where, parts);
    };
    slider.addEventListener('input', show);
    const outcome = log.outcome ? (log.outcome.result === 'draw' ? 'Drawn.' : `Won by seat ${log.outcome.winners.join(' and ')}.`) : `Closed: ${log.closed}.`;
    put(box,
      h('h2', {}, `Replay: ${g.title}, room ${room}`),
      h('p', { id: 'replay-status' }, `${n} steps. ${outcome}`),
      h('label', { for: 'step' }, 'Step '), slider,
      h('div', { class: 'row' },
        h('button', { onclick: () => { slider.value = Math.max(0, slider.value - 1); show(); } }, '◀ back'),
        h('button', { onclick: () => { slider.value = Math.min(n, Number(slider.value) + 1); show(); } }, 'forward ▶')),
      where, plotBox, h('h3', {}, 'Moves'), steps,
      h('a', { class: 'button', href: '#/' }, 'Lobby'));
    if (!predict) plotBox.remove();
    show();
  };

  (async () => {
    try {
      const log = await conn.ask({ type: 'get_log', room }, m => m.type === 'log' && m.room === room);
      let predict = null;
      if (log.header.game === 'rummikub' && log.header.seats === 2) {
        // The log comes again before the analysis: wait for the analysis.
        const reply = await conn.ask({ type: 'get_log', room, predict: true },
          m => m.type === 'analysis' && m.game === 'rummikub').catch(e => ({ error: e }));
        if (!reply.error) predict = reply.results;
        else if (live) box.append(h('p', { class: 'refusal' }, `No win-chance plot: ${reply.error.message}`));
      }
      if (live) draw(log, predict);
    } catch (e) {
      if (live) put(box, h('h2', {}, `Replay of room ${room}`), h('p', { class: 'refusal', role: 'alert' }, e.message), h('a', { class: 'button', href: '#/' }, 'Lobby'));
    }
  })();
  return () => { live = false; };
}
