"""The thread count a run scores with (issue 40, item 1): the default's arithmetic on planted
affinity, cgroup quota and load values (src/biasatlas/scorers/threads.py), the order of the
three sources (``threads=``, ``OMP_NUM_THREADS``, the default), the wait policy set before torch
loads, and the option's way from ``evaluate``/``--threads`` to timing.json. No timing here:
bench/bench_threads.py measures what the settings cost."""

from __future__ import annotations

import json
import sys
import types

import pytest

from biasatlas.errors import UsageError
from biasatlas.request import EngineOptions, RunRequest
from biasatlas.scorers.threads import CpuBudget, cgroup_quota, choose_threads, passive_openmp, torch_threads


# -- the default's arithmetic: max(1, min(usable, round_half_up(machine - load))) ------------------
@pytest.mark.parametrize("affinity,quota,load,machine,usable,threads", [
    (2, None, 17.0, 2, 2, 1),     # the machine: 2 cores at load 17 → nothing idle → one thread
    (2, None, 0.2, 2, 2, 2),      # idle 1.8 rounds to 2: an idle box is not run on one core
    (2, None, 0.6, 2, 2, 1),      # idle 1.4 rounds to 1
    (4, None, 1.5, 4, 4, 3),      # idle 2.5 rounds half up to 3
    (8, 2.5, 1.0, 64, 2, 2),      # a container's --cpus 2.5 on a big idle host: floor(2.5) = 2 usable
    (8, None, 60.0, 64, 8, 4),    # taskset to 8 CPUs, 4 of the host's 64 idle → 4
    (16, 0.5, 0.0, 16, 1, 1),     # half a CPU of quota still gets one thread
    (1, None, 0.0, 32, 1, 1),     # pinned to one CPU
    (4, None, 100.0, 4, 4, 1),    # load far beyond the machine: idle is 0, never below
])
def test_the_default_is_the_usable_cpus_that_the_load_leaves_idle(affinity, quota, load, machine, usable, threads):
    budget = CpuBudget(affinity=affinity, quota=quota, load=load, machine=machine)
    assert budget.usable == usable
    assert budget.threads() == threads


def test_a_budget_of_no_cpus_is_refused():
    with pytest.raises(ValueError, match="at least one CPU"):
        CpuBudget(affinity=0, quota=None, load=0.0, machine=2)
    with pytest.raises(ValueError, match="quota is positive"):
        CpuBudget(affinity=2, quota=0.0, load=0.0, machine=2)


def test_an_explicit_count_wins_then_omp_num_threads_then_the_default():
    busy = CpuBudget(affinity=4, quota=None, load=0.0, machine=4)  # default: 4
    assert choose_threads(2, {"OMP_NUM_THREADS": "3"}, busy).threads == 2
    env = choose_threads(None, {"OMP_NUM_THREADS": "3"}, busy)
    assert (env.threads, env.chosen_by) == (3, "OMP_NUM_THREADS")
    default = choose_threads(None, {"OMP_NUM_THREADS": "many"}, busy)  # not a count: ignored
    assert (default.threads, default.chosen_by) == (4, "default")
    assert "4 usable CPUs" in default.as_dict()["cpu_budget"]
    with pytest.raises(ValueError, match="at least 1"):
        choose_threads(0)


# -- the cgroup quota, v2 and v1, from planted files -----------------------------------------------
def _plant(root, files):
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)


@pytest.mark.parametrize("files,expected", [
    ({"fs/cpu.max": "max 100000\n"}, None),                         # v2, no limit
    ({"fs/cpu.max": "250000 100000\n"}, 2.5),                       # v2, docker --cpus 2.5
    ({"fs/job/cpu.max": "50000 100000\n", "fs/cpu.max": "max 100000"}, 0.5),  # v2, the process's own group first
    ({"fs/cpu/cpu.cfs_quota_us": "-1\n", "fs/cpu/cpu.cfs_period_us": "100000\n"}, None),  # v1, no limit
    ({"fs/cpu/cpu.cfs_quota_us": "150000\n", "fs/cpu/cpu.cfs_period_us": "100000\n"}, 1.5),  # v1
    ({"fs/cpu,cpuacct/cpu.cfs_quota_us": "300000", "fs/cpu,cpuacct/cpu.cfs_period_us": "100000"}, 3.0),
    ({"fs/cpu.max": "garbage"}, None),
    ({}, None),                                                      # nothing readable: no quota
])
def test_the_cgroup_quota_is_read_from_v2_then_v1(tmp_path, files, expected):
    _plant(tmp_path, {**files, "self_cgroup": "0::/job\n" if "fs/job/cpu.max" in files else "0::/\n"})
    assert cgroup_quota(tmp_path / "fs", tmp_path / "self_cgroup") == expected


# -- OpenMP's wait policy and torch's threads --------------------------------------------------------
def test_the_passive_wait_policy_is_set_only_before_torch_and_only_when_unset(monkeypatch):
    monkeypatch.delitem(sys.modules, "torch", raising=False)
    env: dict[str, str] = {}
    assert passive_openmp(env) and env == {"OMP_WAIT_POLICY": "PASSIVE"}
    mine = {"OMP_WAIT_POLICY": "ACTIVE"}
    assert not passive_openmp(mine) and mine == {"OMP_WAIT_POLICY": "ACTIVE"}  # the user's own choice
    monkeypatch.setitem(sys.modules, "torch", types.SimpleNamespace())
    late: dict[str, str] = {}
    assert not passive_openmp(late) and late == {}  # torch loaded OpenMP already: too late to matter


def test_torch_threads_are_set_inside_and_restored_after(monkeypatch):
    state = {"n": 7}
    fake = types.SimpleNamespace(get_num_threads=lambda: state["n"], set_num_threads=lambda n: state.update(n=n))
    monkeypatch.setitem(sys.modules, "torch", fake)
    with torch_threads(2):
        assert state["n"] == 2
    assert state["n"] == 7
    with pytest.raises(RuntimeError), torch_threads(1):
        raise RuntimeError("a failed run restores them too")
    assert state["n"] == 7


# -- the option: evaluate, the command line, timing.json, never the recorded request ------------------
@pytest.mark.slow  # hashes the English CrowS-Pairs file: about 1.5 s
def test_threads_is_an_engine_option_that_is_not_part_of_the_recorded_request(isolated_run):
    with pytest.raises(UsageError, match="threads"):
        EngineOptions(threads=0)
    one = RunRequest("crows-pairs", {"dataset": "en"}, engine=EngineOptions(threads=1))
    three = RunRequest("crows-pairs", {"dataset": "en"}, engine=EngineOptions(threads=3))
    assert one.recorded() == three.recorded()


@pytest.mark.slow  # two fake runs over the 1,508 English pairs: about 2 s
def test_a_run_records_the_threads_it_used_in_timing_json(isolated_run, tmp_path, monkeypatch):
    import biasatlas

    run = biasatlas.evaluate("crows-pairs", dataset="en", model="fake", cache=False, progress=False, threads=3,
                             out=tmp_path / "run")
    timing = json.loads((tmp_path / "run" / "timing.json").read_text())
    assert timing["engine"]["threads"] == 3 and timing["engine"]["threads_chosen_by"] == "threads"
    assert run.timing["engine"]["threads"] == 3
    monkeypatch.setenv("OMP_NUM_THREADS", "2")
    again = biasatlas.evaluate("crows-pairs", dataset="en", model="fake", cache=False, progress=False)
    assert (again.timing["engine"]["threads"], again.timing["engine"]["threads_chosen_by"]) == (2, "OMP_NUM_THREADS")
