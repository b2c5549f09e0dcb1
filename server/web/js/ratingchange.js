// A rating change as the CLI and the ledger show it: to one decimal,
// halves away from zero ("+41.2", "−3.0", "±0.0").
export function changeText(d) {
  const t = Math.round(Math.abs(d) * 10);
  return t ? `${d > 0 ? '+' : '−'}${(t / 10).toFixed(1)}` : '±0.0';
}
