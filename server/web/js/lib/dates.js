// Moments as people read them, on every screen that shows one (tokens,
// players, ratings, events): in the reader's own locale and time zone.

/** `ms` (epoch milliseconds) as a medium date and a short time; 'never' for none. */
export function dateText(ms) {
  return ms ? new Date(ms).toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'short' }) : 'never';
}
