"""Scenarios in other database character sets (docs/charsets.md, ``database:``): generator -> decode
-> expected trail, one database set a scenario, the expected text written here from the SQL values
(never from the decoder); the dictionary says the sets; ``scenario.yaml`` keeps them."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from redo_lib.errors import ScenarioError
from redo_lib.pipeline import decode_logs
from redo_lib.synth import generate, load_scenario, random_scenario
from redo_lib.synth.charsets import PYTHON_CODECS
from tests.unit.redo_lib.synth.running import scenario, trail

TABLE = """
database: {{charset: {charset}, national_charset: {national}}}
tables:
  - owner: APP
    name: T
    columns:
      - {{name: ID, type: NUMBER, nullable: false}}
      - {{name: NAME, type: VARCHAR2(30)}}
      - {{name: CODE, type: CHAR(10)}}
      - {{name: BODY, type: CLOB}}
      - {{name: NBODY, type: NCLOB}}
    primary_key: [ID]
"""

# (database set, national set, two words of the set): every kind of set, one scenario each
CASES = [
    ("JA16SJIS", "AL16UTF16", "東京", "ｶﾅ①"),
    ("JA16EUC", "UTF8", "大阪", "ひらがな"),
    ("KO16MSWIN949", "AL16UTF16", "한글", "똠방"),
    ("ZHT16BIG5", "UTF8", "臺北", "繁體"),
    ("ZHS32GB18030", "AL16UTF16", "中文", "😀𠀀"),
    ("CL8KOI8R", "AL16UTF16", "Привет", "ёж"),
    ("AR8MSWIN1256", "UTF8", "عربي", "پ"),
    ("WE8ISO8859P9", "AL16UTF16", "İstanbul", "ğüş"),
]


def _decoded(result: object) -> list[dict[str, object]]:
    records = decode_logs(list(result.logs), result.dictionary)  # type: ignore[attr-defined]
    return [r.to_dict() for r in getattr(records, "trail", records)]


@pytest.mark.parametrize(("charset", "national", "word", "other"), CASES, ids=[c[0] for c in CASES])
def test_text_in_the_database_set_decodes_to_the_sql_values(
    charset: str, national: str, word: str, other: str, tmp_path: Path
) -> None:
    steps = f"""
steps:
  - insert: {{table: T, values: {{ID: 1, NAME: "{word} {other}", CODE: "{word}", BODY: "{other} {word}", NBODY: "{word} 😀"}}}}
  - update: {{table: T, set: {{NAME: "{other}"}}, where: {{ID: 1}}}}
  - commit
"""
    result = generate(
        scenario(steps, table=TABLE.format(charset=charset, national=national)), tmp_path / "out"
    )
    expected = trail(result)
    assert _decoded(result) == expected
    pad = 10 - len(word.encode(PYTHON_CODECS[charset]))
    after = expected[0]["columns"]
    assert after == {
        "ID": "1",
        "NAME": f"{word} {other}",
        "CODE": word + " " * pad,
        "BODY": f"{other} {word}",
        "NBODY": f"{word} 😀",
    }
    assert expected[1]["columns"]["NAME"] == other
    dictionary = json.loads(result.dictionary.read_text(encoding="utf-8"))
    assert (dictionary["db_charset"], dictionary["national_charset"]) == (charset, national)
    assert load_scenario(result.out / "scenario.yaml").settings.charset == charset


def test_a_value_the_set_cannot_hold_is_refused(tmp_path: Path) -> None:
    steps = """
steps:
  - insert: {table: T, values: {ID: 1, NAME: "5 €"}}
  - commit
"""
    with pytest.raises(ScenarioError, match=r"'5 €'.*ZHS16GBK"):
        generate(scenario(steps, table=TABLE.format(charset="ZHS16GBK", national="AL16UTF16")), tmp_path)


def test_unknown_sets_are_refused() -> None:
    with pytest.raises(ScenarioError, match="ZHT32EUC"):
        scenario("steps: []\n", table=TABLE.format(charset="ZHT32EUC", national="AL16UTF16"))
    with pytest.raises(ScenarioError, match="national_charset"):
        scenario("steps: []\n", table=TABLE.format(charset="ZHS16GBK", national="ZHS16GBK"))


def test_random_scenarios_draw_database_sets() -> None:
    drawn = {random_scenario(seed, steps=5).settings.charset for seed in range(40)}
    assert "AL32UTF8" in drawn and len(drawn) >= 8
