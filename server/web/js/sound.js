// Sounds for your turn, a move, a refusal and the end of a match, made
// with WebAudio (a few oscillator notes: no sound file to download or
// license), and a mute switch remembered in localStorage.

const MUTE_KEY = 'parlor.mute';
/** Loud enough to hear, soft enough not to startle. */
const GAIN = 0.12;

/** Each sound as notes: [frequency in Hz, start s, length s, wave]. */
const SOUNDS = {
  // Two rising notes: it is your move.
  turn: [[660, 0, 0.12, 'sine'], [880, 0.11, 0.18, 'sine']],
  // A short wooden tock: someone moved.
  move: [[330, 0, 0.07, 'triangle']],
  // Two falling, rougher notes: the move was refused.
  refusal: [[300, 0, 0.12, 'square'], [220, 0.12, 0.18, 'square']],
  // A major arpeggio: the match is over.
  end: [[523, 0, 0.14, 'sine'], [659, 0.12, 0.14, 'sine'], [784, 0.24, 0.3, 'sine']],
};

let ctx = null;

export function muted() {
  return localStorage.getItem(MUTE_KEY) === '1';
}

export function setMuted(on) {
  localStorage.setItem(MUTE_KEY, on ? '1' : '0');
}

/**
 * Plays a sound unless muted. Counts what was played in body's
 * data-sound-KIND (what the page meant to play: a headless browser has
 * no speaker to ask).
 */
export function play(kind) {
  const notes = SOUNDS[kind];
  if (!notes || muted()) return false;
  const key = `sound${kind[0].toUpperCase()}${kind.slice(1)}`;
  document.body.dataset[key] = String(Number(document.body.dataset[key] || 0) + 1);
  try {
    ctx = ctx || new AudioContext();
    const t0 = ctx.currentTime;
    for (const [hz, at, len, wave] of notes) {
      const osc = ctx.createOscillator();
      const gain = ctx.createGain();
      osc.type = wave;
      osc.frequency.value = hz;
      gain.gain.setValueAtTime(GAIN, t0 + at);
      gain.gain.exponentialRampToValueAtTime(0.001, t0 + at + len);
      osc.connect(gain).connect(ctx.destination);
      osc.start(t0 + at);
      osc.stop(t0 + at + len);
    }
  } catch { /* no audio here: the page still says it */ }
  return true;
}

/**
 * The your-turn sound for a game elsewhere (`your_turn`); counted in
 * body's data-beeps as well.
 */
export function beep() {
  if (play('turn')) document.body.dataset.beeps = String(Number(document.body.dataset.beeps || 0) + 1);
}
