"""The server's JSON HTTP API, on the game port: accounts, tokens,
tournament pages. Blocking `urllib` run in a thread, so that it needs no
other library."""

from __future__ import annotations

import asyncio
import base64
import json
import urllib.error
import urllib.request
from typing import Any, Optional, Tuple

from .connection import tls_context
from .errors import ParlorError

# Seconds one request may take: every API answer is small and quick.
HTTP_TIMEOUT = 10.0


def http_url(url: str, path: str) -> str:
    """The HTTP URL of `path` on the server at WebSocket URL `url`."""
    scheme = "https" if url.startswith("wss://") else "http"
    return f"{scheme}://{url.split('://', 1)[-1].split('/', 1)[0]}{path}"


def _call(url: str, method: str, path: str, body: Any, token: Optional[str],
          basic: Optional[Tuple[str, str]], ca_file: Optional[str]) -> Any:
    data = json.dumps(body).encode() if body is not None else (b"" if method == "POST" else None)
    req = urllib.request.Request(http_url(url, path), method=method, data=data)
    req.add_header("Content-Type", "application/json")
    if token:
        req.add_header("Authorization", f"Bearer {token}")
    elif basic:
        pair = base64.b64encode(f"{basic[0]}:{basic[1]}".encode()).decode()
        req.add_header("Authorization", f"Basic {pair}")
    try:
        with urllib.request.urlopen(req, timeout=HTTP_TIMEOUT,
                                    context=tls_context(url, ca_file)) as r:
            text = r.read()
            return json.loads(text) if text else None
    except urllib.error.HTTPError as e:
        try:
            refusal = json.load(e)
        except ValueError:
            refusal = {"code": "client/http", "message": f"HTTP {e.code} {e.reason}"}
        error = ParlorError.from_message(refusal)
        error.status = e.code
        raise error from None


async def api(url: str, method: str, path: str, body: Any = None, *,
              token: Optional[str] = None, basic: Optional[Tuple[str, str]] = None,
              ca_file: Optional[str] = None) -> Any:
    """One request to the HTTP API of the server at WebSocket URL `url`,
    authenticated by API `token` or `basic` (name, password); the decoded
    JSON answer (None when empty). A refusal raises `ParlorError` with its
    `status`; an unreachable server, `OSError`."""
    return await asyncio.to_thread(_call, url, method, path, body, token, basic, ca_file)
