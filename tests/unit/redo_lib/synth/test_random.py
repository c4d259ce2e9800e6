"""Random scenarios: valid for every seed, deterministic, covering every step kind; size-bounded runs."""

from __future__ import annotations

import dataclasses
import json
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

import pytest

from redo_lib.synth import generate, random_scenario
from redo_lib.synth.engine import Engine
from redo_lib.synth.scenario import Step


def _kinds(seed: int, tmp_path: Path) -> Counter[str]:
    seen: Counter[str] = Counter()
    scenario = random_scenario(seed, steps=150)
    plan = scenario.steps

    def recording(engine: Engine) -> Iterator[Step]:
        for step in plan(engine):  # type: ignore[operator]
            seen[type(step).__name__ + ("+array" if getattr(step, "array", False) else "")] += 1
            yield step

    generate(dataclasses.replace(scenario, steps=recording), tmp_path / str(seed), record_steps=False)
    return seen


def test_every_step_kind_occurs_across_a_few_seeds(tmp_path: Path) -> None:
    total: Counter[str] = Counter()
    for seed in range(8):
        total += _kinds(seed, tmp_path)
    expected = {
        "Insert", "Insert+array", "DirectInsert", "Update", "Delete", "Delete+array", "Commit", "Rollback",
        "Savepoint", "RollbackTo", "Switch", "Sleep",
    }  # fmt: skip
    assert expected <= set(total), expected - set(total)


@pytest.mark.parametrize("seed", [0, 1, 2, 3, 4, 5, 6, 7, 8, 9])
def test_random_scenarios_are_valid_and_deterministic(seed: int, tmp_path: Path) -> None:
    first = generate(random_scenario(seed, steps=120), tmp_path / "a")
    second = generate(random_scenario(seed, steps=120), tmp_path / "b")
    assert [p.name for p in first.logs] == [p.name for p in second.logs]
    assert all(a.read_bytes() == b.read_bytes() for a, b in zip(first.logs, second.logs, strict=True))
    assert first.trail.read_bytes() == second.trail.read_bytes()
    assert first.steps >= 120 and first.log_bytes > 0


def test_settings_follow_the_overrides() -> None:
    scenario = random_scenario(3, compat="11.2", block_size=4096, big_endian=True, log_size=1 << 20)
    s = scenario.settings
    assert (s.compat, s.block_size, s.big_endian, s.log_size) == ("11.2", 4096, True, 1 << 20)


def test_size_bounded_run_stops_near_the_size(tmp_path: Path) -> None:
    result = generate(random_scenario(5, size=300_000, log_size=64 << 10), tmp_path, record_steps=False)
    assert 300_000 <= result.log_bytes < 600_000
    assert len(result.logs) >= 4  # 64 KB logs switch


def test_the_long_transaction_outlives_log_switches(tmp_path: Path) -> None:
    for seed in range(20):
        result = generate(
            random_scenario(seed, steps=400, block_size=512, log_size=64 << 10), tmp_path / str(seed)
        )
        spans: dict[str, set[tuple[int, int]]] = {}
        for line in result.trail.read_text().splitlines():
            r = json.loads(line)
            spans.setdefault(r["xid"] + str(r["commit_scn"]), set()).add((r["thread"], r["sequence"]))
        if any(len(s) >= 3 for s in spans.values()):
            return
    pytest.fail("no random transaction spans three logs in 20 seeds")


def test_log_headers_hold_the_scns_of_their_records(tmp_path: Path) -> None:
    """Every record of a generated log lies in its header's [first SCN, next SCN), read back by the
    reader: the planner's RAC watermark is made of these. Seed 56 is a 23ai RAC scenario with SCNs
    above 2^32, whose header SCNs carry the big-SCN flag (redo-format §3.4a)."""
    from redo_lib.pipeline import describe_logs, iter_batch_arrow

    out = tmp_path / "56"
    generate(random_scenario(56, ddl=True), out, record_steps=False)
    refs = describe_logs(sorted((out / "logs").glob("*.arc")))
    assert refs[0].first_scn >= 1 << 32 and {r.thread for r in refs} == {1, 2}
    bounds = {(r.thread, r.sequence): (r.first_scn, r.next_scn) for r in refs}
    outside = [
        (thread, seq, scn, bounds[(thread, seq)])
        for batch in iter_batch_arrow(refs)
        for thread, seq, scn in zip(
            *(batch.column(c).to_pylist() for c in ("thread", "seq", "scn")), strict=True
        )
        if not bounds[(thread, seq)][0] <= scn < (bounds[(thread, seq)][1] or 1 << 64)
    ]
    assert outside == []
