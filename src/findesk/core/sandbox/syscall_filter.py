"""The seccomp filter bubblewrap installs in the sandbox before the program starts (``--seccomp FD``).

Rules:
- default allow; ``socket()`` for every address family except ``AF_UNIX`` fails with ``EACCES``
  (no IPv4/IPv6, netlink, packet, bluetooth … sockets even if a network namespace leaked), and
  ``io_uring`` (which can open sockets without ``socket()``) and a short list of kernel-facing
  calls nothing in a computation needs (``bpf``, ``ptrace``, ``mount``, ``unshare``, keyrings …)
  fail with ``EPERM``.
- other architectures (32-bit x86 via ``int 0x80``, x32) are killed by libseccomp's arch check.
- built once per process with libseccomp (through ``pyseccomp``, a ctypes binding) and exported as
  a classic BPF program; never raises: a missing libseccomp or pyseccomp is ``Err(NOT_CONFIGURED)``.
"""

from __future__ import annotations

import errno
import importlib
import socket
import tempfile
from typing import Any

from findesk.core.result import Err, ErrorCode, Ok, Result

INSTALL_HINT = "install libseccomp (apt-get install libseccomp2) and pyseccomp (pip install pyseccomp)"

# Calls a sandboxed computation never needs; each fails with EPERM. Unknown names (older kernels or
# libseccomp) are skipped.
DENIED_CALLS = (
    "io_uring_setup", "io_uring_enter", "io_uring_register",
    "bpf", "perf_event_open", "userfaultfd", "ptrace", "process_vm_readv", "process_vm_writev",
    "keyctl", "add_key", "request_key",
    "mount", "umount2", "pivot_root", "chroot", "unshare", "setns",
    "fsopen", "fsconfig", "fsmount", "fspick", "move_mount", "open_tree", "mount_setattr",
    "open_by_handle_at", "name_to_handle_at", "fanotify_init",
    "kexec_load", "kexec_file_load", "init_module", "finit_module", "delete_module",
    "swapon", "swapoff", "reboot", "acct", "quotactl", "syslog",
)  # fmt: skip

_cache: dict[str, bytes] = {}


def _load_pyseccomp() -> Result[Any]:
    try:
        return Ok(importlib.import_module("pyseccomp"))
    except Exception as exc:  # ImportError, or RuntimeError/OSError when libseccomp.so is missing
        return Err(
            ErrorCode.NOT_CONFIGURED,
            f"the sandbox needs libseccomp to block network sockets ({exc}); {INSTALL_HINT}",
            source="sandbox",
        )


def socket_filter_bpf() -> Result[bytes]:
    """The compiled filter (classic BPF, native architecture), built once per process."""
    if "bpf" in _cache:
        return Ok(_cache["bpf"])
    loaded = _load_pyseccomp()
    if isinstance(loaded, Err):
        return loaded
    sc = loaded.value
    try:
        flt = sc.SyscallFilter(sc.ALLOW)
        flt.add_rule(sc.ERRNO(errno.EACCES), "socket", sc.Arg(0, sc.NE, socket.AF_UNIX))
        for name in DENIED_CALLS:
            if sc.resolve_syscall(sc.Arch.NATIVE, name) < 0:
                continue
            flt.add_rule(sc.ERRNO(errno.EPERM), name)
        with tempfile.TemporaryFile() as fh:
            flt.export_bpf(fh)
            fh.seek(0)
            program = fh.read()
    except Exception as exc:
        return Err(
            ErrorCode.NOT_CONFIGURED,
            f"could not build the seccomp filter with libseccomp ({exc}); {INSTALL_HINT}",
            source="sandbox",
        )
    if not program or len(program) % 8:
        return Err(
            ErrorCode.NOT_CONFIGURED,
            f"libseccomp exported an invalid filter ({len(program)} bytes); {INSTALL_HINT}",
            source="sandbox",
        )
    _cache["bpf"] = program
    return Ok(program)
