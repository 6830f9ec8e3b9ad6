"""Cut a Python process off the network: loopback only, every other attempt logged and refused.

The end-to-end fixtures put this folder first on PYTHONPATH of the ``streamlit run``
they start, so Python imports it at start-up (``site`` imports ``sitecustomize``) and
the audit hook below sees every name lookup and socket connect in the server, in any
thread: Streamlit's own calls (an external-IP check, telemetry) and the app's (a model
hub). A refused attempt fails the way it fails in a lecture room with no network
(``socket.gaierror`` / ``OSError``), and one line is appended to ``$SPECVIZ_E2E_NETLOG``
for the offline test to report. A UDP ``connect`` sends nothing (Streamlit uses one to
find the machine's LAN address); it is refused too but logged as ``probe``.
"""

from __future__ import annotations

import errno
import ipaddress
import os
import socket
import sys

_LOG = os.environ.get("SPECVIZ_E2E_NETLOG", "")
_LOCAL_NAMES = {"", "localhost", "localhost.localdomain", "ip6-localhost", "ip6-loopback"}
try:
    _LOCAL_NAMES.add(socket.gethostname().lower())
except OSError:  # pragma: no cover
    pass


def _is_local(host: object) -> bool:
    if host is None:
        return True
    if isinstance(host, bytes):
        host = host.decode("ascii", "replace")
    name = str(host).strip("[]").lower()
    if name in _LOCAL_NAMES:
        return True
    try:
        address = ipaddress.ip_address(name.split("%")[0])
    except ValueError:
        return False
    return address.is_loopback or address.is_unspecified


def _record(line: str) -> None:
    if _LOG:
        with open(_LOG, "a", encoding="utf-8") as log:
            log.write(line + "\n")


def _hook(event: str, args: tuple) -> None:
    if event == "socket.getaddrinfo" or event.startswith("socket.gethostby"):
        host = args[0]
        if not _is_local(host):
            _record(f"lookup {host!r} ({event})")
            raise socket.gaierror(socket.EAI_NONAME, f"specviz e2e: no network (lookup of {host!r})")
    elif event in ("socket.connect", "socket.sendto", "socket.sendmsg"):
        sock, address = args[0], args[1]
        if isinstance(address, tuple) and address and not _is_local(address[0]):
            kind = "probe" if getattr(sock, "type", None) == socket.SOCK_DGRAM and event == "socket.connect" \
                else "connect"
            _record(f"{kind} {address[0]}:{address[1] if len(address) > 1 else ''} ({event})")
            raise OSError(errno.ENETUNREACH, f"specviz e2e: no network (connect to {address[0]})")


if _LOG:
    sys.addaudithook(_hook)
