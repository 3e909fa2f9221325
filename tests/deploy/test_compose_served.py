"""docker-compose's topology served without Docker: Debian's nginx with deploy/nginx.conf (its upstreams and
its port pointed at loopback) in front of the two gunicorns, started with the commands docker-compose.yml gives
them (REST on 4 sync workers, the streams on gevent). A registered bot's 4 long polls, as the README's bot
does, leave REST answering (they were routed to the sync workers, and took all 4); one address's slow bodies
past its connection cap get nginx's 429 problem while liveness keeps answering.

CI installs Debian's ``nginx-light`` (.ci/run); elsewhere the test skips when no nginx is found."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import threading
from pathlib import Path

import httpx
import pytest
import yaml

from slow_clients import first_answers, raise_open_files, slow_body, status
from support import blocked_clients, end_server, eventually, returns_within, serving
from workers.redis_server import free_port

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[2]


def nginx_binary() -> str:
    found = shutil.which("nginx") or next((p for p in ("/usr/sbin/nginx",) if os.path.exists(p)), None)
    if found is None:
        if os.environ.get("CI") == "true":
            pytest.fail("no nginx: .ci/run installs nginx-light")
        pytest.skip("no nginx here")
    return found


def compose_server(name: str, port: int, env: dict[str, str]) -> subprocess.Popen[bytes]:
    """The compose service ``name``'s gunicorn command, bound to 127.0.0.1:``port``."""
    services = yaml.safe_load((ROOT / "docker-compose.yml").read_text())["services"]
    command = [part.replace("0.0.0.0:8000", f"127.0.0.1:{port}") for part in services[name]["command"]]
    assert command[0] == "gunicorn"
    return subprocess.Popen(
        [sys.executable, "-m", *command, "--no-control-socket", "--log-level", "warning"],
        env=env,
        cwd=ROOT,
        stdout=subprocess.DEVNULL,
        start_new_session=True,
    )


def nginx_conf(tmp: Path, port: int, api: int, streams: int) -> Path:
    conf = (ROOT / "deploy" / "nginx.conf").read_text()
    conf = conf.replace("server api:8000;", f"server 127.0.0.1:{api};").replace(
        "server streams:8000;", f"server 127.0.0.1:{streams};"
    )
    conf = re.sub(r"listen 8080;", f"listen 127.0.0.1:{port};", conf)
    # Its own files, not the system's: temporary bodies, no access log.
    conf = conf.replace("http {", f"http {{\n  client_body_temp_path {tmp}/body;\n  proxy_temp_path {tmp}/proxy;\n  access_log off;", 1)
    path = tmp / "nginx.conf"
    path.write_text(conf)
    return path


@pytest.fixture
def proxied(settings, tmp_path):  # type: ignore[no-untyped-def]
    nginx = nginx_binary()
    raise_open_files(4096)
    env = {
        **os.environ,
        "DOMINO_REDIS_URL": settings.redis_url,
        "DOMINO_KEY_PREFIX": settings.key_prefix,
        "DOMINO_PROXY_HOPS": "1",
        "PYTHONPATH": str(ROOT),
    }
    api_port, streams_port, port = free_port(), free_port(), free_port()
    metrics = tmp_path / "metrics"
    metrics.mkdir()
    api = compose_server("api", api_port, {**env, "PROMETHEUS_MULTIPROC_DIR": str(metrics)})
    streams = compose_server("streams", streams_port, env)
    conf = nginx_conf(tmp_path, port, api_port, streams_port)
    user = "user root;" if os.geteuid() == 0 else ""  # its workers read this test's folder
    proxy = subprocess.Popen(
        [nginx, "-p", str(tmp_path), "-c", str(conf), "-g", f"daemon off; pid {tmp_path}/nginx.pid; error_log {tmp_path}/error.log; {user}"],
        start_new_session=True,
    )
    try:
        for base, proc in ((f"http://127.0.0.1:{api_port}", api), (f"http://127.0.0.1:{streams_port}", streams)):
            assert serving(base, proc)
        assert serving(f"http://127.0.0.1:{port}", proxy), (tmp_path / "error.log").read_text()
        yield port
    finally:
        for proc in (proxy, api, streams):
            end_server(proc, grace=10)


def test_a_bots_four_long_polls_leave_rest_answering(proxied, register_bot, service, client, app_key):
    bot = register_bot("pollster")
    conn = service.store.redis
    readers = blocked_clients(conn, "xread")
    done = []

    def long_poll() -> None:
        with httpx.Client(timeout=60) as http:
            resp = http.get(f"http://127.0.0.1:{proxied}/v1/bot/events?wait=30", headers={"Authorization": f"Bearer {bot['token']}"})
            done.append(resp.status_code)

    polls = [threading.Thread(target=long_poll, daemon=True) for _ in range(4)]
    for poll in polls:
        poll.start()
    eventually(lambda: blocked_clients(conn, "xread") >= readers + 4, "the bot's 4 long polls wait")
    with httpx.Client(base_url=f"http://127.0.0.1:{proxied}", timeout=60) as http:
        for path in ("/v1/variants", "/healthz", "/v1/games?status=waiting"):
            resp = returns_within(20, lambda path=path: http.get(path))  # well inside the polls' 30 s
            assert resp.status_code == 200, (path, resp.text)
    assert not done, "the long polls were still waiting while REST answered"
    # A game seating the bot: its notice ends the 4 polls (rather than their 30 s running out).
    game = {"variant": "draw", "seats": [{"bot": "pollster"}, {"bot": "greedy"}]}
    assert client.post("/v1/games", json=game, headers={"Authorization": f"Bearer {app_key}"}).status_code == 201
    for poll in polls:
        poll.join(60)
    assert done == [200] * 4


def test_one_address_past_its_connections_gets_a_429_problem_and_liveness_answers(proxied):
    held = [slow_body(proxied, source="127.0.0.7") for _ in range(260)]  # the cap is 256 per address
    try:
        # Four of them are refused at once, whichever nginx's workers read last; the others wait for their body.
        refused = returns_within(30, lambda: first_answers(held, 4))
        assert len(refused) == 4, refused
        for raw in refused:
            assert status(raw) == 429 and b"application/problem+json" in raw, raw[:300]
            assert b"/problems/too-many-in-flight" in raw
        with httpx.Client(base_url=f"http://127.0.0.1:{proxied}", timeout=60) as http:
            assert http.get("/healthz").status_code == 200  # another address
    finally:
        for sock in held:
            sock.close()
