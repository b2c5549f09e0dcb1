// API tokens for bots and scripts: list (label, created, last used),
// create with a label (the token is shown this once), revoke.

import { h, put } from './dom.js';
import { api, explain } from './api.js';
import { field, clearErrors, showError } from './forms.js';
import { dateText } from './lib/dates.js';

async function copy(text, input, done) {
  try {
    await navigator.clipboard.writeText(text);
  } catch {
    // No clipboard permission (plain http on a LAN): select it for Ctrl+C.
    input.select();
    document.execCommand('copy');
  }
  done.textContent = 'Copied.';
}

function newTokenBox(token) {
  const input = h('input', { id: 'new-token', readonly: true, value: token, 'aria-label': 'New token', size: 40 });
  const done = h('span', { class: 'hint', role: 'status' });
  return h('div', { class: 'new-token', role: 'region', 'aria-label': 'New token' },
    h('p', { class: 'warning' }, h('strong', {}, 'Copy this token now: '),
      'it is shown only this once and the server keeps only its hash. Anyone holding it plays as this account; revoke it if it leaks.'),
    h('div', { class: 'row' }, input,
      h('button', { type: 'button', id: 'copy-token', onclick: () => copy(token, input, done) }, 'Copy'), done));
}

export function showTokens(app) {
  const account = app.conn.account;
  if (!account) {
    put(app.main, h('section', { class: 'account-screen' }, h('h2', {}, 'API tokens'),
      h('p', {}, h('a', { href: '#/login' }, 'Log in'), ' to manage your tokens.')));
    return null;
  }
  const list = h('tbody', { id: 'token-list' });
  const listError = h('p', { class: 'refusal', role: 'alert' });
  const fresh = h('div', { id: 'fresh-token' });

  const refresh = async () => {
    listError.textContent = '';
    try {
      const { tokens } = await api('GET', '/api/tokens');
      put(list, tokens.length ? tokens.map(t => h('tr', { dataset: { id: t.id } },
        h('td', { class: 'label' }, t.label || '(no label)'),
        h('td', {}, dateText(t.created)),
        h('td', {}, dateText(t.last_used)),
        h('td', {}, h('button', {
          class: 'revoke', 'aria-label': `Revoke ${t.label || 'the unlabelled token'}`,
          onclick: () => revoke(t),
        }, 'Revoke'))))
        : h('tr', {}, h('td', { colspan: 4, class: 'empty' }, 'No tokens yet.')));
    } catch (err) { listError.textContent = explain(err).text; }
  };

  const revoke = async t => {
    if (!confirm(`Revoke the token "${t.label || t.id}"? A bot using it stops at its next connection.`)) return;
    try {
      await api('DELETE', `/api/tokens/${t.id}`);
    } catch (err) { listError.textContent = explain(err).text; }
    refresh();
  };

  const form = h('form', { class: 'account-form', id: 'token-form', 'aria-label': 'Create a token', novalidate: true },
    field('token-label', 'Label', h('input', { name: 'label', maxlength: 64, placeholder: 'e.g. ladder bot' }),
      'to tell your tokens apart'),
    h('p', { class: 'form-error refusal', role: 'alert' }),
    h('button', { type: 'submit', class: 'primary', id: 'create-token' }, 'Create a token'));
  form.addEventListener('submit', async e => {
    e.preventDefault();
    clearErrors(form);
    try {
      const { token } = await api('POST', '/api/tokens', { label: form.elements.label.value.trim() });
      put(fresh, newTokenBox(token));
      form.reset();
      refresh();
    } catch (err) { showError(form, err); }
  });

  put(app.main, h('section', { class: 'tokens-screen' },
    h('h2', {}, 'API tokens'),
    h('p', { class: 'hint' }, `Tokens let a bot or a script play as ${account.name}: send one in hello, or as "Authorization: Bearer TOKEN".`),
    form, fresh,
    h('h3', {}, 'Your tokens'),
    listError,
    h('div', { class: 'table-wrap' }, h('table', { class: 'tokens' },
      h('thead', {}, h('tr', {}, h('th', {}, 'Label'), h('th', {}, 'Created'), h('th', {}, 'Last used'), h('th', {}, h('span', { class: 'sr-only' }, 'Actions')))),
      list))));
  refresh();
  return null;
}
