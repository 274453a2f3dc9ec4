"""Where a write to the console comes from: only the console's own page may change the
table with the lookout's cookie."""

from __future__ import annotations


def cross_site(headers) -> str | None:
    """Why a write comes from another site's or another port's page, or None. A browser
    sends the session cookie with any request to this host, whatever page made it
    (SameSite does not tell one port from another), but says where the request comes
    from: ``Sec-Fetch-Site`` and ``Origin`` must be this very origin's."""
    fetched = headers.get("sec-fetch-site")
    if fetched is not None and fetched not in ("same-origin", "none"):
        return f"a change from another page ({fetched}) is refused: only the console's own page"
    origin = headers.get("origin")
    if origin is None:
        return None  # not a browser's cross-origin request: a script, the CLI
    host = headers.get("host", "")
    if origin.lower() not in (f"http://{host}".lower(), f"https://{host}".lower()):
        return f"a change from {origin} is refused: only the console's own page ({host})"
    return None
