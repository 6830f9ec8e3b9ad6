"""`make serve`: the app for a lecture hall, several Streamlit processes behind nginx on one address.

    python scripts/serve.py [--port 8501] [--workers N]          # N defaults to the number of CPU cores

starts N `streamlit run app.py` processes on free loopback ports, waits until each answers its health check,
then runs nginx (as you, configuration and logs in a temporary folder) on the port: sticky sessions by cookie,
websockets, the static bundle precompressed and cached for a year. Ctrl-C stops everything. More machines:
`--upstream HOST:PORT` adds a process running elsewhere, `--workers-only` runs processes for another machine's
nginx; `--print-config` prints the nginx configuration (docs/hosting.md).
"""

from __future__ import annotations

import argparse
import ipaddress
import os
import re
import resource
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from deploy import nginx, static, workers  # noqa: E402  (run as a script: the repository root goes first)
from deploy.errors import ServeConfigError, ServeError  # noqa: E402
from deploy.supervisor import Child, Supervisor  # noqa: E402

MAX_RESTARTS = 3  # a worker that keeps dying is left down (nginx sends its visitors to the others)
HEALTH_TIMEOUT_S = 120.0
EXIT_FAILED, EXIT_SETUP = 1, 2


@dataclass(frozen=True)
class Plan:
    """What to start: the app processes here, the ones elsewhere, and where nginx listens."""

    specs: tuple[workers.WorkerSpec, ...]
    remote: tuple[str, ...]
    listen: tuple[str, ...]
    port: int
    folder: Path | None  # None: a new temporary folder, made once every setting is checked
    keep: bool

    @property
    def upstreams(self) -> tuple[str, ...]:
        return tuple(f"{s.host}:{s.port}" for s in self.specs) + self.remote


MAX_WORKERS = 64


def cpu_count() -> int:
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)


class Parser(argparse.ArgumentParser):
    """argparse whose refusals are one line naming the flag, the value and what is allowed (not the usage block)."""

    def error(self, message: str) -> None:  # type: ignore[override]
        raise ServeConfigError(f"{message} (see scripts/serve.py --help)")


def whole(low: int, high: int, what: str) -> Callable[[str], int]:
    """A reader of whole numbers in low..high; argparse names the flag in front of its refusal."""

    def read(text: str) -> int:
        if not re.fullmatch(r"[+-]?[0-9]{1,12}", text.strip()):
            raise argparse.ArgumentTypeError(f"{text!r} is not a whole number; use {low} to {high} ({what})")
        value = int(text)
        if not low <= value <= high:
            raise argparse.ArgumentTypeError(f"{text!r} is out of range; use {low} to {high} ({what})")
        return value

    read.__name__ = "whole number"
    return read


def host(text: str) -> str:
    """An address to listen on: a host name, an IPv4 address or an IPv6 address (brackets optional)."""
    bare = text[1:-1] if text.startswith("[") and text.endswith("]") else text
    try:
        ipaddress.ip_address(bare)
        return text
    except ValueError:
        pass
    if nginx.HOSTNAME.match(bare) and not bare.replace(".", "").isdigit():
        return text
    raise argparse.ArgumentTypeError(f"{text!r} is not an address; use a host name, an IPv4 address such as "
                                     "127.0.0.1 or an IPv6 address such as ::1")


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    """The flags, each read and range-checked by its type: a refusal is ServeConfigError, one line."""
    ap = Parser(prog="scripts/serve.py", description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    port = whole(1, 65535, "a TCP port")
    ap.add_argument("--port", type=port, default=os.environ.get("PORT", "8501"), help="nginx's port (8501)")
    ap.add_argument("--address", type=host, action="append", default=None,
                    help="address nginx listens on (repeatable; default all IPv4 and IPv6 interfaces)")
    ap.add_argument("--workers", type=whole(0, MAX_WORKERS, "app processes here; 0 only with --upstream"),
                    default=None, help=f"app processes here, 0 to {MAX_WORKERS} (default: the CPU count)")
    ap.add_argument("--upstream", action="append", default=[], metavar="HOST:PORT",
                    help="an app process on another machine (repeatable; see --workers-only)")
    ap.add_argument("--workers-only", action="store_true",
                    help="start the app processes only (for another machine's nginx) and print their upstream lines")
    ap.add_argument("--worker-address", type=host, default="127.0.0.1", help="address the app processes listen on")
    ap.add_argument("--worker-port", type=port, default=None,
                    help="first app process port, 1 to 65535 (then consecutive; default: free ports)")
    ap.add_argument("--no-freeze", action="store_true",
                    help="no preloading (default: deploy/worker.py imports the libraries and freezes them out of "
                         "the garbage collector before the app starts)")
    ap.add_argument("--app", default=str(ROOT / "app.py"))
    ap.add_argument("--python", default=sys.executable)
    ap.add_argument("--dir", default=None, help="folder for the configuration and logs (default: a new temporary one)")
    ap.add_argument("--keep", action="store_true", help="keep that folder after stopping (it is kept after a failure)")
    ap.add_argument("--print-config", action="store_true", help="print the nginx configuration and exit")
    return ap.parse_args(argv)


def listen_addresses(args: argparse.Namespace) -> tuple[str, ...]:
    """Every interface, IPv4 and (where the machine has it) IPv6, like `make run`; or the given addresses."""
    if args.address:
        return tuple(f"[{a}]:{args.port}" if ":" in a and not a.startswith("[") else f"{a}:{args.port}"
                     for a in args.address)
    both = [f"0.0.0.0:{args.port}"]
    if socket.has_ipv6 and workers.port_is_free("::1", 0):
        both.append(f"[::]:{args.port}")
    return tuple(both)


def check_folder(text: str) -> Path:
    """--dir as an absolute path that is, or can become, a folder (nothing is made here)."""
    folder = Path(text).expanduser().resolve()
    if folder.exists() and not folder.is_dir():
        raise ServeConfigError(f"--dir {text!r} is a file, not a folder; give a folder for the configuration and "
                               "logs (made when missing)")
    for parent in folder.parents:
        if parent.exists():
            if not parent.is_dir() or not os.access(parent, os.W_OK | os.X_OK):
                raise ServeConfigError(f"--dir {text!r}: no folder can be made in {str(parent)!r}; give a folder "
                                       "you can write")
            break
    return folder


def check_programs(args: argparse.Namespace) -> None:
    """--python names a program that runs, --app a file that exists: before any process starts."""
    found = shutil.which(args.python)
    if found is None:
        raise ServeConfigError(f"--python {args.python!r}: no such program; give the Python that runs the app "
                               f"(default: this one, {sys.executable})")
    if not Path(args.app).is_file():
        raise ServeConfigError(f"--app {args.app!r}: no such file; give the app's entry (default: {ROOT / 'app.py'})")


def worker_ports(args: argparse.Namespace, count: int) -> list[int]:
    """The app processes' ports: free ones, or --worker-port and the next ones, each checked free now."""
    host = args.worker_address.strip("[]")
    try:
        free = workers.free_ports(max(count, 1), host)  # also proves the address is one of this machine's
    except OSError as error:
        raise ServeConfigError(f"--worker-address {args.worker_address!r}: the app processes cannot listen there "
                               f"({error.strerror or error}); use an address of this machine, e.g. 127.0.0.1") \
            from None
    if args.worker_port is None:
        return free[:count]
    ports = list(range(args.worker_port, args.worker_port + count))
    if ports and ports[-1] > 65535:
        raise ServeConfigError(f"--worker-port {args.worker_port}: {count} ports from there pass 65535; use a first "
                               f"port up to {65536 - count}")
    busy = [p for p in ports if not workers.port_is_free(host, p)]
    if busy:
        raise ServeConfigError(f"--worker-port {args.worker_port}: port {busy[0]} is in use on {args.worker_address} "
                               f"(the app processes take ports {ports[0]} to {ports[-1]}); choose another first "
                               "port, or leave --worker-port out for free ports")
    return ports


def make_plan(args: argparse.Namespace) -> Plan:
    """Check every setting (ServeConfigError names the bad one) and choose ports; nothing is started or made."""
    count = cpu_count() if args.workers is None else args.workers
    if not 0 <= count <= MAX_WORKERS:
        raise ServeConfigError(f"--workers {count}: use 0 to {MAX_WORKERS} app processes (0 only with --upstream)")
    if count == 0 and not args.upstream:
        raise ServeConfigError("--workers 0: with no --upstream there would be no app process to serve")
    if not 1 <= args.port <= 65535:
        raise ServeConfigError(f"--port {args.port}: use a port from 1 to 65535")
    for upstream in args.upstream:
        nginx.split_address(upstream, "--upstream")
    folder = check_folder(args.dir) if args.dir else None
    if not (args.print_config and count == 0):
        check_programs(args)
    ports = worker_ports(args, count)
    secret = os.environ.get("SPECVIZ_COOKIE_SECRET") or secrets.token_hex(32)
    specs = tuple(workers.WorkerSpec(args.python, Path(args.app), args.worker_address.strip("[]"), p, secret,
                                     freeze=not args.no_freeze) for p in ports)
    return Plan(specs, tuple(args.upstream), listen_addresses(args), args.port, folder, args.keep)


def site_for(plan: Plan, static_root: Path) -> nginx.Site:
    run_as = "root root" if os.geteuid() == 0 else None  # else nginx's workers would drop to `nobody`
    return nginx.Site(listen=plan.listen, upstreams=plan.upstreams, prefix=plan.folder, static_root=static_root,
                      run_as=run_as, worker_connections=connections_allowed())


def connections_allowed() -> int:
    """nginx's worker_connections: 4096, or what the open-files limit leaves (raised to its hard limit first)."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if hard != resource.RLIM_INFINITY and soft < hard:
        resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))  # the children inherit it
        soft = hard
    return max(64, min(4096, soft // 2 - 32 if soft != resource.RLIM_INFINITY else 4096))


def start_workers(sup: Supervisor, plan: Plan) -> list[Child]:
    children = [Child(f"app {i + 1} ({s.host}:{s.port})", workers.worker_argv(s),
                      plan.folder / "logs" / f"app-{i + 1}.log", env=workers.worker_env(s), cwd=ROOT)
                for i, s in enumerate(plan.specs)]
    for child in children:
        sup.start(child)
    return children


def await_health(sup: Supervisor, children: list[Child], plan: Plan) -> None:
    """Every app process answers /_stcore/health, or ServeError says which did not, with its log."""
    urls = [workers.url_of(s.host, s.port, workers.HEALTH_PATH) for s in plan.specs]
    failed = workers.wait_healthy(urls, lambda i: children[i].alive(), sup.stopping.is_set, HEALTH_TIMEOUT_S)
    if failed and not sup.stopping.is_set():
        child = children[failed[0]]
        state = "exited" if not child.alive() else f"did not answer {urls[failed[0]]} in {HEALTH_TIMEOUT_S:.0f} s"
        raise ServeError(f"{child.name} {state}; the end of {child.log}:\n{workers.log_tail(child.log)}")


def start_nginx(sup: Supervisor, plan: Plan, program: str) -> Child:
    """Link and compress the bundle, write and test the configuration, start nginx, check it answers."""
    for sub in ("logs", "tmp"):
        (plan.folder / sub).mkdir(parents=True, exist_ok=True)
    shutil.rmtree(plan.folder / "bundle", ignore_errors=True)  # a --dir used before
    bundle = static.build(plan.folder / "bundle")
    conf = plan.folder / "nginx.conf"
    conf.write_text(nginx.render(site_for(plan, plan.folder / "bundle")))
    version = nginx.nginx_version(program)
    test = subprocess.run(nginx.nginx_argv(program, plan.folder, conf, version, test=True), capture_output=True,
                          text=True, timeout=30)
    error_log = plan.folder / "logs" / "error.log"
    if test.returncode != 0:
        raise ServeError(f"nginx refused {conf}:\n{test.stderr.strip() or workers.log_tail(error_log)}")
    child = sup.start(Child("nginx", nginx.nginx_argv(program, plan.folder, conf, version),
                            plan.folder / "logs" / "nginx.out", stop_signal=signal.SIGTERM))
    host, port = nginx.split_address(plan.listen[0])
    failed = workers.wait_healthy([workers.url_of(host, port, "/_stcore/health")], lambda _: child.alive(),
                                  sup.stopping.is_set, 30.0)
    if failed and not sup.stopping.is_set():
        raise ServeError(f"nginx did not answer on port {plan.port}; the end of {error_log}:\n"
                         f"{workers.log_tail(error_log)}")
    print(f"  static bundle: {bundle.files} files, {bundle.compressed} precompressed "
          f"({bundle.compressed_raw_bytes / 1e6:.1f} MB -> {bundle.gz_bytes / 1e6:.1f} MB)", flush=True)
    return child


def processes(count: int) -> str:
    return f"{count} app process" + ("" if count == 1 else "es")


def banner(plan: Plan, version: str) -> str:
    lines = [f"specviz is serving: {processes(len(plan.specs))} here"
             + (f" and {len(plan.remote)} elsewhere" if plan.remote else "") + f" behind nginx {version}",
             "",
             f"  open http://localhost:{plan.port}      (students: http://{socket.gethostname()}:{plan.port})",
             "",
             f"  app processes: {', '.join(plan.upstreams)}",
             f"  configuration and logs: {plan.folder}",
             "  Ctrl-C stops them all."]
    return "\n".join(lines)


def keep_running(sup: Supervisor, apps: list[Child], proxy: Child | None, remote: bool) -> int:
    """Until Ctrl-C: restart an app process that dies (up to MAX_RESTARTS times); stop all if nginx dies or
    no app process is left anywhere."""
    while not sup.stopping.wait(0.5):
        for child in sup.exited():
            if child is proxy:
                print(f"nginx stopped (exit {child.process.returncode}); the end of its log:\n"
                      f"{workers.log_tail(proxy.log.with_name('error.log'))}", file=sys.stderr)
                return EXIT_FAILED
            if child.starts <= MAX_RESTARTS:
                print(f"{child.name} exited (code {child.process.returncode}); restarting it "
                      f"(restart {child.starts} of {MAX_RESTARTS}); its log: {child.log}", file=sys.stderr, flush=True)
                sup.start(child)
        if not remote and apps and not any(c.alive() for c in apps):
            print(f"every app process exited {MAX_RESTARTS + 1} times: giving up", file=sys.stderr)
            return EXIT_FAILED
    return 0


def serve(plan: Plan, program: str | None) -> int:
    """Start, run until Ctrl-C, stop everything; returns the exit status."""
    sup = Supervisor()
    sup.handle_signals()
    status, proxy = EXIT_FAILED, None
    try:
        apps = start_workers(sup, plan)
        print(f"specviz: starting {processes(len(apps))} (logs in {plan.folder / 'logs'}) ...", flush=True)
        await_health(sup, apps, plan)
        if program is not None and not sup.stopping.is_set():
            proxy = start_nginx(sup, plan, program)
        if not sup.stopping.is_set():
            if program is None:
                print("app processes ready; add these lines to the other machine's upstream block:\n"
                      + "\n".join(f"    server {u} max_fails=1 fail_timeout=5s;" for u in plan.upstreams))
            else:
                print(banner(plan, ".".join(map(str, nginx.nginx_version(program)))), flush=True)
            status = keep_running(sup, apps, proxy, bool(plan.remote))
        else:
            status = 0
    except ServeError as error:
        print(f"specviz serve: {error}", file=sys.stderr)
    finally:
        print("stopping ...", flush=True)
        killed = sup.stop_all()
        sup.restore_signals()
        if killed:
            print(f"  had to kill: {', '.join(killed)}", file=sys.stderr)
        if status == 0 and not plan.keep:
            shutil.rmtree(plan.folder, ignore_errors=True)
        else:
            print(f"  kept {plan.folder}", file=sys.stderr)
    print("stopped.")
    return status


def main(argv: list[str] | None = None) -> int:
    """Check every argument, then print the configuration or serve; a refusal is one line, exit status 2."""
    try:
        args = parse_args(argv)
        plan = make_plan(args)  # every setting, its range before anything is bound, made or started
        program = None if args.workers_only or args.print_config else nginx.find_nginx()
        if not args.workers_only and not args.print_config and not workers.port_is_free("0.0.0.0", args.port):
            raise ServeError(f"--port {args.port}: port {args.port} is in use (another `make run` or `make serve`?): "
                             f"choose another, e.g. make serve PORT={args.port + 1 if args.port < 65535 else 8502}")
    except ServeError as error:  # NginxMissingError and ServeConfigError too
        print(f"specviz serve: {error}", file=sys.stderr)
        return EXIT_SETUP
    temporary = plan.folder is None
    plan = replace(plan, folder=plan.folder or Path(tempfile.mkdtemp(prefix="specviz-serve-")))
    if args.print_config:
        print(nginx.render(site_for(plan, static.streamlit_bundle_dir().parent)))
        if temporary:
            shutil.rmtree(plan.folder, ignore_errors=True)
        return 0
    return serve(plan, program)


if __name__ == "__main__":
    sys.exit(main())
