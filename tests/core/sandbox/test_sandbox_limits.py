"""The resource walls: processes, memory, CPU time, wall time, output, work dir. Each run ends as a
``SandboxRun`` with the status of the wall it hit, quickly, and leaves nothing behind on the host."""

from __future__ import annotations

import asyncio
import os
import tempfile
import time
from pathlib import Path

import pytest
from sandbox_kit import run

from findesk.core.sandbox import SandboxLimits
from findesk.core.sandbox.pids import _own_pids_cgroup

pytestmark = pytest.mark.usefixtures("sandbox_ready")


def _run_cgroups() -> list[str]:
    """This process's run cgroups (other processes may be running sandboxes at the same time)."""
    here = _own_pids_cgroup()
    return sorted(p.name for p in here.glob(f"findesk-sandbox-{os.getpid()}-*")) if here else []


@pytest.mark.parametrize(
    "bomb",
    [
        "import os\nwhile True:\n    os.fork()\n",
        "import subprocess, sys\nkids = []\nwhile True:\n"
        "    kids.append(subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(60)']))\n",
        "import threading, time\nwhile True:\n"
        "    threading.Thread(target=time.sleep, args=(60,), daemon=True).start()\n",
    ],
    ids=["fork", "subprocess", "threads"],
)
async def test_a_fork_bomb_is_stopped_by_the_process_limit(bomb: str) -> None:
    before = _run_cgroups()
    limits = SandboxLimits(processes=8, wall_seconds=10)
    done = await run(bomb, limits)
    assert done.status == "process_limit", (done.status, done.reason, done.stderr[-500:])
    assert "process" in done.reason
    assert done.duration_ms < 8_000
    host = await asyncio.create_subprocess_exec("true")
    assert await host.wait() == 0  # the host still forks
    assert _run_cgroups() == before  # the run's cgroup is gone, so are its processes


async def test_allocating_past_the_memory_limit_is_memory_limit() -> None:
    done = await run("x = bytearray(3_000_000_000)\nprint('allocated')")
    assert done.status == "memory_limit", (done.status, done.reason)
    assert "512 MB" in done.reason and done.stdout == ""

    growing = "chunks = []\nwhile True:\n    chunks.append(bytearray(20_000_000))\n"
    done = await run(growing, SandboxLimits(memory_mb=256))
    assert done.status == "memory_limit", (done.status, done.reason)

    numpy_big = "import numpy as np\nprint(np.ones((30_000, 30_000)).sum())"
    done = await run(numpy_big)
    assert done.status == "memory_limit", (done.status, done.reason)
    assert "MemoryError" in done.reason


async def test_a_busy_loop_past_cpu_time_is_cpu_limit() -> None:
    done = await run("while True:\n    pass\n", SandboxLimits(cpu_seconds=1, wall_seconds=10))
    assert done.status == "cpu_limit", (done.status, done.reason)
    assert done.reason == "the program used more than 1 s of CPU time"
    assert done.duration_ms < 5_000

    ignoring = "import signal\nsignal.signal(signal.SIGXCPU, signal.SIG_IGN)\nwhile True:\n    pass\n"
    done = await run(ignoring, SandboxLimits(cpu_seconds=1, wall_seconds=10))
    assert done.status == "cpu_limit", (done.status, done.reason)  # SIGKILL at the hard limit


async def test_sleeping_past_wall_time_is_timeout() -> None:
    started = time.monotonic()
    program = "import time\nprint('started', flush=True)\ntime.sleep(30)\nprint('never')"
    done = await run(program, SandboxLimits(wall_seconds=1))
    assert done.status == "timeout" and done.exit_code is None
    assert done.reason == "the program ran longer than 1 s and was stopped"
    assert done.stdout == "started\n"  # what it printed before is kept
    assert time.monotonic() - started < 4


async def test_printing_past_the_output_cap_is_output_limit() -> None:
    limits = SandboxLimits(output_bytes=1_000)
    done = await run("while True:\n    print('x' * 99)\n", limits)
    assert done.status == "output_limit" and done.exit_code is None
    assert len(done.stdout) == 1_000 and set(done.stdout) == {"x", "\n"}

    done = await run("import sys\nsys.stdout.write('y' * 10_000_000)\n", limits)
    assert done.status == "output_limit" and done.stdout == "y" * 1_000


async def test_filling_the_work_dir_is_stopped() -> None:
    too_big = (
        "import itertools\nfor i in itertools.count():\n    open(f'f{i}', 'wb').write(b'z' * 4_000_000)\n"
    )
    done = await run(too_big, SandboxLimits(file_bytes=5_000_000, wall_seconds=10))
    # 4 MB files without end: each is within RLIMIT_FSIZE, together they pass the work dir's 64 MB
    assert done.status == "killed" and "work dir" in done.reason, (done.status, done.reason)

    done = await run("open('big', 'wb').write(b'z' * 2_000_000)\n", SandboxLimits(file_bytes=1_000_000))
    assert done.status == "error" and "File too large" in done.reason  # RLIMIT_FSIZE


async def test_a_missing_module_is_an_error_and_numpy_pandas_work() -> None:
    done = await run("import requests_not_here\n")
    assert done.status == "error" and done.exit_code == 1
    assert "ModuleNotFoundError: No module named 'requests_not_here'" in done.reason

    program = """
import json
import numpy as np
import pandas as pd
rows = json.load(open("payload.json"))
frame = pd.DataFrame(rows)
print(int(frame["qty"].sum()), float(np.round(frame["price"].mean(), 2)))
"""
    payload = b'[{"qty": 2, "price": 10.5}, {"qty": 3, "price": 11.5}]'
    done = await run(program, inputs={"payload.json": payload})
    assert done.status == "ok", (done.reason, done.stderr)
    assert done.stdout == "5 11.0\n"


async def test_the_work_dir_is_removed_after_the_run(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))  # this test's runs only
    program = "import os\nprint(os.getcwd())\nos.mkdir('locked')\nopen('locked/f', 'w').close()\n"
    done = await run(program + "os.chmod('locked', 0)\n")
    assert done.status == "ok" and done.stdout == "/sandbox\n"
    assert _entries(tmp_path) == []


def _entries(folder: Path) -> list[Path]:
    return list(folder.iterdir())
