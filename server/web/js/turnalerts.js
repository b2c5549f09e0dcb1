// Turn alerts: a system notification when it is the account's turn in a
// game and this page is in the background (the beep is for a page in
// view). The browser asks the player's permission only after a click on
// the switch (never on load); once granted, the switch turns the alerts
// off and on for this browser. Loaded when first needed.

import { h, put } from './dom.js';
import { gameInfo } from './games.js';

/** The player's choice once the browser allows notifications ('off' silences them). */
const ALERTS_KEY = 'parlor.turnAlerts';

const supported = () => 'Notification' in window;
const on = () => supported() && Notification.permission === 'granted' && localStorage.getItem(ALERTS_KEY) !== 'off';

/**
 * The notification for `your_turn` (m), when alerts are on and the page
 * is hidden: naming the game and the opponents when the games list knows
 * them; one per room (tagged with it); a click brings this window forward
 * at the room.
 */
export function notifyTurn(app, m) {
  if (!document.hidden || !on()) return;
  const me = app.conn.account ? app.conn.account.name.toLowerCase() : '';
  const g = (app.games || []).find(x => x.room === m.room);
  const others = g ? g.players.filter(p => p.toLowerCase() !== me) : [];
  try {
    const n = new Notification(`Your turn: ${gameInfo(m.game).title}`, {
      body: others.length ? `Against ${others.join(', ')}.` : `Room ${m.room}.`,
      tag: m.room,
    });
    n.onclick = () => {
      window.focus();
      location.hash = `#/room/${m.room}`;
      n.close();
    };
  } catch { /* a browser that allows notifications only from a service worker: the badge still counts */ }
}

/**
 * The switch for the Your games page: asks the permission on a click when
 * the browser has not been asked; says so when notifications are blocked.
 * Null where the browser has no notifications.
 */
export function alertsSwitch() {
  if (!supported()) return null;
  const box = h('p', { class: 'turn-alerts', id: 'turn-alerts' });
  const draw = () => {
    const permission = Notification.permission;
    if (permission === 'denied') {
      put(box, h('span', { id: 'turn-alerts-state' }, 'Turn alerts are blocked: allow notifications for this site in the browser to get them.'));
      return;
    }
    const pressed = permission === 'granted' && on();
    put(box,
      h('button', {
        type: 'button', id: 'turn-alerts-switch', 'aria-pressed': String(pressed),
        onclick: async () => {
          if (Notification.permission === 'default') {
            localStorage.removeItem(ALERTS_KEY);
            try { await Notification.requestPermission(); } catch { /* refused or dismissed: drawn as it is */ }
          } else {
            localStorage.setItem(ALERTS_KEY, pressed ? 'off' : 'on');
          }
          draw();
        },
      }, 'Turn alerts'), ' ',
      h('span', { class: 'hint', id: 'turn-alerts-state' }, permission === 'default'
        ? 'A notification when it is your turn and this page is in the background.'
        : pressed ? 'On: a notification when it is your turn and this page is in the background.' : 'Off.'));
  };
  draw();
  return box;
}
