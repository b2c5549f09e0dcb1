// The WebSocket connection: hello, resume with the stored token, and
// message dispatch by type. Reconnects after a drop.

const TOKEN_KEY = 'parlor.token';
const NAME_KEY = 'parlor.name';
/** Wait before reconnecting after a drop, growing to RETRY_MAX_MS. */
const RETRY_MIN_MS = 500;
const RETRY_MAX_MS = 8000;
/** The close of a guest's session resumed by another tab: not reconnected, or the two would take it in turn. */
const TAKEN_OVER = 4001;

/** When the last frame arrived (performance.now()), for paint timing. */
let lastFrameAt = 0;

export function frameAt() {
  return lastFrameAt;
}

export function savedName() {
  return localStorage.getItem(NAME_KEY) || '';
}

export function saveName(name) {
  localStorage.setItem(NAME_KEY, name);
}

/** A random client seed for `join` (fair dealing: the deal depends on us too). */
export function clientSeed() {
  const bytes = new Uint8Array(12);
  crypto.getRandomValues(bytes);
  return Array.from(bytes, b => b.toString(16).padStart(2, '0')).join('');
}

export class Conn {
  constructor() {
    this.handlers = new Map();
    this.ws = null;
    this.ready = false;
    this.token = null;
    this.games = [];
    this.retry = RETRY_MIN_MS;
    this.queue = [];
    /** `{name, kind}` of the account this connection acts as; null for a guest. */
    this.account = null;
  }

  /** Calls fn(msg) for every message of `type` ('*' for all). */
  on(type, fn) {
    if (!this.handlers.has(type)) this.handlers.set(type, new Set());
    this.handlers.get(type).add(fn);
    return () => this.handlers.get(type).delete(fn);
  }

  emit(type, msg) {
    for (const key of [type, '*']) for (const fn of this.handlers.get(key) || []) fn(msg);
  }

  /**
   * Opens a new connection in place of this one: its `hello` carries the
   * name typed since, and its upgrade the session cookie a login just set
   * (or a logout cleared). Seats come back through `resume` as after a drop.
   */
  reconnect() {
    const old = this.ws;
    this.ws = null;
    this.ready = false;
    if (old) { old.onmessage = null; old.onclose = null; old.close(); }
    this.emit('status', { type: 'status', up: false });
    this.connect();
  }

  connect() {
    const proto = location.protocol === 'https:' ? 'wss:' : 'ws:';
    const ws = new WebSocket(`${proto}//${location.host}/`);
    this.ws = ws;
    ws.onopen = () => {
      this.retry = RETRY_MIN_MS;
      ws.send(JSON.stringify({ type: 'hello', version: 1, name: savedName() || undefined }));
    };
    ws.onmessage = e => {
      if (this.ws !== ws) return;
      lastFrameAt = performance.now();
      let msg;
      try { msg = JSON.parse(e.data); } catch { return; }
      this.receive(msg);
    };
    ws.onclose = e => {
      if (this.ws !== ws) return;
      this.ready = false;
      const taken = e.code === TAKEN_OVER;
      this.emit('status', { type: 'status', up: false, taken });
      if (!taken) setTimeout(() => this.connect(), this.retry);
      this.retry = Math.min(this.retry * 2, RETRY_MAX_MS);
    };
  }

  receive(msg) {
    if (msg.type === 'welcome') {
      this.games = msg.games;
      this.account = msg.account || null;
      const old = localStorage.getItem(TOKEN_KEY);
      this.fresh = msg.token;
      if (old && old !== msg.token) {
        // Take back the seats held under the token of an earlier visit.
        this.ws.send(JSON.stringify({ type: 'resume', token: old }));
        this.resuming = true;
        return;
      }
      this.adopt(msg.token);
      return;
    }
    if (this.resuming && msg.type === 'resumed') {
      this.resuming = false;
      this.emit('resumed', msg);
      this.adopt(msg.token);
      return;
    }
    if (this.resuming && msg.type === 'error' && msg.code.startsWith('session/')) {
      // The old token holds nothing any more: this connection's own is ours.
      this.resuming = false;
      this.adopt(this.fresh);
      return;
    }
    this.emit(msg.type, msg);
  }

  adopt(token) {
    this.token = token;
    localStorage.setItem(TOKEN_KEY, token);
    this.ready = true;
    this.emit('welcome', { type: 'welcome', account: this.account });
    this.emit('status', { type: 'status', up: true });
    for (const m of this.queue.splice(0)) this.send(m);
  }

  /** Sends msg now, or once the connection is greeted. */
  send(msg) {
    if (!this.ready) { this.queue.push(msg); return; }
    this.ws.send(JSON.stringify(msg));
  }

  /**
   * Sends msg and resolves with the first message for which match(m)
   * is true, or rejects with an error about the same room (or any error
   * without a room when the request names none). Errors carry no request
   * id: `areas` (code prefixes such as 'seek/') narrows the roomless
   * errors taken as this request's, so that another request's refusal
   * arriving meanwhile is not.
   */
  ask(msg, match, areas) {
    const ours = m => m.room === msg.room || (!m.room && (!areas || areas.some(a => m.code.startsWith(a))));
    return new Promise((resolve, reject) => {
      const off = this.on('*', m => {
        if (m.type === 'error' && ours(m)) { off(); reject(m); }
        else if (match(m)) { off(); resolve(m); }
      });
      this.send(msg);
    });
  }
}
