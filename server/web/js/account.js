// Registering, logging in and out. The session is an HttpOnly cookie the
// server sets; the WebSocket is then opened again so that its upgrade
// carries it (and `welcome` names the account).

import { h, put } from './dom.js';
import { api } from './api.js';
import { field, clearErrors, showError } from './forms.js';

/** After a login or logout: a new connection, then the given page. */
function switchAccount(app, hash) {
  app.conn.reconnect();
  location.hash = hash;
}

export async function logout(app) {
  try { await api('POST', '/api/logout'); } catch { /* the cookie is cleared either way */ }
  switchAccount(app, '#/');
}

function credentialsForm(id, title, submitText, extra, onSubmit) {
  const form = h('form', { class: 'account-form', id, 'aria-label': title, novalidate: true },
    h('h2', {}, title),
    field(`${id}-name`, 'Name', h('input', { name: 'name', autocomplete: 'username', required: true, maxlength: 20 }),
      id === 'register' ? '3 to 20 letters, digits, _ or -' : null),
    field(`${id}-password`, 'Password', h('input', {
      name: 'password', type: 'password', required: true,
      autocomplete: id === 'register' ? 'new-password' : 'current-password',
    }), id === 'register' ? 'at least 8 characters' : null),
    extra,
    h('p', { class: 'form-error refusal', role: 'alert' }),
    h('button', { type: 'submit', class: 'primary', id: `${id}-submit` }, submitText));
  form.addEventListener('submit', async e => {
    e.preventDefault();
    clearErrors(form);
    const button = form.querySelector('button[type=submit]');
    button.disabled = true;
    try {
      await onSubmit(form);
    } catch (err) {
      showError(form, err);
    } finally {
      button.disabled = false;
    }
  });
  return form;
}

/** The login and register pages, to someone logged in already. */
function signedIn(app) {
  const a = app.conn.account;
  put(app.main, h('section', { class: 'account-screen' },
    h('p', { id: 'signed-in' }, 'You are logged in as ', h('a', { href: `#/player/${encodeURIComponent(a.name)}` }, a.name), '. ',
      h('button', { type: 'button', onclick: () => logout(app) }, 'Log out'))));
  return null;
}

export function showLogin(app) {
  if (app.conn.account) return signedIn(app);
  const form = credentialsForm('login', 'Log in', 'Log in', null, async f => {
    await api('POST', '/api/login', { name: f.elements.name.value.trim(), password: f.elements.password.value });
    switchAccount(app, '#/');
  });
  put(app.main, h('section', { class: 'account-screen' }, form,
    h('p', {}, 'No account yet? ', h('a', { href: '#/register' }, 'Register'), '. Guests can play too, without one.')));
  return null;
}

export function showRegister(app) {
  if (app.conn.account) return signedIn(app);
  const kind = h('fieldset', { class: 'kind' },
    h('legend', {}, 'This account is for'),
    h('label', {}, h('input', { type: 'radio', name: 'kind', value: 'human', checked: true, id: 'kind-human' }), ' a person'),
    h('label', {}, h('input', { type: 'radio', name: 'kind', value: 'bot', id: 'kind-bot' }), ' a bot (plays with API tokens)'));
  const form = credentialsForm('register', 'Register', 'Create the account', kind, async f => {
    const body = {
      name: f.elements.name.value.trim(),
      password: f.elements.password.value,
      kind: f.querySelector('input[name=kind]:checked').value,
    };
    await api('POST', '/api/accounts', body);
    // A new account is logged in at once.
    await api('POST', '/api/login', { name: body.name, password: body.password });
    switchAccount(app, body.kind === 'bot' ? '#/tokens' : '#/');
  });
  put(app.main, h('section', { class: 'account-screen' }, form,
    h('p', {}, 'Have an account? ', h('a', { href: '#/login' }, 'Log in'), '.')));
  return null;
}
