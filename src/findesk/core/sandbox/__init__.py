"""The sandbox for model-written Python: bubblewrap namespaces, a seccomp socket filter, resource
limits and a pids cgroup around a fresh work dir.

Rules:
- ``run_python`` never raises: every outcome of the program is ``Ok(SandboxRun)``; ``Err`` only
  when the sandbox cannot be used, and then the program is refused, never run any other way.
- ``sandbox_status`` tells whether the sandbox works on this machine (checked once per process).
- nothing here imports from another findesk layer.
"""

from findesk.core.sandbox.bwrap import sandbox_status
from findesk.core.sandbox.limits import RunStatus, SandboxLimits, SandboxRun
from findesk.core.sandbox.runner import run_python

__all__ = ["RunStatus", "SandboxLimits", "SandboxRun", "run_python", "sandbox_status"]
