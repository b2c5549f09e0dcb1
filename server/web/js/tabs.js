// A guest's session opened in another tab or window: the server closed
// this connection (code 4001) and it is not reopened by itself, or the two
// tabs would take the session from each other in turn. A notice says so;
// "Use here" reconnects, and the resume brings the seats back to this tab
// (the other tab then gets this notice). Loaded when it happens.

import { h } from './dom.js';

export function showTaken(app) {
  if (document.getElementById('taken-notice')) return;
  const notice = h('div', { class: 'notice', id: 'taken-notice', role: 'alert' },
    h('p', {}, 'This game was opened in another tab or window: this one is no longer connected.'),
    h('button', {
      type: 'button', id: 'use-here', class: 'primary',
      onclick: () => { notice.remove(); app.conn.reconnect(); },
    }, 'Use here'));
  app.notices.append(notice);
}
