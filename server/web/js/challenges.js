// Challenges, made and received: a card each in the notices area under
// the header (Accept / Decline with a reason, or Withdraw), updated by
// `challenge_ended`; an accepted one opens its room.

import { h, put } from './dom.js';
import { clientSeed } from './net.js';
import { gameInfo } from './games.js';
import { clockText } from './clocks.js';

export const DECLINE_REASONS = [
  ['generic', 'No, thanks'], ['later', 'Not now, later'], ['too_fast', 'Too fast'], ['too_slow', 'Too slow'],
  ['game', 'Not this game'], ['casual', 'Only casual games'], ['rated', 'Only rated games'],
  ['no_bots', 'No bots'], ['only_bots', 'Only bots'],
];

/** The codes a challenge, accept, decline or withdrawal may be refused with. */
const CHALLENGE_AREAS = ['challenge/', 'room/', 'auth/', 'request/', 'server/busy', 'server/storage', 'server/unreachable'];

/** How long an accepted challenge's card stays, saying the room opens. */
const CARD_LINGER_MS = 4000;
/** How long a declined, withdrawn or expired challenge's card stays: long enough to read. */
const ENDED_LINGER_MS = 8000;
/** How often the time left to answer is redrawn. */
const EXPIRY_TICK_MS = 1000;

const ENDS = {
  accepted: 'Accepted: opening the room…',
  declined: 'Declined',
  cancelled: 'Withdrawn.',
  expired: 'Expired: nobody answered within a minute.',
  gone: 'The challenger has left.',
  lost: 'Lost by the server (it restarted its matchmaking): challenge again.',
};

function reasonText(code) {
  const r = DECLINE_REASONS.find(([k]) => k === code);
  return r ? r[1] : code;
}

function terms(m) {
  return `${gameInfo(m.game).title}, ${clockText(m.clock)}, ${m.rated ? 'rated' : 'casual'}`;
}

/** "(1:00 left)": the time left to answer, redrawn by the tick below. */
function expires(m) {
  return m.expires_at_ms ? h('span', { class: 'expires', 'aria-live': 'off', dataset: { at: m.expires_at_ms } }) : null;
}

function drawExpiries(box) {
  for (const el of box.querySelectorAll('.expires')) {
    const s = Math.max(0, Math.ceil((Number(el.dataset.at) - Date.now()) / 1000));
    el.textContent = `(${Math.floor(s / 60)}:${String(s % 60).padStart(2, '0')} left)`;
  }
}

export function setupChallenges(app) {
  const conn = app.conn;
  const box = h('div', { id: 'challenges', class: 'challenges' });
  app.notices.append(box);
  /** challenge id -> {m, card, mine} */
  const cards = new Map();
  /** Challenges this connection made or answered: their room is ours to open. */
  const acted = new Set();
  /** Rooms of accepted challenges, opened when our seat there is confirmed. */
  const seating = new Set();

  const me = () => (conn.account ? conn.account.name.toLowerCase() : '');

  const draw = c => {
    const { m } = c;
    const incoming = m.to.toLowerCase() === me() && m.from.toLowerCase() !== me();
    const say = h('p', { class: 'card-error refusal', role: 'alert' });
    const act = async (msg, done) => {
      acted.add(m.challenge);
      say.textContent = '';
      try {
        await conn.ask(msg, x => x.type === 'challenge_ended' && x.challenge === m.challenge, CHALLENGE_AREAS);
        if (done) done();
      } catch (err) { say.textContent = err.message; }
    };
    const dismiss = h('button', {
      class: 'dismiss', 'aria-label': 'Dismiss', title: 'Dismiss',
      onclick: () => { c.card.remove(); cards.delete(m.challenge); },
    }, '×');
    let body;
    if (c.ended) {
      const e = c.ended;
      const text = e.end === 'declined' ? `${ENDS.declined}: ${reasonText(e.reason)}.` : ENDS[e.end] || e.end;
      body = [h('p', { class: 'ended', dataset: { end: e.end } }, text)];
    } else if (incoming) {
      const reason = h('select', { id: `reason-${m.challenge}`, class: 'reason' },
        DECLINE_REASONS.map(([k, label]) => h('option', { value: k }, label)));
      body = [
        h('p', {}, h('a', { href: `#/player/${encodeURIComponent(m.from)}` }, m.from),
          m.from_kind === 'bot' ? ' (bot)' : '', ` challenges you: ${terms(m)}. `, expires(m)),
        h('div', { class: 'row' },
          h('button', { class: 'primary accept', onclick: () => act({ type: 'accept', challenge: m.challenge, client_seed: clientSeed() }) }, 'Accept'),
          h('label', { for: `reason-${m.challenge}`, class: 'sr-only' }, 'Reason'), reason,
          h('button', {
            class: 'decline',
            onclick: () => act({ type: 'decline', challenge: m.challenge, reason: reason.value }),
          }, 'Decline')),
      ];
    } else {
      body = [
        h('p', {}, 'You challenged ', h('a', { href: `#/player/${encodeURIComponent(m.to)}` }, m.to),
          `: ${terms(m)}. Waiting for an answer… `, expires(m)),
        h('button', { class: 'withdraw', onclick: () => act({ type: 'cancel_challenge', challenge: m.challenge }) }, 'Withdraw'),
      ];
    }
    put(c.card, dismiss, body, say);
    drawExpiries(c.card);
    c.card.dataset.state = c.ended ? c.ended.end : incoming ? 'incoming' : 'outgoing';
  };

  setInterval(() => drawExpiries(box), EXPIRY_TICK_MS);

  conn.on('challenge_made', m => {
    let c = cards.get(m.challenge);
    if (!c) {
      c = { m, card: h('div', { class: 'notice challenge', role: 'region', 'aria-label': 'Challenge', dataset: { challenge: m.challenge } }) };
      cards.set(m.challenge, c);
      box.append(c.card);
    }
    c.m = m;
    if (m.from.toLowerCase() === me()) acted.add(m.challenge);
    draw(c);
  });

  conn.on('challenge_ended', e => {
    const c = cards.get(e.challenge);
    if (c) { c.ended = e; draw(c); }
    if (e.end === 'accepted' && e.room && acted.has(e.challenge)) {
      // `joined` follows: the room is opened then, as our seat (opened
      // before, the page would watch it as a spectator).
      seating.add(e.room);
      // Nothing left to decide: the card goes once the room is open.
      if (c) setTimeout(() => { c.card.remove(); cards.delete(e.challenge); }, CARD_LINGER_MS);
    } else if (c) setTimeout(() => { c.card.remove(); cards.delete(e.challenge); }, ENDED_LINGER_MS);
  });

  conn.on('joined', m => {
    if (!seating.delete(m.room)) return;
    location.hash = `#/room/${m.room}`;
  });

  /** Sends a challenge; rejects with the server's error. */
  return function challenge(msg) {
    return conn.ask({ type: 'challenge', ...msg, client_seed: clientSeed() }, m => m.type === 'challenge_made' && m.to.toLowerCase() === msg.to.toLowerCase(),
      CHALLENGE_AREAS);
  };
}
