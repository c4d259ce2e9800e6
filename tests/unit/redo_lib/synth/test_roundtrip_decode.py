"""Decoding generated logs gives exactly the expected trail the generator derived from the SQL.

The decoder is ``redo_lib.pipeline.decode_logs(paths, dictionary)``; the expected trail never touches
it. 20 random seeds by default, 1000 with ``-m slow``; plus every named scenario.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from redo_lib.synth import GenerationResult, generate, load_scenario, random_scenario

try:
    from redo_lib.pipeline import decode_logs
except ImportError:  # pragma: no cover - until the decoder exists
    pytest.skip("decoder not available yet", allow_module_level=True)

REPO = Path(__file__).resolve().parents[4]
SCENARIOS = sorted((REPO / "include" / "scenarios").glob("*.yaml"))
# Random seeds with DDL steps (random_scenario(ddl=True)): when on, every seed with seed % 4 == 0;
# the other seeds give the scenarios they always gave.
RANDOM_DDL = True


def _random(seed: int) -> Any:
    return random_scenario(seed, ddl=RANDOM_DDL and seed % 4 == 0)


def _decoded(result: GenerationResult) -> list[dict[str, Any]]:
    decoded = decode_logs(list(result.logs), result.dictionary)
    records = getattr(decoded, "trail", decoded)  # a DecodeResult or the list of TrailRecord
    return [r.to_dict() for r in records]


def _assert_same(result: GenerationResult) -> None:
    expected = [json.loads(line) for line in result.trail.read_text(encoding="utf-8").splitlines()]
    got = _decoded(result)
    for i, (g, e) in enumerate(zip(got, expected, strict=False)):
        if g != e:
            diff = {k: (g.get(k), e[k]) for k in e if g.get(k) != e[k]}
            pytest.fail(f"{result.out}: record {i} differs (got, expected): {diff}")
    assert len(got) == len(expected), f"{result.out}: {len(got)} records decoded, {len(expected)} expected"


@pytest.mark.parametrize("path", SCENARIOS, ids=lambda p: p.stem)
def test_named_scenario_decodes_to_its_expected_trail(path: Path, tmp_path: Path) -> None:
    _assert_same(generate(load_scenario(path), tmp_path))


@pytest.mark.parametrize("seed", range(20))
def test_random_seed_decodes_to_its_expected_trail(seed: int, tmp_path: Path) -> None:
    _assert_same(generate(_random(seed), tmp_path, record_steps=False))


@pytest.mark.slow
@pytest.mark.parametrize("seed", range(20, 1000))
def test_random_seed_decodes_to_its_expected_trail_slow(seed: int, tmp_path: Path) -> None:
    _assert_same(generate(_random(seed), tmp_path, record_steps=False))
