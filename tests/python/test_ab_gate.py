"""bench/ab_gate.py (the gate of scripts/device_ab.sh) on synthetic rounds, and device_ab.sh's
refusals before it touches a GPU. CPU only: runs in CI."""
import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
GATE = ROOT / "bench" / "ab_gate.py"
DEVICE_AB = ROOT / "scripts" / "device_ab.sh"


def write_round(directory, tag, times):
    (directory / tag).mkdir()
    rows = [{"row": name, "graph_us": t} for name, t in times.items()]
    (directory / tag / "results.json").write_text(json.dumps({"rows": rows}))


def gate(directory, *args):
    result = subprocess.run([sys.executable, str(GATE), str(directory), *args], capture_output=True, text=True)
    return result.returncode, result.stdout, result.stderr


BASE = {"S2-MHA-T1024": 61.0, "L32K-MHA": 1250.0, "B8x2K-MHA": 465.0}


def test_picks_the_best_passing_variant(tmp_path):
    # base's best of two rounds: S2 61.0 (round 2), L32K 1250.0, B8x2K 465.0
    write_round(tmp_path, "base1", {**BASE, "S2-MHA-T1024": 62.0})
    write_round(tmp_path, "base2", BASE)
    # fast: gate rows -3% (its round 1 is the better one), other row unchanged: passes
    write_round(tmp_path, "fast1", {"S2-MHA-T1024": 59.17, "L32K-MHA": 1212.5, "B8x2K-MHA": 465.0})
    write_round(tmp_path, "fast2", {"S2-MHA-T1024": 60.0, "L32K-MHA": 1260.0, "B8x2K-MHA": 466.0})
    # faster: gate rows -5%, but a row outside the gate +2%: fails on --max-row
    write_round(tmp_path, "faster1", {"S2-MHA-T1024": 57.95, "L32K-MHA": 1187.5, "B8x2K-MHA": 474.3})
    # wrong: gate rows -10% but its outputs differ from the base's: fails
    write_round(tmp_path, "wrong1", {"S2-MHA-T1024": 54.9, "L32K-MHA": 1125.0, "B8x2K-MHA": 465.0})
    for v, rc in (("fast", 0), ("faster", 0), ("wrong", 1)):
        (tmp_path / f"compare-{v}.log").write_text(f"every output and final state is bit for bit equal\nrc={rc}\n")
    rc, out, err = gate(tmp_path, "base", "fast", "faster", "wrong", "--rows", "S2,L32K")
    assert rc == 0, err
    lines = {line.split(":")[0]: line for line in out.splitlines() if ":" in line}
    assert "gate-row mean 0.9700" in lines["fast"] and lines["fast"].endswith("pass")
    assert "B8x2K-MHA 1.0200" in lines["faster"] and lines["faster"].endswith("fail")
    assert "NOT equal" in lines["wrong"] and lines["wrong"].endswith("fail")
    assert out.splitlines()[-1] == "PICK fast"


def test_none_passes_a_stricter_gate(tmp_path):
    write_round(tmp_path, "base1", BASE)
    write_round(tmp_path, "v1", {name: t * 0.995 for name, t in BASE.items()})
    (tmp_path / "compare-v.log").write_text("rc=0\n")
    rc, out, _ = gate(tmp_path, "base", "v", "--rows", "S2")
    assert rc == 0 and out.splitlines()[-1] == "PICK none"  # 0.995 > the default 0.99
    rc, out, _ = gate(tmp_path, "base", "v", "--rows", "S2", "--max-geomean", "0.996")
    assert out.splitlines()[-1] == "PICK v"


def test_versions_ending_in_digits_keep_their_rounds_apart(tmp_path):
    write_round(tmp_path, "base1", BASE)
    write_round(tmp_path, "ls1", {name: t * 0.98 for name, t in BASE.items()})
    write_round(tmp_path, "ls21", {name: t * 1.05 for name, t in BASE.items()})  # ls2's round 1, not ls's
    for v in ("ls", "ls2"):
        (tmp_path / f"compare-{v}.log").write_text("rc=0\n")
    _, out, _ = gate(tmp_path, "base", "ls", "ls2", "--rows", "S2,L32K")
    lines = {line.split(":")[0]: line for line in out.splitlines() if ":" in line}
    assert "gate-row mean 0.9800" in lines["ls"] and "gate-row mean 1.0500" in lines["ls2"]


def test_numerics_change_variants_pass_on_compared_outputs_only(tmp_path):
    write_round(tmp_path, "base1", BASE)
    for v in ("fp", "broken", "nolog", "plain"):
        write_round(tmp_path, f"{v}1", {name: t * 0.97 for name, t in BASE.items()})
    (tmp_path / "compare-fp.log").write_text("the builds differ\nrc=1\n")
    (tmp_path / "compare-broken.log").write_text("cannot read the dumps: ...\nrc=2\n")
    (tmp_path / "compare-plain.log").write_text("the builds differ\nrc=1\n")
    rc, out, _ = gate(tmp_path, "base", "fp", "broken", "nolog", "plain", "--rows", "S2",
                      "--numerics-change", "fp,broken,nolog")
    lines = {line.split(":")[0]: line for line in out.splitlines() if ":" in line}
    assert rc == 0
    assert "numerics change, outputs compared (they differ)" in lines["fp"] and lines["fp"].endswith("-> pass")
    assert "outputs NOT compared" in lines["broken"] and lines["broken"].endswith("-> fail")
    assert "outputs NOT compared" in lines["nolog"] and lines["nolog"].endswith("-> fail")
    # not named as a numerics change: differing outputs fail the gate as before
    assert "bit for bit NOT equal" in lines["plain"] and lines["plain"].endswith("-> fail")
    assert out.strip().splitlines()[-1] == "PICK fp"


def test_refuses_missing_rounds_and_rows(tmp_path):
    write_round(tmp_path, "base1", BASE)
    rc, _, err = gate(tmp_path, "base", "absent", "--rows", "S2")
    assert rc != 0 and "no rounds of 'absent'" in err
    rc, _, err = gate(tmp_path, "base", "base", "--rows", "S9")
    assert rc != 0 and "no row of 'base' starts with" in err


def test_device_ab_refuses_before_any_gpu_work(tmp_path):
    env = {**os.environ, "OUT": str(tmp_path / "out"), "AB_TOOLS": str(tmp_path / "tools")}
    env.pop("BASE", None)
    result = subprocess.run(["bash", str(DEVICE_AB)], env=env, capture_output=True, text=True)
    assert result.returncode != 0 and "BASE" in result.stderr
    env.update(BASE="poll", VARIANTS="ls3", GATE_ROWS="S2")
    result = subprocess.run(["bash", str(DEVICE_AB)], env=env, capture_output=True, text=True)
    assert result.returncode == 2 and "poll/python/gdn2 is missing" in result.stderr
    assert not (tmp_path / "out").exists()  # nothing written


def test_medians_table(tmp_path):
    # three rounds each: the base's medians are BASE's, v's 2% lower on S2 and unchanged elsewhere
    for k, scale in ((1, 1.0), (2, 1.02), (3, 0.99)):
        write_round(tmp_path, f"base{k}", {name: t * scale for name, t in BASE.items()})
        write_round(tmp_path, f"v{k}", {name: t * scale * (0.98 if name.startswith("S2") else 1.0)
                                        for name, t in BASE.items()})
    rc, out, err = gate(tmp_path, "base", "v", "--medians")
    assert rc == 0, err
    lines = {line.split("|")[1].strip(): line for line in out.splitlines() if line.startswith("| ")}
    assert "| 61.0 | 59.8 | -2.0% | base 3.0%, v 3.0% |" in lines["S2-MHA-T1024"]
    assert "| 1250.0 | 1250.0 | +0.0% |" in lines["L32K-MHA"]


def test_gate_needs_its_rows_without_medians(tmp_path):
    write_round(tmp_path, "base1", BASE)
    write_round(tmp_path, "v1", BASE)
    rc, _, err = gate(tmp_path, "base", "v")
    assert rc == 2 and "--rows is required" in err
