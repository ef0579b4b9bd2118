"""Bench test fixtures: the stand-in trtllm-bench on PATH, a tiny checkpoint, and a real one-node Slurm."""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

FAKE_BIN = Path(__file__).parent / "fake_trtllm_bench"


@pytest.fixture
def fake_trtllm(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Iterator[Path]:
    """PATH starts with the test doubles (trtllm-bench, trtllm-llmapi-launch, nvidia-smi); calls logged."""
    calls = tmp_path / "calls.jsonl"
    monkeypatch.setenv("PATH", f"{FAKE_BIN}{os.pathsep}{os.environ['PATH']}")
    monkeypatch.setenv("FAKE_TRTLLM_CALLS", str(calls))
    monkeypatch.setenv("FAKE_GPU_COUNT", "4")
    monkeypatch.setenv("FAKE_TRTLLM_BEHAVIOUR", "{}")
    yield calls


@pytest.fixture
def checkpoint(tmp_path: Path) -> Path:
    """A checkpoint folder with just what the dataset needs (config.json: vocabulary and EOS)."""
    d = tmp_path / "Llama-3.1-8B-Instruct"
    d.mkdir()
    (d / "config.json").write_text(json.dumps({"vocab_size": 1000, "eos_token_id": 2}), encoding="utf-8")
    return d


# --- a real single-node Slurm (slurmctld + slurmd + munged), started and stopped by the tests ---------


@dataclass
class SlurmCluster:
    conf: Path
    node: str
    logs: Path


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _slurm_conf(root: Path, host: str, nodes: list[str], sock: Path) -> str:
    """One slurmd per node name; several on this host each get a port, spool, pid and log of their own."""
    ctld, slurmd = _free_port(), _free_port()
    if nodes == [host]:
        node_lines = f"NodeName={host} NodeAddr=127.0.0.1 CPUs={os.cpu_count() or 1} State=UNKNOWN"
    else:  # NodeHostname: the host the slurmd runs on; -N gives each daemon its node name
        node_lines = "\n".join(
            f"NodeName={n} NodeHostname={host} NodeAddr=127.0.0.1 Port={_free_port()} CPUs=1 State=UNKNOWN"
            for n in nodes
        )
    return f"""ClusterName=llmbenchtest
SlurmctldHost={host}(127.0.0.1)
SlurmUser=root
SlurmdUser=root
SlurmctldPort={ctld}
SlurmdPort={slurmd}
AuthType=auth/munge
AuthInfo=socket={sock}
CredType=cred/munge
StateSaveLocation={root}/state
SlurmdSpoolDir={root}/spool/%n
SlurmctldPidFile={root}/slurmctld.pid
SlurmdPidFile={root}/slurmd.%n.pid
SlurmctldLogFile={root}/log/slurmctld.log
SlurmdLogFile={root}/log/slurmd.%n.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
MpiDefault=none
SchedulerType=sched/backfill
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
ReturnToService=2
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
MinJobAge=600
{node_lines}
PartitionName=debug Nodes={",".join(nodes)} Default=YES MaxTime=INFINITE State=UP
"""


# CI sets this to 1: the Slurm tests must run there, so a fixture that cannot start Slurm fails, not skips.
REQUIRE = "LLMBENCH_REQUIRE_SLURM"


def _not_possible(reason: str) -> None:
    """Skip, saying why (pytest -ra lists it), or fail when the environment requires Slurm."""
    print(f"slurm fixture: {reason}")
    if os.environ.get(REQUIRE) == "1":
        pytest.fail(f"{reason} ({REQUIRE}=1: the Slurm tests must run here)", pytrace=False)
    pytest.skip(reason)


def _as_root() -> list[str] | None:
    """How to start slurmctld/slurmd as root: directly when root, else `sudo -n` when it needs no password
    (GitHub's runner: user `runner`, passwordless sudo); None when neither. slurmd must be root to start
    job steps as the submitting user; munged and the client commands stay with the test's user."""
    if os.geteuid() == 0:
        return []
    sudo = shutil.which("sudo")
    if sudo is None:
        return None
    ok = subprocess.run([sudo, "-n", "true"], capture_output=True, check=False, timeout=30).returncode == 0
    return [sudo, "-n"] if ok else None


# The daemons are in /usr/sbin, which a non-root user's PATH on Debian lacks.
SEARCH = os.pathsep.join([os.environ.get("PATH", ""), "/usr/local/sbin", "/usr/sbin", "/sbin"])


def _path(binary: str) -> str:
    """The full path: sudo's secure_path may not hold the folder the test's PATH found it in."""
    return shutil.which(binary, path=SEARCH) or binary


def _why_not(binaries: tuple[str, ...]) -> str | None:
    missing = [b for b in binaries if shutil.which(b, path=SEARCH) is None]
    if missing:
        return f"Slurm/munge binaries missing: {', '.join(missing)} (.ci/system-deps.sh installs them)"
    if _as_root() is None:
        return "slurmd must run as root to launch jobs; not root and `sudo -n` asks for a password"
    return None


def _wait_idle(env: dict[str, str], seconds: float) -> str:
    deadline, last = time.monotonic() + seconds, ""
    while time.monotonic() < deadline:
        res = subprocess.run(
            ["sinfo", "-h", "-o", "%T"], env=env, capture_output=True, text=True, check=False
        )
        last = (res.stdout + res.stderr).strip()
        if res.returncode == 0 and last and set(last.split()) == {"idle"}:
            return last
        time.sleep(0.3)
    return last


@pytest.fixture(scope="module")
def slurm_cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[SlurmCluster]:
    """munged with its own key and socket, slurmctld and slurmd (-D, as root), node idle; torn down after."""
    yield from _slurm(tmp_path_factory, None)


@pytest.fixture(scope="module")
def slurm_two_nodes(tmp_path_factory: pytest.TempPathFactory) -> Iterator[SlurmCluster]:
    """As slurm_cluster, with two nodes (nodeA, nodeB): two slurmd on this host, each its own node name."""
    yield from _slurm(tmp_path_factory, ["nodeA", "nodeB"])


def _slurm(tmp_path_factory: pytest.TempPathFactory, names: list[str] | None) -> Iterator[SlurmCluster]:
    reason = _why_not(("munged", "slurmctld", "slurmd", "sinfo", "sbatch", "squeue", "scontrol"))
    if reason:
        _not_possible(reason)
    root_cmd = _as_root() or []
    root = tmp_path_factory.mktemp("slurm")
    for d in ("state", "spool", "log", "munge"):
        (root / d).mkdir()
    (root / "munge").chmod(0o700)
    key, sock = root / "munge" / "munge.key", root / "munge" / "munge.sock"
    key.write_bytes(os.urandom(1024))
    key.chmod(0o400)
    node = socket.gethostname().split(".")[0]
    nodes = names or [node]
    conf = root / "slurm.conf"
    conf.write_text(_slurm_conf(root, node, nodes, sock), encoding="utf-8")
    # slurmd loads a cgroup plugin even with proctrack/linuxproc and task/none (Slurm 23.11: "disabled" is
    # 24.05+). On cgroup v2 it asks systemd over D-Bus for a scope (GitHub's runner has both); without
    # D-Bus (a container) it makes the scope itself. CgroupAutomount is defunct in 23.11 and off in 22.05.
    (root / "cgroup.conf").write_text("ConstrainCores=no\nIgnoreSystemdOnFailure=yes\n", encoding="utf-8")
    env = {**os.environ, "SLURM_CONF": str(conf)}
    log = (root / "log" / "daemons.out").open("w")
    pid_files: dict[int, Path] = {}  # daemon under sudo -> its pid file (SIGKILL to sudo is not relayed)
    procs = [
        subprocess.Popen(
            [
                _path("munged"),
                "-F",
                "-f",
                f"--socket={sock}",
                f"--key-file={key}",
                f"--pid-file={root}/munge/munged.pid",
                f"--log-file={root}/munge/munged.log",
                f"--seed-file={root}/munge/seed",
            ],
            stdout=log,
            stderr=subprocess.STDOUT,
        )
    ]
    try:
        for _ in range(50):
            if sock.exists():
                break
            time.sleep(0.1)
        procs.append(
            subprocess.Popen(
                [*root_cmd, _path("slurmctld"), "-D", "-f", str(conf)],
                stdout=log,
                stderr=subprocess.STDOUT,
                env=env,
            )
        )
        pid_files[procs[-1].pid] = root / "slurmctld.pid"
        for name in nodes:
            (root / "spool" / name).mkdir()
            procs.append(
                subprocess.Popen(
                    [*root_cmd, _path("slurmd"), "-D", "-f", str(conf), "-N", name],
                    stdout=log,
                    stderr=subprocess.STDOUT,
                    env=env,
                )
            )
            pid_files[procs[-1].pid] = root / f"slurmd.{name}.pid"
        state = _wait_idle(env, 30)
        if state != "idle":
            reason = f"Slurm did not come up (sinfo: {state!r}); logs in {root / 'log'}"
            print((root / "log" / "daemons.out").read_text()[-2000:])
            _not_possible(reason)
        old = os.environ.get("SLURM_CONF")
        os.environ["SLURM_CONF"] = str(conf)
        try:
            yield SlurmCluster(conf, ",".join(nodes), root / "log")
        finally:
            if old is None:
                os.environ.pop("SLURM_CONF", None)
            else:
                os.environ["SLURM_CONF"] = old
    finally:
        for p in reversed(procs):  # only the daemons this fixture started, by their own handles
            p.terminate()
        for p in reversed(procs):
            try:
                p.wait(timeout=10)
            except subprocess.TimeoutExpired:
                pid_file = pid_files.get(p.pid)
                if root_cmd and pid_file and pid_file.exists():  # the root daemon itself, by its pid file
                    pid = pid_file.read_text().strip()
                    subprocess.run([*root_cmd, "kill", "-KILL", pid], check=False, timeout=30)
                p.kill()
                p.wait()
        log.close()
