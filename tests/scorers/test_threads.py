"""The thread count a run scores with (issues 40 and 47): the idle CPUs read from planted
/proc/stat readings (src/biasatlas/scorers/cpu_reading.py), the default's arithmetic on planted
affinity, cgroup quota and idle values (src/biasatlas/scorers/threads.py), the ceiling on any
count (issue 46, item 15), the order of the three sources (``threads=``, ``OMP_NUM_THREADS``, the
default), the wait policy set before torch loads, and the option's way from
``evaluate``/``--threads`` to timing.json. No timing here: bench/speed/bench_threads.py measures what
the settings cost."""

from __future__ import annotations

import json
import sys
import types

import pytest

from biasatlas.errors import UsageError
from biasatlas.request import EngineOptions, RunRequest
from biasatlas.scorers import threads as threads_module
from biasatlas.scorers.cpu_reading import (CpuTimes, IdleReading, cgroup_quota, idle_cpus, measure_idle, own_ticks,
                                           parse_proc_stat, read_times)
from biasatlas.scorers.threads import (CpuBudget, check_thread_count, choose_threads, max_threads, passive_openmp,
                                       torch_threads)


# -- idle CPUs from two /proc/stat readings ----------------------------------------------------------
def _stat(*cpus: tuple[int, int, int]) -> str:
    """A /proc/stat text whose CPU n spent (busy, idle, iowait) ticks: busy as user time, the
    aggregate line and the other lines as the kernel writes them (not per-CPU: left out)."""
    lines = [f"cpu  {sum(c[0] for c in cpus)} 0 0 {sum(c[1] for c in cpus)} {sum(c[2] for c in cpus)} 0 0 0 0 0"]
    lines += [f"cpu{n} {busy} 0 0 {idle} {iowait} 0 0 0 0 0" for n, (busy, idle, iowait) in enumerate(cpus)]
    return "\n".join([*lines, "intr 12345 0 0", "ctxt 999", "btime 1700000000", "procs_running 3"]) + "\n"


def test_proc_stat_lines_give_each_cpus_idle_and_total_ticks():
    # cpu0: user 5 nice 1 system 2 idle 70 iowait 3 irq 0 softirq 1 steal 4, guest 6 guest_nice 0:
    # idle = 70 + 3 = 73; total = 5+1+2+70+3+0+1+4 = 86 (guest already counted in user).
    text = "cpu  9 1 2 90 3 0 1 4 6 0\ncpu0 5 1 2 70 3 0 1 4 6 0\ncpu1 4 0 0 20 0 0 0 0 0 0\ncpu2 1 2 3\nctxt 5\n"
    assert parse_proc_stat(text) == {0: (73, 86), 1: (20, 24)}  # cpu2: too few columns, left out


def test_own_ticks_are_utime_plus_stime_counted_after_the_command_name():
    # fields 14 (utime) and 15 (stime) of a /proc/<pid>/stat line; the name holds a space and a ")".
    line = "4242 (my (odd) prog) S 1 4242 4242 0 -1 4194304 100 0 0 0 37 5 0 0 20 0 1 0 7 1000 200"
    assert own_ticks(line) == 37 + 5
    assert own_ticks("garbage") == 0


@pytest.mark.parametrize("busy,expected", [
    ((0, 0), 2.0),         # a quiet 2-core machine: both CPUs idle the whole window
    ((20, 0), 1.0),        # one CPU busy the whole window (another process's loop)
    ((20, 20), 0.0),       # both busy
    ((5, 10), 1.25),       # 15/20 + 10/20 idle
])
def test_idle_cpus_are_the_idle_shares_of_the_window_summed(busy, expected):
    # a 0.2 s window at 100 ticks/s: 20 ticks per CPU, ``busy`` of them busy, the rest idle.
    before = CpuTimes(parse_proc_stat(_stat((1000, 5000, 0), (1000, 5000, 0))))
    after = CpuTimes(parse_proc_stat(_stat(*((1000 + b, 5000 + 20 - b, 0) for b in busy))))
    assert idle_cpus(before, after, [0, 1]) == pytest.approx(expected)


def test_iowait_is_idle_and_this_processs_own_ticks_count_as_idle():
    before = CpuTimes(parse_proc_stat(_stat((0, 0, 0), (0, 0, 0))), own=100)
    # cpu0: 10 busy, 6 idle, 4 iowait → 10/20 idle; cpu1: 20 busy → 0; of those 30 busy ticks this
    # process ran 10, half a window of one CPU: 0.5 + 0 + 10/20 = 1.0 idle to the others.
    after = CpuTimes(parse_proc_stat(_stat((10, 6, 4), (20, 0, 0))), own=110)
    assert idle_cpus(before, after, [0, 1]) == pytest.approx(1.0)
    busy_self = CpuTimes(after.cpus, own=100 + 60)  # more than the CPUs: capped at the two of them
    assert idle_cpus(before, busy_self, [0, 1]) == 2.0


def test_only_the_cpus_of_the_affinity_mask_are_counted():
    # 4 CPUs; cpus 0 and 1 busy the whole window, 2 and 3 idle.
    before = CpuTimes(parse_proc_stat(_stat(*[(0, 0, 0)] * 4)))
    after = CpuTimes(parse_proc_stat(_stat((20, 0, 0), (20, 0, 0), (0, 20, 0), (0, 20, 0))))
    assert idle_cpus(before, after, [0, 1]) == 0.0       # taskset to the busy pair: nothing idle for us
    assert idle_cpus(before, after, [2, 3]) == 2.0
    assert idle_cpus(before, after, [0, 1, 2, 3]) == 2.0  # k = 2 busy of 4 → 4 - 2
    assert idle_cpus(before, after, [7]) is None          # a CPU /proc/stat does not list: nothing measured
    assert idle_cpus(before, before, [0, 1]) is None      # no tick in the window: nothing measured


def test_the_sample_reads_twice_a_window_apart_and_says_what_it_read():
    readings = iter([CpuTimes({0: (0, 0), 1: (0, 0)}), CpuTimes({0: (20, 20), 1: (0, 20)})])
    slept: list[float] = []
    found = measure_idle([0, 1], 0.2, read=lambda: next(readings), sleep=slept.append)
    assert found == IdleReading(1.0, 0.2, "/proc/stat") and slept == [0.2]
    nothing = measure_idle([0, 1], read=lambda: None, sleep=pytest.fail)  # no /proc: no wait either
    assert nothing == IdleReading(None, 0.0, "none")


def test_no_proc_stat_reads_as_nothing(tmp_path):
    assert read_times(tmp_path / "no-stat", tmp_path / "no-self") is None
    (tmp_path / "stat").write_text("cpu  1 2 3 4 5 6 7 8 0 0\nctxt 9\n")  # the aggregate line only
    assert read_times(tmp_path / "stat", tmp_path / "no-self") is None
    (tmp_path / "stat").write_text(_stat((3, 17, 0)))
    assert read_times(tmp_path / "stat", tmp_path / "no-self") == CpuTimes({0: (17, 20)}, own=0)


# -- the default's arithmetic: max(1, min(usable, round_half_up(idle))) ---------------------------------
@pytest.mark.parametrize("affinity,quota,idle,usable,threads", [
    (2, None, 2.0, 2, 2),       # quiet 2-core machine: all usable CPUs (issue 47: a load of 0.7 gave 1)
    (2, None, 1.9, 2, 2),       # a daemon's ticks: still both
    (2, None, 1.5, 2, 2),       # rounding: half a CPU left over rounds up
    (2, None, 1.49, 2, 1),      # … just under half does not
    (2, None, 0.0, 2, 1),       # four busy loops on two cores: nothing idle → one thread, never 0
    (8, None, 5.0, 8, 5),       # k = 3 busy CPUs of 8 → 8 - 3
    (8, 2.5, 7.9, 2, 2),        # a container's --cpus 2.5 on an idle host: floor(2.5) = 2 usable
    (8, 4.0, 1.2, 4, 1),        # quota 4 but the others leave 1.2 idle: the idle reading wins
    (16, 0.5, 16.0, 1, 1),      # half a CPU of quota still gets one thread
    (1, None, 1.0, 1, 1),       # pinned to one CPU
    (4, None, None, 4, 4),      # nothing measurable (no /proc): the usable CPUs
    (8, 3.0, None, 3, 3),       # … capped by the quota
])
def test_the_default_is_the_usable_cpus_that_are_idle_now(affinity, quota, idle, usable, threads):
    budget = CpuBudget(affinity=affinity, quota=quota, idle=idle, window=0.2 if idle is not None else 0.0,
                       source="/proc/stat" if idle is not None else "none")
    assert budget.usable == usable
    assert budget.threads() == threads
    assert budget.reason().startswith(f"{threads}: ")


def test_a_budget_of_no_cpus_is_refused():
    with pytest.raises(ValueError, match="at least one CPU"):
        CpuBudget(affinity=0, quota=None, idle=0.0)
    with pytest.raises(ValueError, match="quota is positive"):
        CpuBudget(affinity=2, quota=0.0, idle=0.0)
    with pytest.raises(ValueError, match="at least 0"):
        CpuBudget(affinity=2, quota=None, idle=-0.5)


def test_the_budget_here_reads_affinity_quota_and_the_idle_sample(monkeypatch):
    # A 2-CPU affinity on a machine whose load average says 1.3 (a busy minute just ended): the
    # planted sample says both CPUs are idle now, and that is what counts.
    monkeypatch.setattr(threads_module.os, "sched_getaffinity", lambda pid: {0, 1}, raising=False)
    monkeypatch.setattr(threads_module.os, "getloadavg", lambda: (1.3, 1.1, 0.6), raising=False)
    monkeypatch.setattr(threads_module, "cgroup_quota", lambda: None)
    asked: list[list[int]] = []

    def sample(cpus):
        asked.append(list(cpus))
        return IdleReading(1.95, 0.2, "/proc/stat")

    budget = CpuBudget.here(measure=sample)
    assert asked == [[0, 1]]
    assert budget == CpuBudget(affinity=2, quota=None, idle=1.95, window=0.2, source="/proc/stat")
    assert budget.threads() == 2
    monkeypatch.setattr(threads_module, "cgroup_quota", lambda: 1.0)  # the same in a --cpus 1 container
    assert CpuBudget.here(measure=sample).threads() == 1


def test_the_default_is_read_once_per_process(monkeypatch):
    calls: list[int] = []
    monkeypatch.setattr(threads_module.CpuBudget, "here",
                        classmethod(lambda cls: calls.append(1) or CpuBudget(affinity=2, quota=None, idle=2.0)))
    threads_module.default_budget.cache_clear()
    try:
        first, second = threads_module.default_budget(), threads_module.default_budget()
    finally:
        threads_module.default_budget.cache_clear()
    assert first is second and calls == [1]


def test_an_explicit_count_wins_then_omp_num_threads_then_the_default():
    quiet = CpuBudget(affinity=4, quota=None, idle=4.0, window=0.2, source="/proc/stat")  # default: 4
    assert choose_threads(2, {"OMP_NUM_THREADS": "3"}, quiet).threads == 2
    env = choose_threads(None, {"OMP_NUM_THREADS": "3"}, quiet)
    assert (env.threads, env.chosen_by) == (3, "OMP_NUM_THREADS")
    assert "cpu_budget" not in env.as_dict()  # nothing was read: the user chose
    default = choose_threads(None, {"OMP_NUM_THREADS": "many"}, quiet)  # not a count: ignored
    assert (default.threads, default.chosen_by) == (4, "default")
    recorded = default.as_dict()
    assert recorded["cpu_budget"] == {"affinity": 4, "quota": None, "usable": 4, "idle_cpus": 4.0, "window_s": 0.2,
                                      "source": "/proc/stat"}
    assert recorded["threads_reason"] == ("4: 4.00 of the 4 CPUs of the affinity mask idle over 0.2 s (/proc/stat), "
                                          "4 usable; rounded half up")
    with pytest.raises(ValueError, match="at least 1"):
        choose_threads(0)


# -- the ceiling: 4 threads per CPU of the machine, at least 256 (issue 46, item 15) -------------------
@pytest.mark.parametrize("machine,limit", [(1, 256), (2, 256), (64, 256), (65, 260), (200, 800)])
def test_the_most_threads_are_four_per_cpu_and_at_least_256(machine, limit):
    assert max_threads(machine) == limit


def test_too_many_threads_are_refused_naming_the_option_and_the_maximum(monkeypatch):
    monkeypatch.setattr(threads_module.os, "cpu_count", lambda: 2)
    check_thread_count(256, {})                      # at the limit: allowed
    check_thread_count(None, {"OMP_NUM_THREADS": "256"})
    check_thread_count(None, {"OMP_NUM_THREADS": "many"})  # not a count: not ours to judge
    with pytest.raises(UsageError, match=r"^--threads 257 is more than the 256 threads allowed here \(4 per CPU of "
                                         r"this machine's 2, at least 256\)$"):
        check_thread_count(257, {})
    with pytest.raises(UsageError, match=r"^OMP_NUM_THREADS=1000000 is more than the 256 threads allowed here .*"
                                         r": unset it or lower it$"):
        check_thread_count(None, {"OMP_NUM_THREADS": "1000000"})
    with pytest.raises(UsageError, match="OMP_NUM_THREADS=4,100000"):  # libgomp's nested levels: each one
        check_thread_count(None, {"OMP_NUM_THREADS": "4,100000"})
    with pytest.raises(UsageError, match="OMP_NUM_THREADS=1000000"):  # OpenMP reads it even with --threads
        check_thread_count(2, {"OMP_NUM_THREADS": "1000000"})
    with pytest.raises(UsageError, match="--threads 100000"):
        choose_threads(100000, {})
    with pytest.raises(UsageError, match="--threads 100000"):
        EngineOptions(threads=100000)


def test_the_environment_is_checked_when_a_run_starts_not_when_a_record_is_built(monkeypatch):
    # RunRequest's default EngineOptions() is built when biasatlas.request is imported: a check of
    # OMP_NUM_THREADS there would be a traceback at import, before the command line could say a word.
    monkeypatch.setenv("OMP_NUM_THREADS", "1000000")
    engine = EngineOptions()
    with pytest.raises(UsageError, match="^OMP_NUM_THREADS=1000000 is more than"):
        engine.check_threads()


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


@pytest.mark.parametrize("cpu_max,busy,threads", [
    ("150000 100000", (0, 0, 0, 0), 1),    # docker --cpus 1.5 on an idle 4-CPU host: the quota's one CPU
    ("300000 100000", (0, 0, 0, 0), 3),    # --cpus 3: three of the four idle CPUs
    ("300000 100000", (20, 20, 0, 0), 2),  # --cpus 3, two CPUs busy with other processes: the two idle ones
    ("max 100000", (20, 0, 0, 0), 3),      # no quota, one CPU busy: 4 - 1
])
def test_in_a_container_the_quota_caps_what_the_idle_sample_leaves(tmp_path, monkeypatch, cpu_max, busy, threads):
    # The kernel's files planted: the cgroup's cpu.max, /proc/stat before the window and, written
    # when the sample sleeps, after it (20 ticks per CPU, ``busy`` of them busy), /proc/self/stat.
    _plant(tmp_path, {"fs/cpu.max": cpu_max, "self_cgroup": "0::/\n", "stat": _stat(*[(100, 900, 0)] * 4),
                      "self_stat": "7 (python) S " + " ".join(["0"] * 20)})

    def sleep(seconds):
        (tmp_path / "stat").write_text(_stat(*((100 + b, 920 - b, 0) for b in busy)))

    def sample(cpus):
        return measure_idle(cpus, read=lambda: read_times(tmp_path / "stat", tmp_path / "self_stat"), sleep=sleep)

    monkeypatch.setattr(threads_module.os, "sched_getaffinity", lambda pid: {0, 1, 2, 3}, raising=False)
    monkeypatch.setattr(threads_module, "cgroup_quota", lambda: cgroup_quota(tmp_path / "fs", tmp_path / "self_cgroup"))
    budget = CpuBudget.here(measure=sample)
    assert (budget.idle, budget.source, budget.window) == (4.0 - sum(b / 20 for b in busy), "/proc/stat", 0.2)
    assert budget.threads() == threads

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


PAIRS = ("\tsent_more\tsent_less\tstereo_antistereo\tbias_type\n"
         "0\tShe is here.\tHe is here.\tstereo\tgender\n"
         "1\tThe old man sat.\tThe young man sat.\tstereo\tage\n")


def test_a_default_run_records_what_it_read_and_why_in_timing_json(isolated_run, tmp_path, monkeypatch):
    import biasatlas

    monkeypatch.delenv("OMP_NUM_THREADS", raising=False)  # the test session's own choice (tests/conftest.py)
    planted = CpuBudget(affinity=2, quota=None, idle=1.6, window=0.2, source="/proc/stat")
    monkeypatch.setattr(threads_module, "default_budget", lambda: planted)
    (tmp_path / "pairs.tsv").write_text(PAIRS, encoding="utf-8")
    biasatlas.evaluate("crows-pairs", data=str(tmp_path / "pairs.tsv"), model="fake", cache=False, progress=False,
                       out=tmp_path / "run")
    engine = json.loads((tmp_path / "run" / "timing.json").read_text())["engine"]
    assert (engine["threads"], engine["threads_chosen_by"]) == (2, "default")  # 1.6 idle rounds to 2
    assert engine["cpu_budget"] == {"affinity": 2, "quota": None, "usable": 2, "idle_cpus": 1.6, "window_s": 0.2,
                                    "source": "/proc/stat"}
    assert engine["threads_reason"].startswith("2: 1.60 of the 2 CPUs of the affinity mask idle over 0.2 s")


@pytest.mark.parametrize("setting,says", [
    ({"argv": ["--threads", "100000"]}, "--threads 100000 is more than the "),
    ({"env": "1000000"}, "OMP_NUM_THREADS=1000000 is more than the "),
    ({"env": "1000000", "argv": ["--threads", "2"]}, "OMP_NUM_THREADS=1000000 is more than the "),
])
def test_the_command_line_refuses_too_many_threads_in_one_line_before_anything_starts(
        isolated_run, tmp_path, monkeypatch, capsys, setting, says):
    import biasatlas.cli as cli

    if "env" in setting:
        monkeypatch.setenv("OMP_NUM_THREADS", setting["env"])
    (tmp_path / "pairs.tsv").write_text(PAIRS, encoding="utf-8")
    argv = ["run", "crows-pairs", "--data", str(tmp_path / "pairs.tsv"), "--model", "fake",
            "--out", str(tmp_path / "run"), *setting.get("argv", [])]
    with pytest.raises(SystemExit) as exited:
        cli.main(argv)
    err = capsys.readouterr().err
    assert exited.value.code == 2, err
    assert says in err and f"allowed here ({4} per CPU" in err and "Traceback" not in err, err
    assert len(err.strip().splitlines()) <= 2, err  # the line, and at most the hint to --help
    assert not (tmp_path / "run").exists()  # refused before the run folder was claimed


@pytest.mark.slow  # a fresh interpreter: about 2 s
def test_the_installed_command_refuses_a_huge_omp_num_threads_in_one_line(tmp_path):
    import os
    import subprocess

    (tmp_path / "pairs.tsv").write_text(PAIRS, encoding="utf-8")
    env = {**os.environ, "OMP_NUM_THREADS": "1000000", "BIASATLAS_CACHE_DIR": str(tmp_path / "cache")}
    argv = ["run", "crows-pairs", "--data", str(tmp_path / "pairs.tsv"), "--model", "fake",
            "--out", str(tmp_path / "run")]
    done = subprocess.run([sys.executable, "-m", "biasatlas", *argv], capture_output=True, text=True, env=env,
                          timeout=120)
    assert done.returncode == 2, done.stderr
    assert done.stderr.startswith("error: OMP_NUM_THREADS=1000000 is more than the ") and "Traceback" not in done.stderr
    assert not (tmp_path / "run").exists()
