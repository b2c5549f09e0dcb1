// Form errors shown where they belong: under the field they concern
// (marked aria-invalid and described by the message), else for the form.

import { h } from './dom.js';
import { explain } from './api.js';

/** A labelled field with a place for its own error under it. */
export function field(id, label, input, hint) {
  input.id = id;
  const err = h('span', { class: 'field-error', id: `${id}-error`, role: 'alert' });
  input.setAttribute('aria-describedby', `${id}-error${hint ? ` ${id}-hint` : ''}`);
  return h('div', { class: 'field' },
    h('label', { for: id }, label), input,
    hint ? h('span', { class: 'hint', id: `${id}-hint` }, hint) : null,
    err);
}

/** Clears every error of `form`. */
export function clearErrors(form) {
  for (const e of form.querySelectorAll('.field-error, .form-error')) e.textContent = '';
  for (const i of form.querySelectorAll('[aria-invalid]')) i.removeAttribute('aria-invalid');
  delete form.dataset.code;
}

/** Shows err (an ApiError or a protocol error) in `form`. */
export function showError(form, err) {
  const { field: name, text } = explain(err);
  form.dataset.code = err.code || '';
  const input = name && form.elements[name];
  const box = input && form.querySelector(`#${input.id}-error`);
  if (box) {
    box.textContent = text;
    input.setAttribute('aria-invalid', 'true');
    input.focus();
  } else {
    form.querySelector('.form-error').textContent = text;
  }
}
