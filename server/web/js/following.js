// Following players: the lobby's "Following" panel (who of them is
// online, the games they play now to watch, a challenge, Unfollow) and
// the Follow / Unfollow button of a player's page. Loaded only for a
// signed-in account, so a guest's first load never carries it.

import { h, put } from './dom.js';
import { api, explain } from './api.js';
import { gameInfo } from './games.js';
import { clockText } from './clocks.js';
import { needPanelsStyle } from './panelstyle.js';

/** Where the signed-in account's follows are listed (and changed, below it). */
const FOLLOWS_PATH = '/api/follows';

/**
 * How often the visible lobby asks again: presence and games change by
 * the minute, and each answer reads every followed player's games from
 * the store, so less often than the room list (4 s).
 */
const FOLLOWS_REFRESH_MS = 15000;

const followPath = name => `${FOLLOWS_PATH}/${encodeURIComponent(name)}`;
const same = (a, b) => a.toLowerCase() === b.toLowerCase();

/** Online first, then those playing, then by name: who can be watched or challenged now leads. */
function order(a, b) {
  return Number(b.online) - Number(a.online) || b.playing.length - a.playing.length
    || a.player.toLowerCase().localeCompare(b.player.toLowerCase());
}

/** One game a followed player sits in, with its Watch link (spectating, never a seat). */
function gameRow(f, g) {
  const title = gameInfo(g.game).title;
  return h('li', { class: 'follow-game', dataset: { room: g.room, game: g.game } },
    h('span', { class: 'game' }, title),
    // The store names a built-in bot "bot:STRATEGY"; the tables say "bot (STRATEGY)".
    h('span', { class: 'players' }, g.players.map(p => p.replace(/^bot:(.+)$/, 'bot ($1)')).join(' · ')),
    h('span', { class: 'clock-text' }, `${clockText(g.clock)}${g.rated ? ' · rated' : ''}`),
    h('a', { href: `#/room/${g.room}/watch`, class: 'button watch', 'aria-label': `Watch ${f.player}'s ${title} game` }, 'Watch'));
}

/** One followed player: online dot, name, games, Challenge and Unfollow. */
function followRow(f, unfollow) {
  const state = f.online ? 'online' : 'offline';
  // The challenge form of the player's page, set to the game they play now.
  const challenge = `#/player/${encodeURIComponent(f.player)}?challenge=${f.playing.length ? encodeURIComponent(f.playing[0].game) : ''}`;
  return h('li', { class: 'follow', dataset: { player: f.player, online: f.online ? 'yes' : 'no' } },
    h('div', { class: 'follow-head' },
      h('span', { class: `conn-dot${f.online ? ' on' : ''}`, 'aria-hidden': 'true' }),
      h('a', { href: `#/player/${encodeURIComponent(f.player)}`, class: 'follow-name' }, f.player),
      h('span', { class: 'follow-state' }, state),
      h('span', { class: 'actions' },
        h('a', { href: challenge, class: 'button challenge', 'aria-label': `Challenge ${f.player}` }, 'Challenge'),
        h('button', { type: 'button', class: 'unfollow', 'aria-label': `Unfollow ${f.player}`, onclick: e => unfollow(f.player, e.currentTarget) }, 'Unfollow'))),
    f.playing.length ? h('ul', { class: 'follow-games', 'aria-label': `${f.player}'s games now` }, f.playing.map(g => gameRow(f, g))) : null);
}

/**
 * Draws the panel into `box` (a section of the lobby) and keeps it
 * fresh while the page is visible; returns the function that stops it.
 */
export function showFollowing(app, box) {
  needPanelsStyle();
  const say = h('p', { class: 'refusal', role: 'alert', id: 'following-refusal' });
  const list = h('div', { id: 'following-list', 'aria-live': 'polite' }, h('p', { class: 'hint' }, 'Loading…'));
  const title = h('h2', { id: 'following-title', tabindex: -1 }, 'Following');
  put(box, title, say, list);
  let stopped = false;
  /** The last answer drawn: an unchanged one is not drawn again (focus stays on its button). */
  let shown = null;

  const draw = follows => {
    const key = JSON.stringify(follows);
    if (key === shown) return;
    shown = key;
    if (!follows.length) {
      put(list, h('p', { class: 'hint following-empty' },
        'You follow nobody yet. To follow a player, open their page (a name in a room, a challenge or a leaderboard) and press Follow: here you will see when they are online and what they play.'));
      return;
    }
    const rows = follows.slice().sort(order).map(f => followRow(f, unfollow));
    const online = follows.filter(f => f.online).length;
    // Everyone online in view; the rest folded, so that a long list does not push the lobby down.
    const away = rows.slice(online);
    put(list,
      online ? h('ul', { class: 'follows', id: 'follows-online' }, rows.slice(0, online)) : h('p', { class: 'hint' }, 'Nobody you follow is online.'),
      away.length ? h('details', { class: 'follows-away' },
        h('summary', {}, `Offline (${away.length})`), h('ul', { class: 'follows' }, away)) : null);
  };

  const refresh = async () => {
    try {
      const r = await api('GET', FOLLOWS_PATH);
      if (stopped) return;
      say.textContent = '';
      draw(r.follows || []);
    } catch (err) { if (!stopped) say.textContent = explain(err).text; }
  };

  async function unfollow(name, button) {
    button.disabled = true;
    say.textContent = '';
    try {
      await api('DELETE', followPath(name));
    } catch (err) {
      say.textContent = explain(err).text;
      button.disabled = false;
      return;
    }
    await refresh();
    // The button went with its row: keep the keyboard in the panel.
    if (!box.contains(document.activeElement)) title.focus();
  }

  // Asked only while the lobby is in view: a hidden tab asks nothing, and asks at once when shown again.
  let timer = null;
  const run = () => {
    clearInterval(timer);
    timer = null;
    if (stopped || document.hidden) return;
    refresh();
    timer = setInterval(refresh, FOLLOWS_REFRESH_MS);
  };
  document.addEventListener('visibilitychange', run);
  run();
  return () => {
    stopped = true;
    clearInterval(timer);
    document.removeEventListener('visibilitychange', run);
  };
}

/** The Follow / Unfollow button of a player's page (for another signed-in account). */
export function followButton(app, name) {
  const said = h('p', { class: 'refusal', role: 'alert', id: 'follow-refusal' });
  const button = h('button', { type: 'button', id: 'follow-toggle', disabled: true, dataset: { player: name } }, 'Follow');
  let following = false;
  const draw = () => {
    button.textContent = following ? 'Unfollow' : 'Follow';
    button.dataset.following = following ? 'yes' : 'no';
  };
  api('GET', FOLLOWS_PATH).then(r => {
    following = (r.follows || []).some(f => same(f.player, name));
    button.disabled = false;
    draw();
  }, err => { said.textContent = explain(err).text; });
  button.addEventListener('click', async () => {
    said.textContent = '';
    button.disabled = true;
    try {
      await api(following ? 'DELETE' : 'POST', followPath(name));
      following = !following;
      draw();
    } catch (err) {
      said.textContent = explain(err).text;
      said.dataset.code = err.code;
    } finally { button.disabled = false; }
  });
  return h('div', { class: 'row follow-actions' }, button,
    h('span', { class: 'hint' }, 'Followed players show in your lobby, with the games they play.'), said);
}
