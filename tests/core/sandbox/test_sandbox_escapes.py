"""Escape attempts from inside the sandbox: network, name resolution, writes outside the work dir,
the host's secrets. Each shows the same action working on the host (where that is safe) and failing
inside, reported as a clean ``SandboxRun``."""

from __future__ import annotations

import os
import socket
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from sandbox_kit import last_json, run

from findesk.core.sandbox.layout import python_dirs

pytestmark = pytest.mark.usefixtures("sandbox_ready")

REPO = Path(__file__).resolve().parents[3]


@pytest.fixture
def listener() -> Iterator[socket.socket]:
    """A TCP listener on the host's loopback, port chosen by the kernel."""
    server = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    server.bind(("127.0.0.1", 0))
    server.listen(8)
    server.setblocking(False)
    yield server
    server.close()


def _accepted(server: socket.socket) -> int:
    count = 0
    while True:
        try:
            conn, _ = server.accept()
        except BlockingIOError:
            return count
        conn.close()
        count += 1


async def test_connecting_to_a_host_listener_fails_inside(listener: socket.socket) -> None:
    port = listener.getsockname()[1]
    with socket.create_connection(("127.0.0.1", port), timeout=2):
        pass  # the same connection works from the host
    assert _accepted(listener) == 1

    program = f"""
import ctypes, json, socket
out = {{}}
for name, fam, addr in (("inet", socket.AF_INET, ("127.0.0.1", {port})),
                        ("inet6", socket.AF_INET6, ("::1", {port}))):
    try:
        s = socket.socket(fam, socket.SOCK_STREAM)
        s.settimeout(2)
        s.connect(addr)
        out[name] = "connected"
    except OSError as exc:
        out[name] = exc.errno
for name, fam, kind in (("netlink", socket.AF_NETLINK, socket.SOCK_RAW),
                        ("packet", socket.AF_PACKET, socket.SOCK_RAW),
                        ("udp", socket.AF_INET, socket.SOCK_DGRAM)):
    try:
        socket.socket(fam, kind)
        out[name] = "opened"
    except OSError as exc:
        out[name] = exc.errno
libc = ctypes.CDLL(None, use_errno=True)
out["raw_syscall"] = [libc.syscall(41, socket.AF_INET, socket.SOCK_STREAM, 0), ctypes.get_errno()]
out["io_uring"] = [libc.syscall(425, 8, ctypes.create_string_buffer(120)), ctypes.get_errno()]
out["interfaces"] = sorted(line.split(":")[0].strip() for line in open("/proc/net/dev").readlines()[2:])
out["unix"] = [s.family for s in socket.socketpair()] and "ok"
print(json.dumps(out))
"""
    got = last_json(await run(program))
    eacces, eperm = 13, 1
    assert got["inet"] == got["inet6"] == got["netlink"] == got["packet"] == got["udp"] == eacces
    assert got["raw_syscall"] == [-1, eacces]  # the seccomp filter, not just Python, refuses
    assert got["io_uring"] == [-1, eperm]
    assert got["interfaces"] == ["lo"]  # and the network namespace has no way out anyway
    assert got["unix"] == "ok"  # AF_UNIX socketpairs (asyncio, multiprocessing) still work
    assert _accepted(listener) == 0


async def test_name_resolution_fails_inside() -> None:
    assert socket.getaddrinfo("localhost", 80)  # the host resolves it (/etc/hosts)
    program = """
import json, socket
out = {}
for host in ("localhost", "findesk-sandbox-test.invalid"):
    try:
        out[host] = str(socket.getaddrinfo(host, 80))
    except OSError as exc:
        out[host] = "failed: " + type(exc).__name__
import os
out["etc"] = sorted(os.listdir("/etc"))
print(json.dumps(out))
"""
    got = last_json(await run(program))
    assert got["localhost"].startswith("failed: gaierror")
    assert got["findesk-sandbox-test.invalid"].startswith("failed: gaierror")
    assert "hosts" not in got["etc"] and "resolv.conf" not in got["etc"] and "passwd" not in got["etc"]


def _existing(paths: list[str]) -> list[str]:
    return [p for p in paths if Path(p).exists()]


async def test_writes_outside_the_work_dir_fail(tmp_path: Path) -> None:
    home = Path.home()
    targets = [
        "/usr/findesk-x", "/etc/findesk-x", "/findesk-x", "/root/findesk-x", "/dev/findesk-x",
        "/proc/findesk-x", f"{REPO}/findesk-x", f"{REPO}/src/findesk-x", f"{home}/findesk-x",
        f"{sys.prefix}/findesk-x", f"{sys.base_prefix}/findesk-x", f"{tmp_path}/findesk-x",
    ]  # fmt: skip
    program = f"""
import json
out = {{}}
for path in {targets!r}:
    try:
        with open(path, "w") as fh:
            fh.write("escaped")
        out[path] = "written"
    except OSError as exc:
        out[path] = exc.strerror
with open("ok.txt", "w") as fh:
    fh.write("inside")
with open("/tmp/scratch.txt", "w") as fh:
    fh.write("private tmp")
print(json.dumps(out))
"""
    done = await run(program, collect=("ok.txt",))
    got = last_json(done)
    assert all(result != "written" for result in got.values()), got
    assert done.files == {"ok.txt": b"inside"}  # the work dir is writable
    assert _existing([*targets, "/tmp/scratch.txt"]) == []  # nothing reached the host; /tmp is private


async def test_host_secrets_stay_outside(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    secret = "sk-test-secret-7c1e"
    monkeypatch.setenv("FINDESK_LLM__ANTHROPIC_API_KEY", secret)
    monkeypatch.setenv("ANTHROPIC_API_KEY", secret)
    home = tmp_path / "home"
    monkeypatch.setenv("HOME", str(home))
    state = Path(os.environ["FINDESK_STATE_DIR"])
    files = [
        state / "audit.sqlite3",
        home / ".local" / "share" / "findesk" / "keys.sqlite3",
        home / ".config" / "findesk" / "config.toml",
    ]
    for path in files:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(f"api_key = '{secret}'")
    bound = python_dirs().unwrap()
    program = f"""
import glob, json, os
out = {{"env": dict(os.environ), "files": {{}}, "proc": []}}
for path in {[str(p) for p in files]!r} + ["/root/.bashrc", "{REPO}/pyproject.toml"]:
    try:
        out["files"][path] = open(path).read()
    except OSError as exc:
        out["files"][path] = type(exc).__name__
for path in glob.glob("/proc/[0-9]*/environ") + glob.glob("/proc/[0-9]*/cmdline"):
    try:
        out["proc"].append(open(path, "rb").read().decode(errors="replace"))
    except OSError:
        pass
out["root"] = sorted(os.listdir("/root")) if os.path.isdir("/root") else []
out["repo"] = sorted(os.listdir("{REPO}")) if os.path.isdir("{REPO}") else []
print(json.dumps(out))
"""
    done = await run(program)
    assert secret not in done.stdout and secret not in done.stderr
    got = last_json(done)
    assert not any("API_KEY" in key for key in got["env"])
    assert set(got["env"]) <= {
        "PATH", "HOME", "LANG", "TMPDIR", "PWD", "PYTHONDONTWRITEBYTECODE",
        "OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS", "MPLCONFIGDIR",
    }  # fmt: skip
    assert set(got["files"].values()) == {"FileNotFoundError"}, got["files"]
    assert got["proc"]  # the sandbox's own /proc was readable: the secret is simply not there
    # /root and the repo show only the interpreter directories the sandbox binds, nothing else
    assert all(any(d.startswith(f"/root/{name}") for d in bound) for name in got["root"]), got["root"]
    assert all(any(d.startswith(f"{REPO}/{name}") for d in bound) for name in got["repo"]), got["repo"]
    assert "src" not in got["repo"] and ".git" not in got["repo"]


async def test_collect_does_not_follow_links_out_of_the_work_dir(tmp_path: Path) -> None:
    outside = tmp_path / "host-secret.txt"
    outside.write_text("host only")
    program = f"""
import os
os.symlink({str(outside)!r}, "leak.txt")
os.symlink("/etc/hostname", "leak2.txt")
os.mkfifo("pipe.txt")
open("fine.txt", "w").write("ok")
"""
    done = await run(program, collect=("leak.txt", "leak2.txt", "pipe.txt", "fine.txt", "missing.txt"))
    assert done.status == "ok", done.reason
    assert done.files == {"fine.txt": b"ok"}  # links and the fifo are not read
