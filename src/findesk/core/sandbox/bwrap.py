"""Find bubblewrap and check, once per process, that a sandbox really starts with every wall up.

Rules:
- never raises; ``sandbox_status`` returns ``Ok(path of bwrap)`` or ``Err(NOT_CONFIGURED)`` with an
  install hint. No fallback: without a working sandbox, programs are refused, never run otherwise.
- the check starts a real sandbox (same mounts, seccomp filter, limits and pids cgroup as a run) with
  a probe that must find ``socket(AF_INET)`` refused; only a passing check is cached (per resolved
  bwrap path), so installing bubblewrap later fixes a long-lived process.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
from pathlib import Path

from findesk.core.result import Err, ErrorCode, Ok, Result
from findesk.core.sandbox.launch import prepare
from findesk.core.sandbox.limits import SandboxLimits

INSTALL_HINT = "install bubblewrap (apt-get install bubblewrap)"
PROBE_OK = "sandbox-ok"
PROBE = f"""\
import socket
try:
    socket.socket(socket.AF_INET, socket.SOCK_STREAM)
except PermissionError:
    print({PROBE_OK!r})
else:
    print("socket allowed")
"""
PROBE_TIMEOUT_S = 20.0

_passed: set[str] = set()


def find_bwrap(bwrap: str | None = None) -> Result[str]:
    """The resolved path of the bwrap executable (``bwrap`` on PATH when not given)."""
    found = bwrap if bwrap is not None else shutil.which("bwrap")
    if found is None:
        return Err(ErrorCode.NOT_CONFIGURED, f"bubblewrap (bwrap) is not on PATH; {INSTALL_HINT}", "sandbox")
    real = Path(found).resolve()
    if not (real.is_file() and os.access(real, os.X_OK)):
        return Err(
            ErrorCode.NOT_CONFIGURED,
            f"bubblewrap was not found at {found} (or is not executable); {INSTALL_HINT}",
            "sandbox",
        )
    return Ok(str(real))


def is_ready(bwrap: str) -> bool:
    """Whether ``sandbox_status`` already passed for this resolved path in this process."""
    return bwrap in _passed


def _probe(bwrap: str) -> Result[str]:
    with tempfile.TemporaryDirectory(prefix="findesk-sandbox-probe-") as work:
        Path(work, "main.py").write_text(PROBE)
        launch = prepare(bwrap, work, SandboxLimits())
        if isinstance(launch, Err):
            return launch
        try:
            done = subprocess.run(
                launch.value.argv,
                stdin=subprocess.DEVNULL,
                capture_output=True,
                env=launch.value.env,
                cwd="/",
                pass_fds=(launch.value.filter_fd,),
                preexec_fn=launch.value.preexec,  # only setrlimit and one write
                start_new_session=True,
                timeout=PROBE_TIMEOUT_S,
                check=False,
            )
        except (OSError, subprocess.SubprocessError) as exc:
            why = f"bubblewrap at {bwrap} could not be started: {exc}"
            return Err(ErrorCode.NOT_CONFIGURED, why, "sandbox")
        finally:
            launch.value.release()
    out = done.stdout.decode(errors="replace").strip()
    if done.returncode == 0 and out == PROBE_OK:
        return Ok(bwrap)
    tail = done.stderr.decode(errors="replace").strip().splitlines()[-3:]
    why = " / ".join(tail) or out or f"exit code {done.returncode}"
    return Err(
        ErrorCode.NOT_CONFIGURED,
        f"bubblewrap at {bwrap} could not start a sandbox with every wall up ({why}); it needs user "
        f"namespaces and a working seccomp filter; {INSTALL_HINT}",
        "sandbox",
    )


def sandbox_status(bwrap: str | None = None) -> Result[str]:
    """``Ok(path of bwrap)`` when sandboxed runs work here, else ``Err(NOT_CONFIGURED, …)``."""
    try:
        found = find_bwrap(bwrap)
        if isinstance(found, Err) or found.value in _passed:
            return found
        checked = _probe(found.value)
        if isinstance(checked, Ok):
            _passed.add(found.value)
        return checked
    except Exception as exc:  # the contract is "never raises"
        return Err(ErrorCode.NOT_CONFIGURED, f"the sandbox check failed: {exc}", "sandbox")
