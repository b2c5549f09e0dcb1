// A finished match, step by step: a slider over its positions (which the
// server rebuilds from the log, dealing again: /api/replay/ROOM), each
// drawn as a spectator saw it, with the moves from `get_log`, and plots:
// Rummikub's exact win chance after each move (the server's predict) and
// Cribbage's score race.

import { h, put } from './dom.js';
import { gameInfo } from './games.js';
import { boardOf } from './boards.js';
import { linePlot } from './plot.js';
import { person } from './people.js';

function actionText(game, action) {
  if (action === 'forfeit') return 'resigned or ran out of time';
  const mv = action.move ?? action.timeout_move;
  const mod = boardOf(game);
  const text = mod && mod.describe ? mod.describe(mv) : JSON.stringify(mv);
  return action.timeout_move !== undefined ? `ran out of time; played for them: ${text}` : text;
}

function outcomeText(log, who) {
  if (!log.outcome) return `Closed without a result (${log.closed}).`;
  if (log.outcome.result === 'draw') return 'Drawn.';
  return `Won by ${log.outcome.winners.map(w => person(who, w)).join(' and ')}.`;
}

/** Rummikub (two seats): the first seat's exact win chance after each move. */
function winChancePlot(predict, k, who) {
  const p = person(who, 0);
  return [
    h('h3', {}, `Win chance of ${p}, after each move (the server's predict)`),
    linePlot({
      series: [{ name: p, points: predict.map(x => [x.ply, x.win_fraction]) }],
      yMax: 1, yTicks: [0, 0.25, 0.5, 0.75, 1], yLabel: y => `${Math.round(y * 100)}%`, now: k,
      label: `win chance of ${p} by step`,
    }),
  ];
}

/** Who sat where: the room as seen here, else a rated log's accounts; "you" for ours. */
function seatsOf(app, room, log) {
  const seen = app.latest.get(room);
  if (seen) return seen.update;
  const names = log.players || [];
  const at = names.indexOf(app.conn.account?.name);
  return {
    you: at < 0 ? undefined : at,
    seats: Array.from({ length: log.header.seats }, (_, i) => (names[i] ? { seat: i, kind: 'player', account: true, name: names[i] } : { seat: i, kind: 'empty' })),
  };
}

/** Cribbage: every side's score after each step, up to the target. */
function scoreRacePlot(views, names, k) {
  const target = views[0].target;
  const sides = views[0].scores.length;
  // Every 30 points, and the target (without a tick crowding it).
  const ticks = [0, 30, 60, 90, 120].filter(t => t < target - 10).concat([target]);
  return [
    h('h3', {}, 'The score race'),
    linePlot({
      series: Array.from({ length: sides }, (_, s) => ({ name: names[s], points: views.map((v, i) => [i, v.scores[s]]) })),
      yMax: target, yTicks: ticks, now: k, label: 'scores by step',
    }),
  ];
}

export function showReplay(app, room) {
  const conn = app.conn;
  const box = h('section', { class: 'replay-screen' }, h('h2', {}, `Replay of room ${room}`), h('p', { id: 'replay-status' }, 'Loading the match…'));
  put(app.main, box);
  let live = true;

  const draw = (log, views, predict) => {
    const game = log.header.game;
    const g = gameInfo(game);
    const n = views.length - 1;
    const who = seatsOf(app, room, log);
    const seats = who.seats;
    const sideNames = game === 'cribbage' && views[0].partnerships
      ? [[0, 2], [1, 3]].map(t => t.map(x => person(who, x)).join(' & ')) : seats.map(s => person(who, s.seat));
    const slider = h('input', { type: 'range', min: 0, max: n, value: n, id: 'step', 'aria-label': 'step' });
    const stepText = h('p', { id: 'step-text' });
    const board = h('div', { class: 'panel board', id: 'position' });
    const plotBox = h('div', { class: 'panel', id: 'plot' });
    const steps = h('ol', { class: 'steps', start: 1 }, log.moves.map((m, i) => h('li', { dataset: { step: i + 1 } },
      `${person(who, m.seat)}: ${actionText(game, m.action)}`)));

    const show = () => {
      const k = Number(slider.value);
      for (const li of steps.children) li.classList.toggle('current', Number(li.dataset.step) === k);
      const cur = steps.querySelector('.current');
      if (cur) cur.scrollIntoView({ block: 'nearest' });
      const m = log.moves[k - 1];
      stepText.textContent = k === 0 ? 'Before the first move.' : `After step ${k}: ${person(who, m.seat)} ${actionText(game, m.action)}.`;
      const update = {
        room, game, seq: k, status: k === n ? 'finished' : 'playing', seats, to_act: [], view: views[k],
      };
      const mod = boardOf(game);
      if (mod) mod.render(board, update, { play: () => {}, myTurn: false, state: {}, rerender: () => {} });
      const parts = [];
      if (predict && predict[k]) parts.push(h('p', { id: 'win-chance' }, `Win chance of ${person(who, 0)} here: ${(predict[k].win_fraction * 100).toFixed(1)}%`));
      if (predict) parts.push(winChancePlot(predict, k, who));
      if (game === 'cribbage') parts.push(scoreRacePlot(views, sideNames, k));
      put(plotBox, parts);
      plotBox.hidden = parts.length === 0;
    };
    slider.addEventListener('input', show);
    const stepBy = d => { slider.value = Math.min(n, Math.max(0, Number(slider.value) + d)); show(); };
    put(box,
      h('h2', {}, `Replay: ${g.title}, room ${room}`),
      h('p', { id: 'replay-status' }, `${log.moves.length} steps. ${outcomeText(log, who)}`),
      h('label', { for: 'step' }, 'Step (arrow keys move one at a time) '), slider,
      h('div', { class: 'row' },
        h('button', { onclick: () => stepBy(-1) }, '◀ back'),
        h('button', { onclick: () => stepBy(1) }, 'forward ▶')),
      stepText, plotBox, board, h('h3', {}, 'Moves'), steps,
      h('a', { class: 'button', href: '#/' }, 'Lobby'));
    show();
  };

  const fail = text => {
    if (live) put(box, h('h2', {}, `Replay of room ${room}`), h('p', { class: 'refusal', role: 'alert' }, text), h('a', { class: 'button', href: '#/' }, 'Lobby'));
  };

  (async () => {
    let log;
    try {
      log = await conn.ask({ type: 'get_log', room }, m => m.type === 'log' && m.room === room);
    } catch (e) { fail(e.message); return; }
    const answer = await fetch(`api/replay/${encodeURIComponent(room)}`).catch(e => ({ ok: false, statusText: String(e) }));
    if (!answer.ok) { fail(`The positions could not be loaded: ${answer.text ? await answer.text() : answer.statusText}`); return; }
    const { views } = await answer.json();
    let predict = null;
    let note = null;
    if (log.header.game === 'rummikub' && log.header.seats === 2) {
      // The log comes again before the analysis: wait for the analysis.
      const reply = await conn.ask({ type: 'get_log', room, predict: true },
        m => m.type === 'analysis' && m.game === 'rummikub').catch(e => ({ error: e }));
      if (!reply.error) predict = reply.results;
      else note = `No win-chance plot: ${reply.error.message}`;
    }
    if (live) draw(log, views, predict);
    if (live && note) box.insertBefore(h('p', { class: 'refusal' }, note), box.children[2]);
  })();
  return () => { live = false; };
}
