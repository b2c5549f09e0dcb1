// Cribbage: scores to the target, the start card, the play with its
// count, the hand to throw or lay from, and the last hand's show.

import { h, put } from './dom.js';

const SUIT = { clubs: '♣', diamonds: '♦', hearts: '♥', spades: '♠' };
const RANK = { ace: 'A', jack: 'J', queen: 'Q', king: 'K' };

const rank = c => RANK[c.rank] || String(c.rank);
const key = c => `${rank(c)}${SUIT[c.suit]}`;
const same = (a, b) => a.rank === b.rank && a.suit === b.suit;

/** A card face: rank and suit symbol, red for hearts and diamonds. */
export function card(c, { class: extra, ...attrs } = {}, tag = 'span') {
  return h(tag, {
    ...attrs,
    class: `card ${c.suit}${extra ? ` ${extra}` : ''}`,
    'aria-label': `${c.rank} of ${c.suit}`,
  }, key(c));
}

export function describe(move) {
  if (move.discard) return `throw ${move.discard.map(key).join(' ')} to the crib`;
  if (move.play) return `lay ${key(move.play)}`;
  return JSON.stringify(move);
}

function sideName(u, seat) {
  if (seat === u.you) return 'you';
  const s = u.seats[seat];
  return s.kind === 'player' ? s.name : `bot (seat ${seat})`;
}

function show(u, shown) {
  return h('ul', { class: 'show' }, shown.map(x => h('li', {},
    `${x.kind === 'crib' ? `${sideName(u, x.seat)}'s crib` : `${sideName(u, x.seat)}'s hand`}: `,
    h('span', { class: 'cards' }, x.cards.map(c => card(c))), ` ${x.total} points`)));
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
  const crib = v.dealer === u.you ? 'your crib' : `${sideName(u, v.dealer)}'s crib`;

  put(el,
    h('div', { class: 'scoreboard', id: 'scores' }, teams.map((team, t) => h('span', { class: 'score', dataset: { side: t } },
      `${team.map(s => sideName(u, s)).join(' & ')}: `, h('strong', {}, v.scores[t]), ` / ${v.target}`))),
    h('p', { class: 'hint' }, `Hand ${v.hand_number} · ${crib} · ${discarding ? 'throwing to the crib' : v.phase}`),
    h('div', { class: 'row' },
      h('span', {}, 'Start card: '), v.start ? card(v.start) : h('span', { class: 'card back', 'aria-label': 'not cut yet' }),
      v.phase === 'play' ? h('span', { class: 'count', id: 'count' }, ` Count: ${v.count}`) : null),
    v.laid.length ? h('div', {},
      h('h3', {}, 'Laid this hand'),
      h('div', { class: 'cards' }, v.laid.map(x => h('span', { class: 'laid' }, card(x.card), h('small', {}, ` ${sideName(u, x.seat)} `))))) : null,
    v.events.length ? h('ul', { class: 'events' }, v.events.slice(-8).map(e => h('li', {}, `${sideName(u, e.seat)}: ${e.text}`))) : null,
    v.shown && v.shown.length ? h('div', {}, h('h3', {}, 'The show'), show(u, v.shown)) : null,
    u.you !== undefined ? h('div', {},
      h('h3', {}, discarding ? `Your hand: choose ${v.discard_count} for ${crib}` : 'Your hand'),
      h('div', { class: 'cards', id: 'hand' }, v.hand.map((c, i) => card(c, {
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
    v.previous ? h('details', { class: 'previous', open: discarding },
      h('summary', {}, `Last hand's show (hand ${v.previous.number}, start ${key(v.previous.start)})`),
      show(u, v.previous.shown)) : null);
}
