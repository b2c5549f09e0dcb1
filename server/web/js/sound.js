// A short beep for "your turn", made with WebAudio (no sound file to
// download), and a mute switch remembered in localStorage.

const MUTE_KEY = 'parlor.mute';
/** The beep: a soft sine, short enough not to annoy. */
const BEEP_HZ = 880;
const BEEP_S = 0.18;
const BEEP_GAIN = 0.15;

let ctx = null;

export function muted() {
  return localStorage.getItem(MUTE_KEY) === '1';
}

export function setMuted(on) {
  localStorage.setItem(MUTE_KEY, on ? '1' : '0');
}

/**
 * Beeps unless muted. Counts beeps in body's data-beeps (what the page
 * meant to play, since a headless browser has no speaker to ask).
 */
export function beep() {
  if (muted()) return;
  document.body.dataset.beeps = String(Number(document.body.dataset.beeps || 0) + 1);
  try {
    ctx = ctx || new AudioContext();
    const osc = ctx.createOscillator();
    const gain = ctx.createGain();
    const t = ctx.currentTime;
    osc.frequency.value = BEEP_HZ;
    gain.gain.setValueAtTime(BEEP_GAIN, t);
    gain.gain.exponentialRampToValueAtTime(0.001, t + BEEP_S);
    osc.connect(gain).connect(ctx.destination);
    osc.start(t);
    osc.stop(t + BEEP_S);
  } catch { /* no audio here: the badge still says it */ }
}
