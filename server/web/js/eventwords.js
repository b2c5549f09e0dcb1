// Tournaments in words, shared by the list, the event page and the notice:
// formats, who may enter, statuses, points (halves as ½), times left, and
// how a game ended (the ladder's page too).

/** Each format as the API spells it and as people read it. */
export const FORMATS = { 'round-robin': 'Round robin', swiss: 'Swiss', arena: 'Arena' };

/** Who may enter, as the API spells it. */
export const KINDS = { any: 'anyone', human: 'people', bot: 'bots' };

/** The tie-breaks the server names: name, short name (a phone's column), what it adds up. */
export const TIEBREAKS = {
  'sonneborn-berger': ['Sonneborn-Berger', 'SB', 'the sum over a player\'s games of their score times the opponent\'s points'],
  buchholz: ['Buchholz', 'Buch', 'the sum of a player\'s opponents\' points'],
};

export function formatText(f) {
  return FORMATS[f] || f;
}

/** "Swiss, 5 rounds", "Round robin, 2 cycles (6 rounds)", "Arena, 30 min". */
export function formatLong(e) {
  const plural = (n, w) => `${n} ${w}${n === 1 ? '' : 's'}`;
  if (e.format === 'arena') return `Arena, ${e.minutes ? `${e.minutes} min` : 'a time window'}`;
  if (e.format === 'swiss') return `Swiss, ${plural(e.rounds_asked || e.rounds_total || 0, 'round')}`;
  const total = e.rounds_total ? ` (${plural(e.rounds_total, 'round')})` : '';
  return `Round robin, ${plural(e.rounds_asked || 1, 'cycle')}${total}`;
}

/** "3 + ½": points as people write them (halves from draws). */
export function pointsText(x) {
  const whole = Math.floor(x);
  const rest = x - whole;
  if (rest === 0) return String(whole);
  if (rest === 0.5) return whole ? `${whole}½` : '½';
  return String(Math.round(x * 100) / 100);
}

/** "1:05:09", "4:32": a time left, rounded up to the second. */
export function leftText(ms) {
  const t = Math.max(0, Math.ceil(ms / 1000));
  const hours = Math.floor(t / 3600);
  const mm = String(Math.floor((t % 3600) / 60));
  const ss = String(t % 60).padStart(2, '0');
  if (t >= 86400) return `${Math.floor(t / 86400)} d ${hours % 24} h`;
  return hours ? `${hours}:${mm.padStart(2, '0')}:${ss}` : `${mm}:${ss}`;
}

/** A round's name: an arena pairs in waves. */
export function roundName(format, n) {
  return `${format === 'arena' ? 'Wave' : 'Round'} ${n}`;
}

/** The address of an event's page. */
export function eventHref(id) {
  return `#/tournament/${encodeURIComponent(id)}`;
}

/**
 * How a finished tournament or ladder game ended, beside its result:
 * "ann lost on time", "ann resigned", "forfeit: ann had left", or '' for
 * a game played out by its rules. `end` as the API spells it; `winners`
 * the winning seats (empty: a draw).
 */
export function endText(end, seats, winners) {
  const who = winners.length ? seats.filter((_, i) => !winners.includes(i)).join(' and ') : '';
  switch (end) {
    case 'time': return who ? `${who} lost on time` : 'on time';
    case 'resigned': return who ? `${who} resigned` : 'resigned';
    case 'forfeit': return who ? `forfeit: ${who} had left` : 'forfeit: both had left';
    default: return '';
  }
}
