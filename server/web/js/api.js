// The account API over HTTP (/api/...): JSON in and out, and every error
// code the server may answer explained for people.

/** An answer of the API that is not a success. */
export class ApiError extends Error {
  constructor(status, code, message, retryAfterMs) {
    super(message);
    this.status = status;
    this.code = code;
    this.retryAfterMs = retryAfterMs;
  }
}

/**
 * Sends one request; resolves with the JSON body (null for 204), rejects
 * with an ApiError. Same-origin fetches carry the session cookie and an
 * Origin header, which the server checks.
 */
export async function api(method, path, body) {
  let res;
  try {
    res = await fetch(path, {
      method,
      credentials: 'same-origin',
      headers: body === undefined ? {} : { 'Content-Type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  } catch {
    throw new ApiError(0, 'network', 'Could not reach the server: check the connection and try again.');
  }
  if (res.status === 204) return null;
  let data = null;
  try { data = await res.json(); } catch { /* not JSON: explained by the status */ }
  if (!res.ok) {
    throw new ApiError(res.status, (data && data.code) || `http/${res.status}`,
      (data && data.message) || res.statusText, data && data.retry_after_ms);
  }
  return data;
}

/** "3 min", "45 s": a wait, rounded up. */
export function waitText(ms) {
  const s = Math.max(1, Math.ceil(ms / 1000));
  return s >= 90 ? `${Math.ceil(s / 60)} min` : `${s} s`;
}

/**
 * What to tell a person about an error: `field` names the form field it
 * belongs to (or null for the whole form), `text` says what to do.
 */
export function explain(err) {
  const code = err.code || '';
  // The server's own words where they are precise (which character, how
  // many), made a sentence; else ours.
  const said = fallback => (err.message ? `${err.message[0].toUpperCase()}${err.message.slice(1).replace(/\.?$/, '.')}` : fallback);
  switch (code) {
    case 'account/name_taken': return { field: 'name', text: 'That name is taken: choose another one.' };
    case 'account/bad_name': return { field: 'name', text: said('A name has 3 to 20 letters, digits, "_" or "-".') };
    case 'account/name_reserved': return { field: 'name', text: 'That name is reserved: choose another one.' };
    case 'account/bad_password': return { field: 'password', text: said('A password has at least 8 characters (and at most 1024 bytes).') };
    case 'account/bad_kind': return { field: 'kind', text: 'Choose "person" or "bot".' };
    case 'account/not_found': return { field: null, text: 'No player has this name.' };
    case 'auth/bad_credentials': return { field: 'password', text: 'Wrong name or password.' };
    case 'auth/rate_limited': return {
      field: null,
      text: `Too many attempts: try again in ${waitText(err.retryAfterMs || 60000)}.`,
    };
    case 'auth/insecure': return {
      field: null,
      text: 'This server accepts passwords only over https (or from its own machine), so that they never cross the network in clear. Use its https address, or ask its operator.',
    };
    case 'auth/required': return { field: null, text: 'Log in first.' };
    case 'auth/invalid_token': return { field: null, text: 'Your session has ended: log in again.' };
    case 'auth/bad_origin': return { field: null, text: 'The server refused a request from another site\'s page. Reload this page and try again.' };
    case 'token/not_found': return { field: null, text: 'That token no longer exists (it may have been revoked already).' };
    case 'token/bad_label': return { field: 'label', text: said('A label has at most 64 printable characters.') };
    case 'token/too_many': return { field: null, text: 'This account has as many tokens as allowed: revoke one first.' };
    case 'http/too_large': return { field: null, text: 'That is too long for the server.' };
    case 'server/busy': return { field: null, text: 'The server is busy: try again in a moment.' };
    case 'network': return { field: null, text: err.message };
    default: return { field: null, text: err.message || `The server refused (${code}).` };
  }
}
