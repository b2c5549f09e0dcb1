// Cribbage at a table: the peg board (two pegs a side), each player's
// place on the felt with the cards they hold and, beside the dealer, the
// crib; the play as a fanned pile with its running count; your hand as
// card faces to throw or lay; the scores counting up; the last hand's show.

import { person, whose } from './people.js';
import { h, put } from './dom.js';
import { pegBoard } from './pegboard.js';
import { countUp, reduced } from './motion.js';

const SUIT = { clubs: '♣', diamonds: '♦', hearts: '♥', spades: '♠' };
const RANK = { ace: 'A', jack: 'J', queen: 'Q', king: 'K' };
/** A laid card's slide to the pile. */
const SLIDE_MS = 450;

const rank = c => RANK[c.rank] || String(c.rank);
const key = c => `${rank(c)}${SUIT[c.suit]}`;
const same = (a, b) => a.rank === b.rank && a.suit === b.suit;

/** A card face: rank and suit in the corner, the suit large in the middle. */
export function card(c, { class: extra, ...attrs } = {}, tag = 'span') {
  return h(tag, {
    ...attrs,
    class: `card ${c.suit}${extra ? ` ${extra}` : ''}`,
    // The name starts with what the corner shows ("K, king of spades").
    'aria-label': RANK[c.rank] ? `${rank(c)}, ${c.rank} of ${c.suit}` : `${c.rank} of ${c.suit}`,
  }, h('span', { class: 'corner', 'aria-hidden': 'true' }, rank(c), h('span', { class: 'corner-suit' }, SUIT[c.suit])),
  h('span', { class: 'pip', 'aria-hidden': 'true' }, SUIT[c.suit]));
}

/** Face-down cards: how many a player holds, or the crib. */
function backs(n, label, extra = '') {
  return h('span', { class: `backs ${extra}`.trim(), role: 'img', 'aria-label': label },
    Array.from({ length: Math.min(n, 6) }, () => h('span', { class: 'card back small' })));
}

export function describe(move) {
  if (move.discard) return `throw ${move.discard.map(key).join(' ')} to the crib`;
  if (move.play) return `lay ${key(move.play)}`;
  return JSON.stringify(move);
}

function sideName(u, seat) {
  return person(u, seat);
}

function show(u, shown) {
  return h('ul', { class: 'show' }, shown.map(x => h('li', {},
    `${whose(u, x.seat)} ${x.kind === 'crib' ? 'crib' : 'hand'}: `,
    h('span', { class: 'cards' }, x.cards.map(c => card(c, { class: 'small' }))), ` ${x.total} points`)));
}

/** Each side's pegs: front at the score, back where the front stood before. */
function pegs(u, v, st, teams) {
  const was = st.pegs || [];
  const events = [...(v.previous ? v.previous.events : []), ...v.events];
  const sides = teams.map((team, t) => {
    const front = v.scores[t];
    const old = was[t];
    let back;
    if (old && old.front === front) back = old.back;
    else if (old && old.front < front) back = old.front;
    else {
      // Drawn afresh (a reload): the back peg stands behind the side's last score.
      const lastScore = events.filter(e => e.points > 0 && teams[t].includes(e.seat)).pop();
      back = Math.max(0, front - (lastScore ? lastScore.points : front));
    }
    return { name: team.map(s => sideName(u, s)).join(' & '), front, back, before: old ? old.front : undefined };
  });
  st.pegs = sides.map(x => ({ front: x.front, back: x.back }));
  return sides;
}

/** The newest card laid, slid in from its player's side unless it is ours. */
function slideIn(node, fromAbove) {
  if (reduced()) return;
  node.animate([{ transform: `translateY(${fromAbove ? -70 : 70}px)`, opacity: 0.2 }, { transform: 'none', opacity: 1 }],
    { duration: SLIDE_MS, easing: 'ease-out' });
}

export function render(el, u, ctx) {
  const v = u.view;
  const st = ctx.state;
  if (st.seq !== u.seq) { st.seq = u.seq; st.selected = []; }
  const legal = u.legal || [];
  const discarding = v.phase === 'discard';
  const playable = c => legal.some(m => (m.play && same(m.play, c)) || (m.discard && m.discard.some(d => same(d, c))));
  const pick = i => {
    if (!ctx.myTurn) return;
    if (discarding) {
      st.selected = st.selected.includes(i) ? st.selected.filter(x => x !== i) : [...st.selected, i];
      ctx.rerender();
      const again = el.querySelector(`button.card[data-i="${i}"]`);
      if (again) again.focus();
    } else {
      ctx.play({ play: v.hand[i] });
    }
  };
  const teams = v.partnerships ? [[0, 2], [1, 3]] : v.scores.map((_, i) => [i]);
  const crib = v.dealer === u.you ? 'your crib' : `${whose(u, v.dealer)} crib`;
  const shownScores = st.shownScores || [];
  const sides = pegs(u, v, st, teams);

  const scoreNodes = [];
  const scoreboard = h('div', { class: 'scoreboard', id: 'scores' }, teams.map((team, t) => {
    const n = h('strong', {});
    scoreNodes.push([n, shownScores[t], v.scores[t]]);
    return h('span', { class: `score side${t}`, dataset: { side: t } },
      h('span', { class: 'peg-key', 'aria-hidden': 'true' }), `${team.map(s => sideName(u, s)).join(' & ')}: `, n, ` / ${v.target}`);
  }));

  // Places at the table: the others across the felt, you at the bottom.
  const lastLaid = v.laid.length ? v.laid[v.laid.length - 1] : null;
  const place = seat => h('div', { class: `place${seat === v.dealer ? ' dealer' : ''}${u.to_act.includes(seat) ? ' to-act' : ''}`, dataset: { seat } },
    h('span', { class: 'place-name' }, sideName(u, seat), seat === v.dealer ? ' (deals)' : ''),
    seat === u.you ? null : backs(v.held[seat], `${sideName(u, seat)} holds ${v.held[seat]} card${v.held[seat] === 1 ? '' : 's'}`),
    // The crib lies beside its owner, face down until the show.
    seat === v.dealer ? h('span', { class: 'crib', id: 'crib' }, backs(v.crib_size || 0, `${crib}: ${v.crib_size} cards`, 'crib-backs'),
      h('small', {}, `crib ${v.crib_size}`)) : null);
  const others = v.held.map((_, seat) => seat).filter(seat => seat !== u.you);

  const pileCards = v.series.map((x, i) => {
    const face = card(x.card, { class: `in-pile${x === v.series[v.series.length - 1] ? ' last' : ''}`, title: `${sideName(u, x.seat)}` });
    face.style.setProperty('--i', String(i));
    return face;
  });
  const newest = pileCards[pileCards.length - 1];
  if (ctx.fresh && newest && lastLaid && v.series.length && same(v.series[v.series.length - 1].card, lastLaid.card)) {
    slideIn(newest, lastLaid.seat !== u.you);
  }

  put(el,
    scoreboard,
    pegBoard(sides, v.target),
    h('div', { class: 'felt cribbage-table' },
      h('div', { class: 'places others' }, others.map(place)),
      h('div', { class: 'middle' },
        h('div', { class: 'start' }, h('span', { class: 'felt-label' }, 'Start'),
          v.start ? card(v.start) : h('span', { class: 'card back', role: 'img', 'aria-label': 'not cut yet' })),
        h('div', { class: 'pile-wrap' },
          h('div', { class: 'pile', id: 'pile', role: 'list', 'aria-label': 'the play' }, pileCards.map(c => h('span', { role: 'listitem', class: 'pile-slot' }, c))),
          v.phase === 'play' ? h('span', { class: 'count', id: 'count' }, `Count ${v.count}`) : null)),
      u.you !== undefined ? h('div', { class: 'places mine' }, place(u.you)) : null),
    h('p', { class: 'hint' }, `Hand ${v.hand_number} · ${crib} · ${discarding ? 'throwing to the crib' : v.phase}`
      + (v.laid.length > v.series.length ? ` · ${v.laid.length} cards laid this hand` : '')),
    u.you !== undefined ? h('div', {},
      h('h3', {}, discarding ? `Your hand: choose ${v.discard_count} for ${crib}` : 'Your hand'),
      h('div', { class: 'cards hand', id: 'hand' }, v.hand.map((c, i) => card(c, {
        class: `${st.selected.includes(i) ? 'selected' : ''} ${ctx.myTurn && playable(c) ? 'playable' : ''}`.trim(),
        dataset: { i },
        disabled: !ctx.myTurn,
        'aria-pressed': discarding ? String(st.selected.includes(i)) : undefined,
        onclick: () => pick(i),
      }, 'button'))),
      ctx.myTurn && discarding ? h('button', {
        id: 'throw', class: 'primary', disabled: st.selected.length === 0,
        onclick: () => ctx.play({ discard: st.selected.map(i => v.hand[i]) }),
      }, 'Throw to the crib') : null) : null,
    v.events.length ? h('ul', { class: 'events' }, v.events.slice(-8).map(e => h('li', {}, `${sideName(u, e.seat)}: ${e.text}`))) : null,
    v.shown && v.shown.length ? h('div', {}, h('h3', {}, 'The show'), show(u, v.shown)) : null,
    v.previous ? h('details', { class: 'previous', open: discarding },
      h('summary', {}, `Last hand's show (hand ${v.previous.number}, start ${key(v.previous.start)})`),
      show(u, v.previous.shown)) : null);
  for (const [n, from, to] of scoreNodes) countUp(n, from, to);
  st.shownScores = v.scores.slice();
}
