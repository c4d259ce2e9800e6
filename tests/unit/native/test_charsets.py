"""The core's character sets (docs/charsets.md) against the generator's Python codecs: every set the
core lists is one the generator writes, its sample text round-trips generator -> core, and over
every byte (single-byte sets) and every two-byte pair (multi-byte sets) the core reads what
Python's codec wrote back as the same character, but for Oracle's documented deviations."""

from __future__ import annotations

import pytest

from redo_lib.errors import ScenarioError
from redo_lib.native import native
from redo_lib.synth.charsets import PYTHON_CODECS, SAMPLES, avoid, encode_text
from redo_lib.values import charset_name, charset_names

CORE = native.charsets()
NAMES = [name for _, name, _ in CORE]
MULTIBYTE = {name for _, name, multi in CORE if multi}
# the sets Python decodes byte by byte with the same codec the generator writes with
TABLE_SETS = [n for n in NAMES if PYTHON_CODECS[n] not in ("cesu-8", "utf-8", "utf-16-be", "utf-16-le")]

# Where Python's codec writes a character to bytes Oracle's set (so the core) reads otherwise:
# Oracle's own deviation (docs/charsets.md); the generator refuses the character (synth.charsets.avoid).
DEVIATIONS: dict[str, dict[bytes, str]] = {"JA16SJIS": {b"\x81\x60": "\u301c"}}


def test_the_core_lists_44_sets_with_oracle_ids() -> None:
    assert len(CORE) == 44 and len(set(NAMES)) == 44
    assert set(NAMES) == set(PYTHON_CODECS) == set(SAMPLES)
    assert charset_names()[852] == "ZHS16GBK" == charset_name(852)
    assert {"AL32UTF8", "UTF8", "ZHS16GBK", "JA16SJIS"} <= MULTIBYTE
    assert not {"WE8MSWIN1252", "AL16UTF16", "US7ASCII"} & MULTIBYTE


@pytest.mark.parametrize("name", NAMES)
def test_samples_round_trip_generator_to_core(name: str) -> None:
    cid = {n: i for i, n, _ in CORE}[name]
    for text in SAMPLES[name]:
        data = encode_text(text, name)
        assert native.render_value(1, data, charset=name) == text
        assert native.render_value(96, data, charset=cid) == text


def test_every_byte_and_pair_python_writes_reads_back() -> None:
    """For each set: every byte string of one or two bytes that Python's codec decodes to a
    character it writes back to the same bytes, the core decodes to that character (or to
    Oracle's character where docs/charsets.md says Oracle differs), but for the disputed bytes."""
    problems = []
    for name in TABLE_SETS:
        codec = PYTHON_CODECS[name]
        candidates = [bytes([b]) for b in range(256)]
        if name in MULTIBYTE:
            candidates += [bytes([a, b]) for a in range(0x81, 0x100) for b in range(0x30, 0x100)]
        written = {}
        for data in candidates:
            try:
                text = data.decode(codec)
            except UnicodeDecodeError:
                continue
            if len(text) == 1 and text.encode(codec) == data:
                written[data] = text
        got = native.render_values(1, list(written), charset=name, errors="return")
        for (data, text), value in zip(written.items(), got, strict=True):
            expected = DEVIATIONS.get(name, {}).get(data, text)
            if value != expected and text not in avoid(name):
                problems.append((name, data.hex(), text, value if isinstance(value, str) else "error"))
    assert problems == []


@pytest.mark.parametrize(
    ("name", "text"),
    [
        ("ZHS16GBK", "€ 5"),
        ("US7ASCII", "café"),
        ("KO16KSC5601", "똠"),
        ("JA16SJIS", "〜"),
        ("WE8MSWIN1252", "Ł"),
    ],
)
def test_the_generator_refuses_what_the_set_cannot_hold(name: str, text: str) -> None:
    with pytest.raises(ScenarioError) as err:
        encode_text(text, name, "NOTE")
    assert name in err.value.message and repr(text) in err.value.message


def test_undefined_bytes_are_errors_with_their_hex_never_a_replacement() -> None:
    for name, data in [
        ("ZHS16GBK", b"\xd6\xd0\x80"),
        ("WE8MSWIN1252", b"a\x81"),
        ("KO16KSC5601", b"\x81\x41"),
    ]:
        got = native.render_values(1, [data], charset=name, errors="return")[0]
        assert not isinstance(got, str)
        assert got.details["hex"] == data.hex() and got.details["charset"] == name
