// The form that creates a tournament (signed-in players): game and its
// options, format and its length, clock, rated, duplicate deals, who may
// enter, the most players, when it starts and a name. The server checks
// everything; its refusal is shown in its own words.

import { h, put } from './dom.js';
import { api, explain } from './api.js';
import { GAMES } from './games.js';
import { CLOCKS } from './clocks.js';
import { optionFields, readOptions } from './lib/options.js';
import { FORMATS, KINDS, eventHref } from './eventwords.js';

/**
 * Each format's length field: what it counts, its bounds (the server's,
 * repeated so that the browser can say so before sending) and a default.
 */
const LENGTHS = {
  'round-robin': { label: 'Cycles', key: 'rounds', min: 1, max: 4, value: 1, hint: 'every pair meets once in each cycle' },
  swiss: { label: 'Rounds', key: 'rounds', min: 1, max: 20, value: 5, hint: 'players meet others on their score' },
  arena: { label: 'Minutes', key: 'minutes', min: 1, max: 720, value: 30, hint: 'whoever finishes a game is paired again at once' },
};

/** Minutes from now to the start when nobody says: time to gather players. */
const DEFAULT_START_MINUTES = 10;
/** Players when nobody says (the server's default too). */
const DEFAULT_PLAYERS = 16;

/** Events run on a clock in minutes: no "no clock", no days a move. */
const EVENT_CLOCKS = CLOCKS.filter(c => c.clock && !c.account);

export function tournamentForm(app) {
  const select = (id, name, options) => h('select', { id, name }, options.map(([v, t]) => h('option', { value: v }, t)));
  const game = select('event-game', 'game', Object.entries(GAMES).map(([k, g]) => [k, g.title]));
  const format = select('event-format', 'format', Object.entries(FORMATS));
  const length = h('input', { id: 'event-length', name: 'length', type: 'number', required: true, 'aria-describedby': 'event-length-hint' });
  const lengthLabel = h('label', { for: 'event-length' });
  const lengthHint = h('span', { class: 'hint', id: 'event-length-hint' });
  const options = h('div', { class: 'options', id: 'event-options' });
  const error = h('p', { class: 'form-error refusal', role: 'alert', id: 'event-form-error' });
  const submit = h('button', { type: 'submit', class: 'primary', id: 'event-submit' }, 'Create the tournament');
  const form = h('form', { class: 'create event-form', id: 'event-form', 'aria-labelledby': 'event-form-title' },
    h('h2', { id: 'event-form-title' }, 'New tournament'),
    h('div', { class: 'row' }, h('label', { for: 'event-name' }, 'Name'),
      h('input', { id: 'event-name', name: 'name', maxlength: 80, placeholder: 'the game and format', size: 24 })),
    h('div', { class: 'row' }, h('label', { for: 'event-game' }, 'Game'), game,
      h('label', { for: 'event-format' }, 'Format'), format),
    h('div', { class: 'row' }, lengthLabel, length, lengthHint),
    options,
    h('div', { class: 'row' },
      h('label', { for: 'event-clock' }, 'Clock'),
      select('event-clock', 'clock', [['', 'the game\'s rated clock'], ...EVENT_CLOCKS.map(c => [c.value, c.label])]),
      h('label', { for: 'event-kind' }, 'Open to'),
      select('event-kind', 'kind', Object.entries(KINDS))),
    h('div', { class: 'row' },
      h('label', { for: 'event-max' }, 'Most players'),
      h('input', { id: 'event-max', name: 'max_players', type: 'number', min: 2, max: 64, value: DEFAULT_PLAYERS }),
      h('label', { for: 'event-start' }, 'Starts in (minutes)'),
      h('input', { id: 'event-start', name: 'start', type: 'number', min: 0, step: 'any', value: DEFAULT_START_MINUTES })),
    h('div', { class: 'row' },
      h('label', {}, h('input', { type: 'checkbox', name: 'rated', id: 'event-rated' }), ' rated'),
      h('label', {}, h('input', { type: 'checkbox', name: 'duplicate', id: 'event-duplicate', 'aria-describedby': 'event-duplicate-hint' }), ' duplicate deals')),
    h('p', { class: 'hint', id: 'event-duplicate-hint' },
      'Duplicate: each pairing plays one deal twice at once, once from each seat, so luck evens out (Rummikub, Cribbage, Nimrod with random piles). Suits bots: a player who remembers their cards knows the other game\'s.'),
    error, submit);

  const drawLength = () => {
    const l = LENGTHS[format.value];
    lengthLabel.textContent = l.label;
    lengthHint.textContent = `${l.min} to ${l.max}: ${l.hint}`;
    Object.assign(length, { min: l.min, max: l.max, value: l.value });
  };
  format.addEventListener('change', drawLength);
  game.addEventListener('change', () => put(options, optionFields(game.value)));
  drawLength();
  put(options, optionFields(game.value));

  form.addEventListener('submit', async e => {
    e.preventDefault();
    error.textContent = '';
    delete form.dataset.code;
    const v = name => form.elements[name].value.trim();
    const clock = EVENT_CLOCKS.find(c => c.value === v('clock'));
    const startIn = Math.max(0, Number(v('start')) || 0);
    const body = {
      game: game.value,
      format: format.value,
      [LENGTHS[format.value].key]: Number(length.value),
      options: readOptions(game.value, form),
      rated: form.elements.rated.checked,
      duplicate: form.elements.duplicate.checked,
      kind: v('kind'),
      max_players: Number(v('max_players')) || DEFAULT_PLAYERS,
      starts_at_ms: Date.now() + Math.round(startIn * 60000),
    };
    if (v('name')) body.name = v('name');
    if (clock) body.clock = clock.clock;
    submit.disabled = true;
    try {
      const { id } = await api('POST', '/api/tournaments', body);
      location.hash = eventHref(id);
    } catch (err) {
      form.dataset.code = err.code || '';
      error.textContent = explain(err).text;
    } finally {
      submit.disabled = false;
    }
  });
  return form;
}
