"""The nginx configuration for several Streamlit processes: a pure function of the site, plus finding nginx."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

from .errors import NginxMissingError, ServeConfigError

TEMPLATE = Path(__file__).with_name("nginx.conf.template")
PLACEHOLDER = re.compile(r"\{\{ (\w+) \}\}")
COOKIE_NAME = re.compile(r"^[A-Za-z0-9_]{1,64}$")
HOSTNAME = re.compile(r"^[A-Za-z0-9]([A-Za-z0-9.-]{0,251}[A-Za-z0-9])?$")
ROUTE_COOKIE = "specviz_route"
# nginx's -e (the error log before the configuration is read) arrived in 1.19.5
ERROR_LOG_FLAG_SINCE = (1, 19, 5)
# where nginx lives when /usr/sbin is not on a user's PATH (Debian), or Homebrew's
NGINX_PLACES = ("/usr/sbin/nginx", "/usr/local/sbin/nginx", "/usr/local/bin/nginx", "/opt/homebrew/bin/nginx")
INSTALL_HINT = """nginx is not installed (looked for `nginx` on PATH and in {places}).
`make serve` runs its own nginx as you, with its configuration in a temporary folder; install the program:
  Debian, Ubuntu:  sudo apt-get install -y nginx      (then, if you do not want the system's own web server:
                                                        sudo systemctl disable --now nginx)
  Fedora:          sudo dnf install -y nginx
  macOS:           brew install nginx
or set NGINX=/path/to/nginx. `make run` starts one process without nginx."""


@dataclass(frozen=True)
class Site:
    """Everything the configuration says: where it listens, the app processes, and its own folder."""

    listen: tuple[str, ...]  # "0.0.0.0:8501", "[::]:8501"
    upstreams: tuple[str, ...]  # the Streamlit processes, "127.0.0.1:40123" or "10.0.0.3:8601"
    prefix: Path  # the folder for pid, logs and temp files
    static_root: Path  # holds static/: the bundle, precompressed
    cookie: str = ROUTE_COOKIE
    run_as: str | None = None  # "root root" when started as root (nginx's workers would become nobody)
    worker_processes: int = 1  # nginx is not the bottleneck: leave the cores to the app processes
    worker_connections: int = 4096  # a student holds two (browser side, app side)
    websocket_timeout_s: int = 3600
    max_fails: int = 1  # a process that refuses a connection is left alone for fail_timeout_s
    fail_timeout_s: int = 5
    max_body: str = "200m"


def split_address(text: str, what: str = "address") -> tuple[str, int]:
    """"host:port" (host a name, an IPv4 address or [an IPv6 address]) as (host, port), or a precise refusal."""
    host, sep, port_text = text.rpartition(":")
    if not sep or not port_text.isdigit() or not 1 <= int(port_text) <= 65535:
        raise ServeConfigError(f"{what} {text!r}: expected host:port with a port from 1 to 65535")
    bare = host[1:-1] if host.startswith("[") and host.endswith("]") else host
    if not (HOSTNAME.match(bare) or (host != bare and re.fullmatch(r"[0-9A-Fa-f:.]+", bare))):
        raise ServeConfigError(f"{what} {text!r}: the host must be a name, an IPv4 address or [an IPv6 address]")
    return host, int(port_text)


def check_site(site: Site) -> None:
    """Refuse a site nginx would refuse later, naming the field."""
    if not site.upstreams:
        raise ServeConfigError("upstreams: none given; at least one app process (host:port) is needed")
    if not site.listen:
        raise ServeConfigError("listen: none given; at least one host:port is needed")
    for upstream in site.upstreams:
        split_address(upstream, "upstream")
    for listen in site.listen:
        split_address(listen, "listen")
    if len(set(site.upstreams)) != len(site.upstreams):
        raise ServeConfigError(f"upstreams: {list(site.upstreams)} names a process twice")
    if not COOKIE_NAME.match(site.cookie):
        raise ServeConfigError(f"cookie {site.cookie!r}: use 1 to 64 letters, digits or underscores")
    for name in ("prefix", "static_root"):
        path = getattr(site, name)
        if not path.is_absolute() or any(c in str(path) for c in ' ;{}"\'\n'):
            raise ServeConfigError(f"{name} {str(path)!r}: an absolute path without spaces, quotes, ; or braces")
    for name in ("worker_processes", "worker_connections", "websocket_timeout_s", "max_fails", "fail_timeout_s"):
        if getattr(site, name) < 1:
            raise ServeConfigError(f"{name} {getattr(site, name)}: must be at least 1")


def render(site: Site, template: str | None = None) -> str:
    """The nginx.conf text for the site (the template's {{ name }} slots filled; none may stay empty)."""
    check_site(site)
    servers = "\n".join(f"        server {u} max_fails={site.max_fails} fail_timeout={site.fail_timeout_s}s;"
                        for u in site.upstreams)
    values = {
        "user": f"user {site.run_as};" if site.run_as else "# (not started as root: nginx runs as this user)",
        "worker_processes": str(site.worker_processes),
        "worker_connections": str(site.worker_connections),
        "prefix": str(site.prefix),
        "static_root": str(site.static_root),
        "cookie": site.cookie,
        "servers": servers,
        "listen": "\n".join(f"        listen {address};" for address in site.listen),
        "websocket_timeout": f"{site.websocket_timeout_s}s",
        "max_body": site.max_body,
    }
    text = TEMPLATE.read_text() if template is None else template

    def fill(match: re.Match[str]) -> str:
        if match.group(1) not in values:
            raise ServeConfigError(f"template slot {{{{ {match.group(1)} }}}} has no value")
        return values[match.group(1)]

    return PLACEHOLDER.sub(fill, text)


def find_nginx(env: dict[str, str] | None = None) -> str:
    """The nginx program to run: $NGINX, else on PATH, else a usual place; NginxMissingError says what to install."""
    env = os.environ if env is None else env
    if env.get("NGINX"):
        if os.access(env["NGINX"], os.X_OK):
            return env["NGINX"]
        raise NginxMissingError(f"NGINX={env['NGINX']!r} is not an executable program")
    found = shutil.which("nginx", path=env.get("PATH"))
    if found:
        return found
    for place in NGINX_PLACES:
        if os.access(place, os.X_OK):
            return place
    raise NginxMissingError(INSTALL_HINT.format(places=", ".join(NGINX_PLACES)))


def nginx_version(nginx: str) -> tuple[int, ...]:
    """(1, 22, 1) from `nginx -v` (it prints to stderr), or () when it says nothing readable."""
    out = subprocess.run([nginx, "-v"], capture_output=True, text=True, timeout=10)
    found = re.search(r"nginx/(\d+)\.(\d+)\.(\d+)", out.stderr + out.stdout)
    return tuple(int(x) for x in found.groups()) if found else ()


def nginx_argv(nginx: str, prefix: Path, conf: Path, version: tuple[int, ...], test: bool = False) -> list[str]:
    """The command that runs (or with test, checks) this configuration, logging to the folder from the start."""
    argv = [nginx, "-p", str(prefix), "-c", str(conf)]
    if version >= ERROR_LOG_FLAG_SINCE:
        argv += ["-e", str(prefix / "logs" / "error.log")]
    return argv + (["-t", "-q"] if test else [])
