"""The nginx configuration generator: a pure function of the site (upstreams, stickiness, websockets, gzip, cache)."""

from __future__ import annotations

import re
import subprocess
from dataclasses import replace
from pathlib import Path

import pytest

from deploy import nginx
from deploy.errors import NginxMissingError, ServeConfigError, ServeError
from specviz.core.errors import SpecvizError

PREFIX = Path("/tmp/specviz-serve-test")
SITE = nginx.Site(listen=("0.0.0.0:8501", "[::]:8501"), upstreams=("127.0.0.1:40001", "127.0.0.1:40002"),
                  prefix=PREFIX, static_root=PREFIX / "bundle")


def block(text: str, opening: str) -> str:
    """The body of the first block that starts with `opening` (up to its matching brace)."""
    start = text.index(opening)
    depth, i = 0, text.index("{", start)
    for j in range(i, len(text)):
        depth += {"{": 1, "}": -1}.get(text[j], 0)
        if depth == 0:
            return text[i + 1:j]
    raise AssertionError(f"unbalanced block {opening!r}")


def directives(body: str) -> list[str]:
    """The body's directives, one per statement (a ; inside quotes does not end one), comments dropped."""
    code = "\n".join(line.split("#", 1)[0] for line in body.splitlines())
    found, current, quote = [], "", ""
    for char in code:
        if quote:
            quote = "" if char == quote else quote
        elif char in "\"'":
            quote = char
        elif char in ";{}":
            if current.strip():
                found.append(" ".join(current.split()))
            current = ""
            continue
        current += char
    return found


def test_every_slot_is_filled_and_the_braces_balance():
    text = nginx.render(SITE)
    assert "{{" not in text and "}}" not in text
    code = "\n".join(line.split("#", 1)[0] for line in text.splitlines())
    assert code.count("{") == code.count("}")


def test_the_upstream_lists_every_process_in_order_with_passive_health_checks():
    upstream = directives(block(nginx.render(SITE), "upstream specviz"))
    servers = [d for d in upstream if d.startswith("server ")]
    assert servers == ["server 127.0.0.1:40001 max_fails=1 fail_timeout=5s",
                       "server 127.0.0.1:40002 max_fails=1 fail_timeout=5s"]
    remote = replace(SITE, upstreams=("10.0.0.2:8601", "app-b.example:8601", "[fd00::3]:8601"))
    servers = [d for d in directives(block(nginx.render(remote), "upstream specviz")) if d.startswith("server ")]
    assert [s.split()[1] for s in servers] == ["10.0.0.2:8601", "app-b.example:8601", "[fd00::3]:8601"]


def test_sessions_stick_by_a_cookie_not_by_the_address():
    text = nginx.render(SITE)
    upstream = directives(block(text, "upstream specviz"))
    assert "hash $specviz_route consistent" in upstream
    assert not any("ip_hash" in d for d in upstream)  # a hall behind one NAT shares one address
    route = directives(block(text, "map $cookie_specviz_route $specviz_route"))
    assert route == ['"~^[0-9a-f]{32}$" $cookie_specviz_route', "default $request_id"]
    set_route = directives(block(text, "map $cookie_specviz_route $specviz_set_route"))
    assert set_route[0] == '"~^[0-9a-f]{32}$" ""'  # a visitor with a route keeps it
    assert set_route[1].startswith('default "specviz_route=$request_id; Path=/; HttpOnly')
    page = directives(block(text, "location / {"))
    assert "add_header Set-Cookie $specviz_set_route" in page


def test_the_cookie_name_is_a_setting():
    text = nginx.render(replace(SITE, cookie="course42"))
    assert "map $cookie_course42 $specviz_route" in text and '"course42=$request_id;' in text


def test_the_websocket_is_upgraded_with_long_timeouts():
    text = nginx.render(SITE)
    stream = directives(block(text, "location = /_stcore/stream"))
    for needed in ("proxy_pass http://specviz", "proxy_http_version 1.1", "proxy_set_header Upgrade $http_upgrade",
                   "proxy_set_header Connection $specviz_connection", "proxy_set_header Host $http_host",
                   "proxy_read_timeout 3600s", "proxy_send_timeout 3600s", "proxy_buffering off"):
        assert needed in stream
    upgrade = directives(block(text, "map $http_upgrade $specviz_connection"))
    assert upgrade == ["default upgrade", '"" ""']  # no upgrade: keep the upstream connection alive


def test_the_bundle_is_precompressed_and_cached_for_a_year_and_the_rest_is_gzipped():
    text = nginx.render(SITE)
    bundle = directives(block(text, "location /static/"))
    assert f"root {PREFIX / 'bundle'}" in bundle and "gzip_static on" in bundle
    assert 'add_header Cache-Control "public, max-age=31536000, immutable"' in bundle
    assert "try_files $uri @specviz" in bundle  # a file this folder lacks comes from the app
    http = directives(block(text, "http {"))
    assert "gzip on" in http and "gzip_proxied any" in http
    types = next(d for d in http if d.startswith("gzip_types"))
    assert "application/javascript" in types and "text/css" in types and "application/json" in types


def test_every_path_is_inside_the_folder_and_nothing_system_wide_is_read():
    text = nginx.render(SITE)
    code = [d for d in directives(text) if d.split()[0] in
            ("pid", "error_log", "access_log", "client_body_temp_path", "proxy_temp_path", "fastcgi_temp_path",
             "uwsgi_temp_path", "scgi_temp_path")]
    code = [d for d in code if d != "access_log off"]
    assert len(code) == 8
    for d in code:
        assert d.split()[1].startswith(str(PREFIX)), d
    assert "include" not in " ".join(d.split()[0] for d in directives(text))
    assert "daemon off" in directives(text)  # the supervisor keeps nginx as its own child


def test_listen_addresses_and_the_user_line():
    text = nginx.render(SITE)
    server = directives(block(text, "server {"))
    assert "listen 0.0.0.0:8501" in server and "listen [::]:8501" in server
    assert not any(d.startswith("user ") for d in directives(text))
    assert "user root root" in directives(nginx.render(replace(SITE, run_as="root root")))


def test_nginx_answers_its_own_health():
    health = directives(block(nginx.render(SITE), "location = /healthz"))
    assert 'return 200 "ok\\n"' in health


@pytest.mark.parametrize("change, field", [
    ({"upstreams": ()}, "upstreams"),
    ({"upstreams": ("127.0.0.1",)}, "upstream '127.0.0.1'"),
    ({"upstreams": ("127.0.0.1:0",)}, "upstream '127.0.0.1:0'"),
    ({"upstreams": ("127.0.0.1:70000",)}, "port from 1 to 65535"),
    ({"upstreams": ("bad host:8601",)}, "the host must be"),
    ({"upstreams": ("127.0.0.1:1", "127.0.0.1:1")}, "names a process twice"),
    ({"listen": ()}, "listen"),
    ({"cookie": "bad-name"}, "cookie 'bad-name'"),
    ({"prefix": Path("relative")}, "prefix 'relative'"),
    ({"static_root": Path("/tmp/with space")}, "static_root"),
    ({"worker_connections": 0}, "worker_connections 0"),
])
def test_a_bad_site_is_refused_naming_the_field(change, field):
    with pytest.raises(ServeConfigError, match=re.escape(field)) as caught:
        nginx.render(replace(SITE, **change))
    assert isinstance(caught.value, SpecvizError) and isinstance(caught.value, ValueError)


def test_an_unknown_template_slot_is_refused():
    with pytest.raises(ServeConfigError, match="nowhere"):
        nginx.render(SITE, template="events {} # {{ nowhere }}")


def test_the_command_line_keeps_every_path_in_the_folder():
    conf = PREFIX / "nginx.conf"
    assert nginx.nginx_argv("/usr/sbin/nginx", PREFIX, conf, (1, 22, 1)) == [
        "/usr/sbin/nginx", "-p", str(PREFIX), "-c", str(conf), "-e", str(PREFIX / "logs" / "error.log")]
    old = nginx.nginx_argv("nginx", PREFIX, conf, (1, 18, 0), test=True)
    assert "-e" not in old and old[-2:] == ["-t", "-q"]


def test_missing_nginx_says_what_to_install(monkeypatch):
    monkeypatch.setattr(nginx, "NGINX_PLACES", ())
    with pytest.raises(NginxMissingError, match="apt-get install -y nginx") as caught:
        nginx.find_nginx({"PATH": ""})
    assert isinstance(caught.value, ServeError)
    assert "make run" in str(caught.value)
    with pytest.raises(NginxMissingError, match="not an executable"):
        nginx.find_nginx({"NGINX": "/nonexistent/nginx", "PATH": ""})


def test_nginx_itself_accepts_the_configuration(tmp_path):
    try:
        program = nginx.find_nginx()
    except NginxMissingError:
        pytest.skip("nginx is not installed (apt-get install nginx)")
    (tmp_path / "logs").mkdir()
    (tmp_path / "tmp").mkdir()
    (tmp_path / "bundle").mkdir()
    site = replace(SITE, prefix=tmp_path, static_root=tmp_path / "bundle", listen=("127.0.0.1:1",))
    conf = tmp_path / "nginx.conf"
    conf.write_text(nginx.render(site))
    argv = nginx.nginx_argv(program, tmp_path, conf, nginx.nginx_version(program), test=True)
    checked = subprocess.run(argv, capture_output=True, text=True, timeout=30)
    error_log = (tmp_path / "logs" / "error.log").read_text() if (tmp_path / "logs" / "error.log").exists() else ""
    assert checked.returncode == 0, checked.stderr + error_log
