// The header's account part: for a guest the name used in `hello`, "log
// in" and "register"; for an account its name, "Your games" with the count
// of games waiting for a move, tokens, "Moderation" for a moderator, and
// "log out". And the sound switch.

import { h, put } from './dom.js';
import { savedName, saveName } from './net.js';
import { logout } from './account.js';
import { muted, setMuted } from './sound.js';
import { themeSwitch } from './theme.js';
import { setWaiting } from './title.js';

export function setupHeader(app) {
  const conn = app.conn;
  const box = document.getElementById('account');
  const badge = h('span', { class: 'badge', id: 'turn-badge', 'aria-label': 'games waiting for your move' });
  const drawBadge = () => {
    const n = app.turns ? app.turns.size : 0;
    badge.textContent = n ? String(n) : '';
    badge.hidden = n === 0;
    setWaiting(n);
  };

  // A toggle with a constant name ("Mute"); aria-pressed tells its state.
  const mute = h('button', { id: 'mute', class: 'mute', type: 'button', title: 'Mute the sounds (your turn, moves, refusals, the end)' }, 'Mute');
  const drawMute = () => mute.setAttribute('aria-pressed', String(muted()));
  mute.addEventListener('click', () => { setMuted(!muted()); drawMute(); });
  drawMute();
  const theme = themeSwitch();

  const draw = () => {
    const a = conn.account;
    if (a) {
      put(box,
        h('a', { id: 'me', class: 'me', href: `#/player/${encodeURIComponent(a.name)}` }, a.name),
        h('a', { href: '#/games', id: 'games-link' }, 'Your games', badge),
        h('a', { href: '#/tokens', id: 'tokens-link' }, 'Tokens'),
        // The role comes in `welcome`, to the account itself only.
        a.role === 'moderator' || a.role === 'admin' ? h('a', { href: '#/mod', id: 'mod-link' }, 'Moderation') : null,
        h('button', { id: 'logout', type: 'button', onclick: () => logout(app) }, 'Log out'),
        mute, theme);
    } else {
      const input = h('input', { id: 'name', maxlength: 32, autocomplete: 'nickname', value: savedName(), placeholder: 'anonymous' });
      // The name is sent in `hello`: a new connection makes the change
      // count for the next seat taken (seats held keep the name they had).
      input.addEventListener('change', () => {
        const name = input.value.trim();
        if (name === savedName()) return;
        saveName(name);
        conn.reconnect();
      });
      put(box,
        h('label', { class: 'name' }, h('span', { class: 'who' }, 'Guest'), ' ', h('span', { class: 'sr-only' }, 'name'), input),
        h('a', { href: '#/login', id: 'login-link' }, 'Log in'),
        h('a', { href: '#/register', id: 'register-link' }, 'Register'),
        mute, theme);
    }
    drawBadge();
  };

  // A phone folds the links and the account part behind one button.
  const top = box.parentElement;
  const menu = h('button', { id: 'menu', class: 'menu', type: 'button', 'aria-expanded': 'false' }, 'Menu');
  const fold = open => { top.classList.toggle('open', open); menu.setAttribute('aria-expanded', String(open)); };
  menu.addEventListener('click', () => fold(!top.classList.contains('open')));
  addEventListener('hashchange', () => fold(false));
  top.insertBefore(menu, box);

  conn.on('welcome', draw);
  conn.on('turns', drawBadge);
  draw();
}
