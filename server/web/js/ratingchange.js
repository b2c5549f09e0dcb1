// A rating change in words, one rule everywhere (the end-of-game banner,
// the player's ledger, and the terminal client's `parlor` alike): the
// exact change to one decimal, halves away from zero, signed ("+41.2",
// "−3.0"), and "±0.0" for a change under 0.05 either way.

export function changeText(d) {
  const tenths = Math.round(Math.abs(d) * 10);
  if (tenths === 0) return '±0.0';
  return `${d > 0 ? '+' : '−'}${(tenths / 10).toFixed(1)}`;
}
