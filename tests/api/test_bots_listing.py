"""`GET /v1/bots` one page at a time (a JSON array, the next page in the `Link` header), and `owner=me`: the
calling app's registered bots only."""

from __future__ import annotations

import re

import domino.bots

NEXT = re.compile(r'^<(/v1/bots\?[^>]+)>; rel="next"$')


def pages(client, url: str, headers: dict[str, str] | None = None) -> list[list[str]]:  # type: ignore[no-untyped-def]
    """The ids of each page, following `Link` to the end."""
    found: list[list[str]] = []
    while url:
        resp = client.get(url, headers=headers or {})
        assert resp.status_code == 200, resp.get_json()
        assert isinstance(resp.get_json(), list), "a page stays a JSON array"
        found.append([b["id"] for b in resp.get_json()])
        link = resp.headers.get("Link")
        url = NEXT.fullmatch(link).group(1) if link else ""  # type: ignore[union-attr]
        assert len(found) < 50, "the pages end"
    return found


def test_the_listing_pages_through_every_bot_once_in_order(client, register_bot, make_app) -> None:  # type: ignore[no-untyped-def]
    app = make_app()
    names = [f"pager{i}" for i in range(7)]
    for name in names:
        register_bot(name, key=app.key)
    assert client.delete("/v1/bots/pager3", headers={"Authorization": f"Bearer {app.key}"}).status_code == 204
    builtins = [b["id"] for b in domino.bots.catalog()]
    mine = [n for n in names if n != "pager3"]
    everything = pages(client, "/v1/bots")
    assert len(everything) == 1 and everything[0][: len(builtins)] == builtins
    for limit in (1, 2, 3, len(builtins), 5):
        paged = pages(client, f"/v1/bots?limit={limit}")
        flat = [bot for page in paged for bot in page]
        assert flat == everything[0], limit
        assert all(len(page) <= limit for page in paged)
    ours = [b for b in everything[0] if b.startswith("pager")]
    assert ours == mine, "registration order, retired bots left out"


def test_owner_me_lists_the_calling_apps_bots_only(client, register_bot, make_app) -> None:  # type: ignore[no-untyped-def]
    a, b = make_app(), make_app()
    for name, key in (("alpha1", a.key), ("beta1", b.key), ("alpha2", a.key), ("beta2", b.key), ("alpha3", a.key)):
        register_bot(name, key=key)
    auth = {"Authorization": f"Bearer {a.key}"}
    assert pages(client, "/v1/bots?owner=me", auth) == [["alpha1", "alpha2", "alpha3"]]
    assert [bot for page in pages(client, "/v1/bots?owner=me&limit=2", auth) for bot in page] == ["alpha1", "alpha2", "alpha3"]
    assert client.get("/v1/bots?owner=me").status_code == 401
    for bad in ("owner=you", "limit=0", "limit=501", "cursor=nope", "cursor=1.5_Bad"):
        assert client.get(f"/v1/bots?{bad}").status_code == 422, bad
