"""scripts/serve.py before anything starts: missing nginx, bad settings, a busy port, the printed configuration."""

from __future__ import annotations

import importlib.util
import re
import socket
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from deploy import nginx
from deploy.errors import ServeConfigError

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def serve():
    spec = importlib.util.spec_from_file_location("specviz_serve_script", ROOT / "scripts" / "serve.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its dataclasses look their module up
    spec.loader.exec_module(module)
    yield module
    sys.modules.pop(spec.name, None)


def test_missing_nginx_exits_non_zero_saying_what_to_install(serve, monkeypatch, capsys):
    monkeypatch.setattr(nginx, "NGINX_PLACES", ())
    monkeypatch.setenv("PATH", "")
    monkeypatch.delenv("NGINX", raising=False)
    assert serve.main(["--workers", "1", "--port", "8501"]) == serve.EXIT_SETUP
    said = capsys.readouterr().err
    assert "nginx is not installed" in said and "sudo apt-get install -y nginx" in said and "make run" in said


@pytest.mark.parametrize("argv, field", [
    (["--workers", "-1"], "--workers: '-1' is out of range; use 0 to 64"),
    (["--workers", "0"], "--workers 0"),
    (["--workers", "65"], "--workers: '65' is out of range; use 0 to 64"),
    (["--workers", "abc"], "--workers: 'abc' is not a whole number; use 0 to 64"),
    (["--port", "0"], "--port: '0' is out of range; use 1 to 65535"),
    (["--port", "70000"], "--port: '70000' is out of range; use 1 to 65535"),
    (["--port", "-1"], "--port: '-1' is out of range; use 1 to 65535"),
    (["--upstream", "10.0.0.2"], "--upstream '10.0.0.2'"),
    (["--workers", "3", "--worker-port", "65534"], "--worker-port 65534: 3 ports from there pass 65535"),
    (["--worker-port", "-5"], "--worker-port: '-5' is out of range; use 1 to 65535"),
    (["--print-config", "--address", "bad host!"], "--address: 'bad host!' is not an address"),
    (["--print-config", "--worker-address", "bad host!"], "--worker-address: 'bad host!' is not an address"),
    (["--print-config", "--worker-address", "10.255.255.254"], "--worker-address '10.255.255.254': the app "
                                                               "processes cannot listen there"),
    (["--print-config", "--python", "/no/such/python"], "--python '/no/such/python': no such program"),
    (["--print-config", "--app", "/no/such/app.py"], "--app '/no/such/app.py': no such file"),
])
def test_a_bad_setting_is_refused_in_one_line_naming_it_before_anything_starts(serve, argv, field, capsys,
                                                                               monkeypatch):
    monkeypatch.setattr(serve.Supervisor, "start", lambda *a: pytest.fail("a process was started"))
    monkeypatch.setattr(serve.tempfile, "mkdtemp", lambda **k: pytest.fail("a folder was made"))
    assert serve.main(argv) == serve.EXIT_SETUP
    said = capsys.readouterr()
    assert field in said.err and said.err.count("\n") == 1 and said.err.startswith("specviz serve: "), said.err
    assert "usage:" not in said.err and "Traceback" not in said.err and not said.out


def test_a_dir_that_cannot_be_a_folder_is_refused(serve, tmp_path, capsys):
    a_file = tmp_path / "notes.txt"
    a_file.write_text("x")
    for folder, words in ((a_file, "is a file, not a folder"), (a_file / "below", "no folder can be made in")):
        assert serve.main(["--print-config", "--dir", str(folder)]) == serve.EXIT_SETUP
        err = capsys.readouterr().err
        assert f"--dir {str(folder)!r}" in err and words in err and err.count("\n") == 1
    assert a_file.read_text() == "x"


def test_a_worker_port_in_use_is_refused_before_anything_starts(serve, capsys, monkeypatch):
    monkeypatch.setattr(serve.Supervisor, "start", lambda *a: pytest.fail("a process was started"))
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        assert serve.main(["--workers", "2", "--worker-port", str(port - 1)]) == serve.EXIT_SETUP
    err = capsys.readouterr().err
    assert f"--worker-port {port - 1}: port {port} is in use" in err and err.count("\n") == 1


@settings(max_examples=60, deadline=None)
@given(st.one_of(st.integers(-10**6, 10**6).map(str), st.text(max_size=6)))
def test_a_port_is_read_exactly_when_it_is_a_whole_number_from_1_to_65535(serve, text):
    try:
        args = serve.parse_args(["--port", text])
    except ServeConfigError as error:
        assert "--port" in str(error) and "1 to 65535" in str(error) and "\n" not in str(error)
        assert not (re.fullmatch(r"\s*[+-]?[0-9]{1,12}\s*", text) and 1 <= int(text) <= 65535)
    else:
        assert 1 <= args.port <= 65535 and args.port == int(text)


def test_the_plan_gives_each_process_its_own_port_and_one_shared_secret(serve, monkeypatch, tmp_path):
    monkeypatch.setenv("SPECVIZ_COOKIE_SECRET", "s3cret")
    plan = serve.make_plan(serve.parse_args(["--workers", "3", "--upstream", "10.0.0.9:8601", "--dir", str(tmp_path),
                                             "--address", "127.0.0.1", "--port", "8600"]))
    ports = [s.port for s in plan.specs]
    assert len(set(ports)) == 3 and all(s.host == "127.0.0.1" for s in plan.specs)
    assert {s.cookie_secret for s in plan.specs} == {"s3cret"}
    assert plan.upstreams[-1] == "10.0.0.9:8601" and len(plan.upstreams) == 4
    assert plan.listen == ("127.0.0.1:8600",)
    consecutive = serve.make_plan(serve.parse_args(["--workers", "2", "--worker-port", "8601", "--dir", str(tmp_path)]))
    assert [s.port for s in consecutive.specs] == [8601, 8602]


def test_the_workers_default_to_the_cpu_count(serve, tmp_path):
    plan = serve.make_plan(serve.parse_args(["--dir", str(tmp_path)]))
    assert len(plan.specs) == serve.cpu_count() >= 1


def test_a_busy_port_is_refused_before_anything_starts(serve, capsys):
    with socket.socket() as busy:
        busy.bind(("0.0.0.0", 0))
        busy.listen()
        port = busy.getsockname()[1]
        try:
            nginx.find_nginx()
        except nginx.NginxMissingError:
            pytest.skip("nginx is not installed: the port is checked after nginx is found")
        assert serve.main(["--workers", "1", "--port", str(port)]) == serve.EXIT_SETUP
    said = capsys.readouterr().err
    assert f"--port {port}: port {port} is in use" in said and f"PORT={port + 1}" in said


def test_print_config_prints_a_configuration_for_the_upstreams(serve, capsys, tmp_path):
    assert serve.main(["--print-config", "--workers", "0", "--upstream", "10.0.0.2:8601",
                       "--upstream", "10.0.0.3:8601", "--dir", str(tmp_path)]) == 0
    text = capsys.readouterr().out
    assert "server 10.0.0.2:8601 max_fails=1" in text and "server 10.0.0.3:8601 max_fails=1" in text
    assert f"pid {tmp_path}/nginx.pid;" in text


def test_the_worker_command_runs_the_app_on_its_own_port(tmp_path):
    from deploy import workers

    spec = workers.WorkerSpec("/venv/bin/python", Path("/app/app.py"), "127.0.0.1", 40001, "secret")
    argv = workers.worker_argv(spec)
    assert argv[:4] == ["/venv/bin/python", "-m", "deploy.worker", "/app/app.py"]  # then `streamlit run`'s flags
    assert argv[argv.index("--server.port") + 1] == "40001" and argv[argv.index("--server.address") + 1] == "127.0.0.1"
    assert "secret" not in argv  # the cookie secret goes in the environment (ps shows command lines)
    assert workers.worker_env(spec, {})["STREAMLIT_SERVER_COOKIE_SECRET"] == "secret"
    assert workers.url_of("0.0.0.0", 40001, "/x") == "http://127.0.0.1:40001/x"


def test_the_workers_start_through_the_freezing_launcher_unless_told_not_to(serve, tmp_path):
    frozen = serve.make_plan(serve.parse_args(["--workers", "1", "--dir", str(tmp_path)]))
    plain = serve.make_plan(serve.parse_args(["--workers", "1", "--no-freeze", "--dir", str(tmp_path)]))
    from deploy import workers

    assert workers.worker_argv(frozen.specs[0])[1:3] == ["-m", "deploy.worker"]
    assert workers.worker_argv(plain.specs[0])[1:4] == ["-m", "deploy.worker", "--no-freeze"]
