"""What the sandboxed program sees: the bubblewrap command line (mounts, namespaces, environment).

Rules:
- a minimal, read-only view of the host: ``/usr`` (and the ``/bin``, ``/sbin``, ``/lib*`` links or
  directories), ``/etc/ld.so.cache`` and ``/etc/localtime`` only (no ``/etc/hosts``, no resolver
  config, no passwd), the interpreter's prefixes (``sys.base_prefix``, ``sys.prefix``) and the
  site-packages holding numpy and pandas. Nothing else of the host's file system: not ``/root`` or
  ``$HOME``, not the repository, not the findesk state or config directories.
- a bound directory that would expose ``/``, ``$HOME`` or the findesk state/config directories is
  refused (``Err(NOT_CONFIGURED)``), never silently bound.
- writable: only the run's work dir (bound at ``WORK_MOUNT``), and a private in-memory ``/tmp`` and
  ``/dev/shm`` of ``TMPFS_BYTES`` each; ``/`` and ``/dev`` are remounted read-only at the end.
- new namespaces for everything (user, pid, net, ipc, uts, cgroup): the network namespace holds only
  ``lo``; further user namespaces are disabled; the program runs as uid/gid 65534 with no
  capabilities, in a new session, and dies with its parent.
- the environment is cleared: the program (and bubblewrap itself) gets ``sandbox_env()`` only, so the
  host's variables (API keys) never reach it.
"""

from __future__ import annotations

import importlib.util
import os
import sys
from pathlib import Path

from findesk.core.result import Err, ErrorCode, Ok, Result
from findesk.core.sandbox.limits import TMPFS_BYTES

WORK_MOUNT = "/sandbox"  # the run's work dir inside the sandbox (also $HOME and the cwd)
SANDBOX_ID = "65534"  # uid and gid of the program inside the sandbox ("nobody")
SYSTEM_DIRS = ("/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32")
ETC_FILES = ("/etc/ld.so.cache", "/etc/localtime")
RESERVED = ("/proc", "/dev", WORK_MOUNT)  # mount points a host directory may not land on
PROBED_PACKAGES = ("numpy", "pandas")


def sandbox_env() -> dict[str, str]:
    """The whole environment of the sandboxed program."""
    return {
        "PATH": f"{Path(sys.executable).parent}:/usr/local/bin:/usr/bin:/bin",
        "HOME": WORK_MOUNT,
        "LANG": "C.UTF-8",
        "TMPDIR": "/tmp",
        "PYTHONDONTWRITEBYTECODE": "1",
        "OPENBLAS_NUM_THREADS": "1",
        "OMP_NUM_THREADS": "1",
        "MKL_NUM_THREADS": "1",
        "MPLCONFIGDIR": "/tmp",
    }


def _protected() -> list[Path]:
    home = Path.home()
    out = [home, home / ".local" / "share" / "findesk", home / ".config" / "findesk"]
    for var in ("XDG_DATA_HOME", "XDG_CONFIG_HOME"):
        if os.environ.get(var):
            out.append(Path(os.environ[var]) / "findesk")
    if os.environ.get("FINDESK_STATE_DIR"):
        out.append(Path(os.environ["FINDESK_STATE_DIR"]))
    return [p.resolve() for p in out]


def _package_site(name: str) -> Path | None:
    try:
        spec = importlib.util.find_spec(name)
    except (ImportError, ValueError):
        return None
    if spec is None or not spec.origin:
        return None
    return Path(spec.origin).resolve().parents[1]


def python_dirs() -> Result[list[str]]:
    """Host directories the interpreter needs, outermost first, without ones already covered."""
    wanted = [
        Path(sys.base_prefix),
        Path(sys.base_exec_prefix),
        Path(sys.prefix),
        Path(sys.exec_prefix),
        Path(os.path.realpath(sys.executable)).parent,
    ]
    wanted += [site for name in PROBED_PACKAGES if (site := _package_site(name)) is not None]
    chosen: list[Path] = []
    protected = _protected()
    for path in sorted({p.absolute() for p in wanted}, key=lambda p: (len(p.parts), str(p))):
        if path.is_relative_to("/usr") or any(path.is_relative_to(c) for c in chosen):
            continue
        real = path.resolve()
        if real == Path("/") or any(p.is_relative_to(real) for p in protected):
            return Err(
                ErrorCode.NOT_CONFIGURED,
                f"the sandbox would have to expose {path} (it holds the interpreter) and with it the home "
                "or findesk state directory; use a Python installed outside them",
                source="sandbox",
            )
        if any(path.is_relative_to(r) for r in RESERVED):
            return Err(
                ErrorCode.NOT_CONFIGURED,
                f"the interpreter lives under {path}, which the sandbox mounts over; use another Python",
                source="sandbox",
            )
        chosen.append(path)
    return Ok([str(p) for p in chosen])


def _system_binds() -> list[str]:
    args = ["--ro-bind", "/usr", "/usr"]
    for d in SYSTEM_DIRS:
        if Path(d).is_symlink():
            args += ["--symlink", str(Path(d).readlink()), d]
        elif Path(d).is_dir():
            args += ["--ro-bind", d, d]
    for f in ETC_FILES:
        args += ["--ro-bind-try", f, f]
    return args


def bwrap_argv(bwrap: str, work_dir: str, seccomp_fd: int, script: str = "main.py") -> Result[list[str]]:
    """The full command: bubblewrap, its options, then the interpreter running ``script``."""
    dirs = python_dirs()
    if isinstance(dirs, Err):
        return dirs
    argv = [
        bwrap,
        "--unshare-all", "--unshare-user", "--disable-userns",
        "--uid", SANDBOX_ID, "--gid", SANDBOX_ID, "--hostname", "sandbox",
        "--die-with-parent", "--new-session", "--clearenv",
    ]  # fmt: skip
    for key, value in sandbox_env().items():
        argv += ["--setenv", key, value]
    argv += _system_binds()
    argv += ["--proc", "/proc", "--dev", "/dev"]
    argv += ["--size", str(TMPFS_BYTES), "--tmpfs", "/dev/shm", "--size", str(TMPFS_BYTES), "--tmpfs", "/tmp"]
    for d in dirs.value:
        argv += ["--ro-bind", d, d]
    argv += ["--bind", work_dir, WORK_MOUNT, "--chdir", WORK_MOUNT]
    argv += ["--remount-ro", "/dev", "--remount-ro", "/"]
    argv += ["--seccomp", str(seccomp_fd)]
    argv += ["--", sys.executable, "-I", "-B", f"{WORK_MOUNT}/{script}"]
    return Ok(argv)
