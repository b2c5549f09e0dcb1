// Clock choices offered when seeking or challenging, and clocks in words.

/** Choices: value -> the protocol's clock (null: none). */
export const CLOCKS = [
  { value: 'none', label: 'no clock', clock: null },
  { value: 'move30', label: '30 s a move', clock: { per_move: { ms: 30000 } } },
  { value: 'blitz', label: '3 min + 2 s', clock: { increment: { main_ms: 180000, increment_ms: 2000 } } },
  { value: 'rapid', label: '10 min + 5 s', clock: { increment: { main_ms: 600000, increment_ms: 5000 } } },
  // Correspondence needs an account (the server says auth/required otherwise).
  { value: 'days1', label: '1 day a move', clock: { days_per_move: 1 }, account: true },
  { value: 'days3', label: '3 days a move', clock: { days_per_move: 3 }, account: true },
];

export function clockOf(value) {
  const c = CLOCKS.find(x => x.value === value);
  return c ? c.clock : null;
}

/** A clock in words: "3 min + 2 s", "no clock". */
export function clockText(clock) {
  if (!clock) return 'no clock';
  const secs = ms => (ms % 60000 === 0 ? `${ms / 60000} min` : `${ms / 1000} s`);
  if (clock.per_move) return `${secs(clock.per_move.ms)} a move`;
  if (clock.increment) return `${secs(clock.increment.main_ms)} + ${clock.increment.increment_ms / 1000} s`;
  if (clock.days_per_move) return `${clock.days_per_move} day${clock.days_per_move > 1 ? 's' : ''} a move`;
  return 'a clock';
}
