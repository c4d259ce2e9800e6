"""Test helper: run a scenario written inline and read back what the generator wrote."""

from __future__ import annotations

import json
import textwrap
from pathlib import Path
from typing import Any

from redo_lib.synth import GenerationResult, Scenario, generate, parse_scenario

TABLE = """
tables:
  - owner: APP
    name: T
    columns:
      - {name: ID, type: NUMBER, nullable: false}
      - {name: NAME, type: VARCHAR2(20)}
      - {name: QTY, type: NUMBER}
    primary_key: [ID]
"""


def scenario(text: str, *, table: str = TABLE) -> Scenario:
    return parse_scenario(textwrap.dedent(table) + textwrap.dedent(text))


def run(text: str, tmp_path: Path, *, table: str = TABLE) -> tuple[GenerationResult, list[dict[str, Any]]]:
    result = generate(scenario(text, table=table), tmp_path / "out")
    return result, trail(result)


def trail(result: GenerationResult) -> list[dict[str, Any]]:
    return [json.loads(line) for line in result.trail.read_text(encoding="utf-8").splitlines()]


def table_rows(result: GenerationResult, name: str) -> list[dict[str, Any]]:
    path = result.out / "expected" / "tables" / f"{name}.jsonl"
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
