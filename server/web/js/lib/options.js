// A game's options as form fields, and the options those fields ask for:
// the lobby's room form and the tournament form both make matches.

import { h } from '../dom.js';

/** The game's option fields. */
export function optionFields(game) {
  switch (game) {
    case 'nimrod':
      return [
        h('label', {}, 'Pile A ', h('input', { name: 'pile_a', type: 'number', min: 0, placeholder: 'random' })),
        h('label', {}, 'Pile B ', h('input', { name: 'pile_b', type: 'number', min: 0, placeholder: 'random' })),
      ];
    case 'rummikub':
      return [h('label', {}, 'Rack size ', h('input', { name: 'rack_size', type: 'number', min: 1, max: 20, value: 7 }))];
    case 'cribbage':
      return [h('label', {}, 'Play to ', h('select', { name: 'target' },
        h('option', { value: 121 }, '121'), h('option', { value: 61 }, '61')))];
    case 'mitsudomoe':
      return [h('label', {}, 'Start position (notation, optional) ',
        h('input', { name: 'position', placeholder: 'standard', size: 30 })),
      // Parlor's house rule: a match reaching the limit is drawn.
      h('label', {}, 'Turn limit (then drawn) ',
        h('input', { name: 'max_turns', type: 'number', min: 20, max: 2000, placeholder: '300' }))];
    default:
      return [];
  }
}

/** The options `form`'s option fields ask for (null: the game's defaults). */
export function readOptions(game, form) {
  const v = name => form.elements[name] && form.elements[name].value.trim();
  switch (game) {
    case 'nimrod':
      return v('pile_a') !== '' && v('pile_b') !== '' ? { piles: [Number(v('pile_a')), Number(v('pile_b'))] } : null;
    case 'rummikub':
      return v('rack_size') ? { rack_size: Number(v('rack_size')) } : null;
    case 'cribbage':
      return { target: Number(v('target')) };
    case 'mitsudomoe': {
      const o = {};
      if (v('position')) o.position = v('position');
      if (v('max_turns')) o.max_turns = Number(v('max_turns'));
      return Object.keys(o).length ? o : null;
    }
    default:
      return null;
  }
}
