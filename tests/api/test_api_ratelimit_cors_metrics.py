"""Rate limits (Redis-backed, shared by API processes), CORS and Prometheus metrics (issue 8)."""

from __future__ import annotations

from dataclasses import replace

import pytest
from api.app import create_app
from api.config import Settings
from support import eventually

pytestmark = pytest.mark.cluster  # on the single Redis and on a Redis Cluster


def _app(settings, **changes):  # type: ignore[no-untyped-def]
    return create_app({"DOMINO": replace(settings, **changes), "TESTING": True})


def test_the_limit_holds_across_api_processes_with_ratelimit_headers(settings):
    # Two apps = two API processes sharing one Redis: the count is one per client.
    a = _app(settings, rate_limit="5/60").test_client()
    b = _app(settings, rate_limit="5/60").test_client()
    answers = [(a if i % 2 else b).get("/v1/variants") for i in range(5)]
    assert [r.status_code for r in answers] == [200] * 5
    assert answers[0].headers["RateLimit-Policy"] == '"default";q=5;w=60'
    assert answers[0].headers["RateLimit"].startswith('"default";r=4;t=')
    assert answers[-1].headers["RateLimit"].startswith('"default";r=0;t=')
    resp = a.get("/v1/games/abcdefghijklmnop")
    assert resp.status_code == 429
    assert resp.mimetype == "application/problem+json"
    body = resp.get_json()
    assert body["type"] == "/problems/rate-limited" and body["status"] == 429
    assert 1 <= int(resp.headers["Retry-After"]) <= 60
    assert resp.headers["RateLimit"].startswith('"default";r=0;t=')
    # Liveness is exempt; readiness and metrics are counted (they read Redis); another client has its own count.
    assert a.get("/healthz").status_code == 200
    assert a.get("/readyz").status_code == 429
    assert a.get("/metrics").status_code == 429
    other = a.get("/v1/variants", environ_overrides={"REMOTE_ADDR": "127.0.0.2"})
    assert other.status_code == 200


def test_keys_that_name_no_app_count_against_the_address(settings, service):
    """Guessing app keys is 401 after 401, then 429: each failed lookup spends the address's budget."""
    client = _app(settings, rate_limit="4/60").test_client()
    forged = {"Authorization": "Bearer dsk_app_" + "G" * 43}
    assert [client.get("/v1/app", headers=forged).status_code for _ in range(5)] == [401] * 4 + [429]
    assert client.get("/v1/variants").status_code == 429, "the same budget as the address's other requests"
    real = service.create_app("budgeted", None, None, None).key
    assert client.get("/v1/app", headers={"Authorization": f"Bearer {real}"}).status_code == 200, "an app has its own"


def test_the_window_resets(settings):
    client = _app(settings, rate_limit="2/1").test_client()
    assert [client.get("/v1/bots").status_code for _ in range(3)] == [200, 200, 429]
    eventually(lambda: client.get("/v1/bots").status_code == 200, "answered again in a new window", interval=0.05)


def test_behind_a_trusted_proxy_the_forwarded_address_is_the_client(settings):
    client = _app(settings, rate_limit="1/60", proxy_hops=1).test_client()
    assert client.get("/v1/bots", headers={"X-Forwarded-For": "203.0.113.1"}).status_code == 200
    assert client.get("/v1/bots", headers={"X-Forwarded-For": "203.0.113.2"}).status_code == 200
    assert client.get("/v1/bots", headers={"X-Forwarded-For": "203.0.113.1"}).status_code == 429


def test_a_rate_limit_off_sends_no_headers(settings):
    resp = _app(settings, rate_limit="").test_client().get("/v1/bots")
    assert resp.status_code == 200 and "RateLimit" not in resp.headers


@pytest.mark.single_redis  # refused before the game store: the same code on a cluster
def test_cors_preflight_and_exposed_headers(settings):
    client = _app(settings, cors_origins="https://play.example").test_client()
    pre = client.options(
        "/v1/games/abcdefghijklmnop/moves",
        headers={
            "Origin": "https://play.example",
            "Access-Control-Request-Method": "POST",
            "Access-Control-Request-Headers": "Authorization, If-Match, Idempotency-Key, Content-Type",
        },
    )
    assert pre.status_code == 200
    assert pre.headers["Access-Control-Allow-Origin"] == "https://play.example"
    allowed = {h.strip().lower() for h in pre.headers["Access-Control-Allow-Headers"].split(",")}
    assert {"authorization", "if-match", "idempotency-key", "content-type"} <= allowed
    assert "RateLimit" not in pre.headers  # a preflight is not counted
    resp = client.get("/v1/variants", headers={"Origin": "https://play.example"})
    exposed = {h.strip() for h in resp.headers["Access-Control-Expose-Headers"].split(",")}
    assert {"ETag", "Location", "Retry-After", "RateLimit", "RateLimit-Policy"} <= exposed
    assert "Origin" in resp.headers["Vary"]  # the grant depends on the origin
    # Another origin gets no CORS grant.
    resp = client.get("/v1/variants", headers={"Origin": "https://evil.example"})
    assert "Access-Control-Allow-Origin" not in resp.headers and "Origin" in resp.headers["Vary"]


def test_cors_any_origin_by_default_on_answers_and_problems(settings):
    client = _app(settings, cors_origins="*").test_client()
    resp = client.get("/v1/games/abcdefghijklmnop", headers={"Origin": "https://anywhere.example"})
    assert resp.status_code == 404  # a problem is readable cross-origin too
    assert resp.headers["Access-Control-Allow-Origin"] == "*"
    assert "ETag" in resp.headers["Access-Control-Expose-Headers"]
    pre = client.options(
        "/v1/games", headers={"Origin": "https://anywhere.example", "Access-Control-Request-Method": "POST"}
    )
    assert pre.status_code == 200 and pre.headers["Access-Control-Allow-Origin"] == "*"
    assert "POST" in pre.headers["Access-Control-Allow-Methods"] and int(pre.headers["Access-Control-Max-Age"]) > 0
    # Every method the API routes is allowed (PATCH: updateBot).
    pre = client.options("/v1/bots/mybot", headers={"Origin": "https://a.example", "Access-Control-Request-Method": "PATCH"})
    assert {"PATCH", "DELETE"} <= set(pre.headers["Access-Control-Allow-Methods"].split(", "))
    # Without an Origin (not a browser's cross-origin request) nothing CORS is added.
    assert not [h for h in client.get("/v1/variants").headers.keys() if h.startswith("Access-Control")]


def test_metrics_count_requests_moves_bot_turns_and_queues(client, create_game, run_bots):
    data, players, _ = create_game([{"name": "Ana"}, {"bot": "greedy"}], rules={"match_end": "fixed_rounds", "rounds": 1})
    for _ in range(100):
        run_bots()
        view = players[0].view().get_json()
        if view["status"] != "playing":
            break
        if view["legal_moves"]:
            assert players[0].move(view["legal_moves"][0]).status_code == 200
    text = client.get("/metrics").get_data(as_text=True)
    assert 'domino_http_requests_total{method="POST",route="/v1/games",status="201"}' in text
    assert 'domino_http_request_duration_seconds_bucket{le="0.005",method="GET",route="/v1/games/<string:game_id>"}' in text
    assert 'domino_moves_total{by="human",variant="draw"}' in text
    assert 'domino_moves_total{by="bot",variant="draw"}' in text
    assert 'domino_bot_turn_seconds_count{outcome="played"}' in text
    assert "domino_redis_up 1.0" in text
    assert 'domino_queue_depth{queue="bots_due"}' in text


def test_a_big_limit_is_counted_in_batches_and_still_holds(settings, service):
    # 400/60: each process counts 4 at a time; two processes together still stop the client near 400.
    a = _app(settings, rate_limit="400/60").test_client()
    b = _app(settings, rate_limit="400/60").test_client()
    codes = [(a if i % 3 else b).get("/v1/bots").status_code for i in range(420)]
    assert codes[:390].count(200) == 390
    assert codes.count(200) <= 400 and codes[-1] == 429
    counted = int(service.store.queue_redis.get(service.store.limits.key("127.0.0.1")))
    assert counted >= 400


def test_requests_the_body_guard_refuses_count_against_the_limit(settings, create_game):
    client = _app(settings, rate_limit="3/60").test_client()
    refused = [
        client.post("/v1/games", data="{", content_type="application/json"),  # 400
        client.post("/v1/games", data=b"x" * 20_000, content_type="application/json"),  # 413
        client.post("/v1/games", data="{}", content_type="text/plain"),  # 415
    ]
    assert [r.status_code for r in refused] == [400, 413, 415]
    assert refused[-1].headers["RateLimit"].startswith('"default";r=0;')
    assert client.get("/v1/bots").status_code == 429


def test_an_ipv6_client_is_its_64(settings):
    client = _app(settings, rate_limit="2/60").test_client()
    codes = [
        client.get("/v1/bots", environ_overrides={"REMOTE_ADDR": f"2001:db8:1:2::{i:x}"}).status_code
        for i in range(1, 4)
    ]
    assert codes == [200, 200, 429], "addresses of one /64 share one count"
    other = client.get("/v1/bots", environ_overrides={"REMOTE_ADDR": "2001:db8:1:3::1"})
    assert other.status_code == 200, "the next /64 is another client"
    # An IPv4-mapped address is its IPv4 address.
    mapped = _app(settings, rate_limit="1/60").test_client()
    assert mapped.get("/v1/bots", environ_overrides={"REMOTE_ADDR": "::ffff:198.51.100.7"}).status_code == 200
    assert mapped.get("/v1/bots", environ_overrides={"REMOTE_ADDR": "198.51.100.7"}).status_code == 429


def test_metrics_answer_loopback_or_the_token_only(settings):
    outside = {"REMOTE_ADDR": "203.0.113.9"}
    client = _app(settings).test_client()
    assert client.get("/metrics").status_code == 200, "loopback by default"
    refused = client.get("/metrics", environ_overrides=outside)
    assert refused.status_code == 403 and refused.get_json()["type"] == "/problems/forbidden"
    assert "domino_" not in refused.get_data(as_text=True)
    tokened = _app(settings, metrics_token="s3cret-scrape").test_client()
    assert tokened.get("/metrics", environ_overrides=outside, headers={"Authorization": "Bearer wrong"}).status_code == 403
    ok = tokened.get("/metrics", environ_overrides=outside, headers={"Authorization": "Bearer s3cret-scrape"})
    assert ok.status_code == 200 and "domino_redis_up" in ok.get_data(as_text=True)
    network = _app(settings, metrics_allow="203.0.113.0/24").test_client()
    assert network.get("/metrics", environ_overrides=outside).status_code == 200
    assert network.get("/metrics").status_code == 403, "loopback only while it is listed"


def test_an_empty_setting_turns_off_what_it_limits_and_leaves_the_others_at_their_default(settings):
    """`DOMINO_RATE_LIMIT=""` and `DOMINO_CORS_ORIGINS=""` are documented to turn the limit and CORS off; an
    empty `DOMINO_KEY_PREFIX` or `DOMINO_REDIS_URL` means nothing and keeps its default."""
    env = {"DOMINO_RATE_LIMIT": "", "DOMINO_CORS_ORIGINS": "", "DOMINO_KEY_PREFIX": "", "DOMINO_REDIS_URL": ""}
    s = Settings.from_env(env)
    assert s.rate_limit == "" and s.cors_origins == ""
    assert s.key_prefix == Settings().key_prefix and s.redis_url == Settings().redis_url
    app = create_app({"DOMINO": replace(settings, rate_limit=s.rate_limit, cors_origins=s.cors_origins), "TESTING": True})
    resp = app.test_client().get("/v1/variants", headers={"Origin": "https://a.example"})
    assert "RateLimit" not in resp.headers and "Access-Control-Allow-Origin" not in resp.headers
