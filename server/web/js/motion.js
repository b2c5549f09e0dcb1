// Motion that explains a move: the boards mark what just changed (a card
// sliding to the pile, a tile to its meld, rods fading, a ball vaulting)
// with CSS animations; scores count up. Everything is skipped when the
// system asks for reduced motion. The board's data-motion says "done"
// once every animation ended (tests wait for it, then read the end state).

const REDUCED = window.matchMedia('(prefers-reduced-motion: reduce)');
/** A score's count-up: long enough to see, short enough not to wait for. */
const COUNT_UP_MS = 600;

/** Whether motion is off (the system's setting). */
export function reduced() {
  return REDUCED.matches;
}

/**
 * Sets el's data-motion to "running" until every animation inside it
 * ended, then "done". A board drawn again meanwhile cancels them; its own
 * call settles it.
 */
let settleCount = 0;

export function settle(el) {
  const running = reduced() ? [] : el.getAnimations({ subtree: true });
  const mark = ++settleCount;
  el.dataset.motion = running.length ? 'running' : 'done';
  if (!running.length) return;
  Promise.all(running.map(a => a.finished)).then(() => {
    if (mark === settleCount) el.dataset.motion = 'done';
  }, () => { /* cancelled by a newer drawing, which settles itself */ });
}

/**
 * Shows `to` in node, counting up from `from` (the number shown before)
 * unless motion is off; data-value holds the final number at once.
 */
export function countUp(node, from, to) {
  node.dataset.value = String(to);
  if (reduced() || from === undefined || from === null || from >= to) {
    node.textContent = String(to);
    return;
  }
  const start = performance.now();
  node.textContent = String(from);
  node.classList.add('counting');
  // A pulse as long as the count: the board's motion (settle) waits for it.
  node.animate([{ transform: 'scale(1.3)' }, { transform: 'none' }], { duration: COUNT_UP_MS, easing: 'ease-out' });
  const step = now => {
    if (!node.isConnected) return;
    const f = Math.min(1, (now - start) / COUNT_UP_MS);
    node.textContent = String(Math.round(from + (to - from) * f));
    if (f < 1) requestAnimationFrame(step);
    else node.classList.remove('counting');
  };
  requestAnimationFrame(step);
}
