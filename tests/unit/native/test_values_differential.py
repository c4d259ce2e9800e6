"""The Rust value rendering (``native.render_value`` / ``render_values``, ``crates/redo-core/src/values``)
against its oracle, ``redo_lib.values.codecs.decode_value``: for every type code and character set,
the same text, or the same ``ValueDecodeError`` (message and details).

Inputs: values the project's encoders write (``encode_value`` of hypothesis-drawn Python values, as
the generator does), bytes built field by field around the valid ranges (dates, BC years, zones,
intervals), random bytes, every single byte in every single-byte charset, every UTF-16 code unit
pair's neighbourhood, and every value the generator writes for the named scenarios. Quick by default
(a few seconds); ``-m slow`` runs the same properties with many more examples.

Known differences (by design, outside what ``decode_value`` is called with): ``charset`` and
``db_timezone`` are taken as ``int`` (64-bit) or ``str`` without lone surrogates; an unknown
charset's name is quoted as Python's ``repr`` quotes it except that an unassigned code point is
printed, not escaped (compared here on class and details only); a ``db_timezone`` with non-ASCII
digits is refused (Python's ``str.isdigit`` takes them).
"""

from __future__ import annotations

import datetime
import decimal
import string
import struct
import unicodedata
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from redo_lib.errors import ValueDecodeError
from redo_lib.native import native
from redo_lib.values.codecs import CODECS, decode_value, encode_value
from redo_lib.values.datetimes import encode_timestamp
from redo_lib.values.text import TWIN_CHARSET_NAMES, charset_names

REPO = Path(__file__).resolve().parents[3]

Outcome = tuple[str, Any, Any]

# max_examples of the quick (default) and heavy (-m slow) profiles
PROFILES = [pytest.param(150, id="quick"), pytest.param(5000, marks=pytest.mark.slow, id="heavy")]
TEXT_TYPES = (1, 8, 96, 112)  # VARCHAR2, LONG, CHAR, CLOB
# the nine sets of the Python twin (the core's other sets have no Python decoder to compare with:
# tests/unit/native/test_charsets.py checks them against Python's codecs)
CHARSET_IDS = sorted(TWIN_CHARSET_NAMES)
CHARSETS: list[str | int] = [*TWIN_CHARSET_NAMES.values(), *CHARSET_IDS]
CORE_ONLY_IDS = frozenset(charset_names()) - frozenset(TWIN_CHARSET_NAMES)
CORE_ONLY_NAMES = frozenset(charset_names().values()) - frozenset(TWIN_CHARSET_NAMES.values())
UNKNOWN_CODES = (0, 58, 119, 999, -1)
# codes only the core renders (no Python codec): their oracle is the codec of the type they render
# like, the error naming them: LONG is text in the column's charset, LONG RAW hex
RENDERED_LIKE = {8: (1, "LONG"), 24: (23, "LONG RAW")}


def _python(type_code: int, data: bytes, charset: str | int, zone: str | int) -> Outcome:
    like, name = RENDERED_LIKE.get(type_code, (type_code, None))
    try:
        return "text", decode_value(like, data, charset=charset, db_timezone=zone), None
    except ValueDecodeError as exc:
        details = exc.details | {"type": name} if name and "type" in exc.details else exc.details
        return "error", exc.message, details


def _rust(type_code: int, data: bytes, charset: str | int, zone: str | int) -> Outcome:
    try:
        return "text", native.render_value(type_code, data, charset, zone), None
    except ValueDecodeError as exc:
        return "error", exc.message, exc.details


def agree(type_code: int, data: bytes, charset: str | int = "AL32UTF8", zone: str | int = 0) -> None:
    expected = _python(type_code, data, charset, zone)
    assert _rust(type_code, data, charset, zone) == expected, (type_code, data.hex(), charset, zone)


def agree_batch(
    type_code: int, values: list[bytes], charset: str | int = "AL32UTF8", zone: str | int = 0
) -> int:
    """``render_values`` over ``values`` == ``decode_value`` of each; the number that decoded."""
    got = native.render_values(type_code, values, charset, zone, errors="return")
    assert len(got) == len(values)
    decoded = 0
    for data, rust in zip(values, got, strict=True):
        expected = _python(type_code, data, charset, zone)
        if isinstance(rust, ValueDecodeError):
            actual: Outcome = ("error", rust.message, rust.details)
        else:
            actual = ("text", rust, None)
            decoded += 1
        assert actual == expected, (type_code, data.hex(), charset, zone)
    return decoded


def run(examples: int, *strategies: st.SearchStrategy[Any]) -> Callable[[Callable[..., None]], None]:
    """Run ``check`` under hypothesis with ``examples`` examples (the profile of the test)."""

    def wrap(check: Callable[..., None]) -> None:
        settings(
            max_examples=examples,
            deadline=None,
            database=None,
            suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
        )(given(*strategies)(check))()

    return wrap


# --- inputs ---------------------------------------------------------------------------------------------

type_codes = st.sampled_from([*sorted(CODECS), *RENDERED_LIKE, *UNKNOWN_CODES])
charset_args = st.one_of(
    st.sampled_from(CHARSETS),
    st.sampled_from(list(TWIN_CHARSET_NAMES.values())).map(lambda n: f" {n.lower()}\t"),
    st.sampled_from(["ZHT32EUC", "JA16VMS", "WE8DEC", "", "utf-8", "it's", "a\"b'c", "\x00\n"]),
    st.integers(-(2**63), 2**63 - 1).filter(lambda i: i not in CORE_ONLY_IDS),
)
zones = st.one_of(
    st.integers(-1500, 1500),
    st.sampled_from(["UTC", " utc ", "Z", "GMT", "+05:30", "-0300", "+23:59", "-24:00", "+99:99", "05:30"]),
    st.builds(
        lambda sign, h, m, colon: f"{sign}{h:02d}{':' if colon else ''}{m:02d}",
        st.sampled_from("+-"),
        st.integers(0, 30),
        st.integers(0, 99),
        st.booleans(),
    ),
    st.text(string.printable, max_size=8),
)


def _date_head(bc: bool, draw: st.DrawFn) -> bytes:
    """7 date bytes, mostly valid (AD or BC), sometimes one field one step out of range."""
    if bc:
        year = draw(st.integers(1, 4713))
        century, year_byte = 100 - year // 100, 100 - year % 100
    else:
        year = draw(st.integers(0, 10000))
        century, year_byte = 100 + year // 100, 100 + year % 100
    fields = [
        century,
        year_byte,
        draw(st.integers(0, 13)),
        draw(st.integers(0, 32)),
        draw(st.integers(0, 25)),
        draw(st.integers(0, 61)),
        draw(st.integers(0, 61)),
    ]
    return bytes(min(max(f, 0), 255) for f in fields)


@st.composite
def date_like(draw: st.DrawFn) -> bytes:
    """DATE / TIMESTAMP / TSTZ / TSLTZ bytes built field by field (lengths 7, 11, 13 and others)."""
    head = _date_head(draw(st.booleans()), draw)
    nanos = draw(st.one_of(st.integers(0, 999_999_999), st.integers(0, 2**32 - 1), st.just(0)))
    zone = bytes(
        [
            draw(st.one_of(st.integers(4, 37), st.integers(0, 255))),
            draw(st.one_of(st.integers(0, 120), st.integers(0, 255))),
        ]
    )
    full = head + nanos.to_bytes(4, "big") + zone
    return full[: draw(st.sampled_from([7, 7, 11, 11, 13, 13, 6, 8, 12]))]


@st.composite
def intervals(draw: st.DrawFn) -> bytes:
    """INTERVAL YEAR TO MONTH (5) / DAY TO SECOND (11) bytes around the valid ranges."""
    bias = 0x80000000
    lead = (bias + draw(st.integers(-(2**31), 2**31 - 1) | st.integers(-3, 3))).to_bytes(4, "big")
    small = [draw(st.integers(60 - 25, 60 + 25) | st.integers(0, 255)) for _ in range(3)]
    nanos = (bias + draw(st.integers(-(10**9), 10**9) | st.integers(-3, 3))) % 2**32
    ds = lead + bytes(small) + nanos.to_bytes(4, "big")
    return ds[: draw(st.sampled_from([5, 11, 11, 4, 10, 12]))]


@st.composite
def urowids(draw: st.DrawFn) -> bytes:
    dataobj = draw(st.integers(0, 2**32 - 1))
    slot, rfile = draw(st.integers(0, 2**16 - 1)), draw(st.integers(0, 0x3FF) | st.integers(0, 2**16 - 1))
    block = draw(st.integers(0, 0x3FFFFF) | st.integers(0, 2**32 - 1))
    data = b"\x01" + struct.pack(">IHHI", dataobj, slot, rfile, block)
    return draw(st.sampled_from([data, data[:12], data + b"\x00", b"\x02" + data[1:]]))


@st.composite
def rowid_values(draw: st.DrawFn) -> bytes:
    """ROWID (type 69) bytes: data object, DBA, slot; 10 bytes or one too few or too many."""
    data = struct.pack(">IIH", *(draw(st.integers(0, 2**n - 1)) for n in (32, 32, 16)))
    return draw(st.sampled_from([data, data, data[:9], data + b"\x00"]))


numbers_as_values = st.one_of(
    st.integers(-(10**40), 10**40),
    st.decimals(allow_nan=False, allow_infinity=True, places=None).filter(
        lambda d: not d.is_finite() or (d == 0 or -130 <= d.adjusted() <= 125)
    ),
    st.floats(allow_nan=False, allow_infinity=False),
    st.builds(
        lambda sign, digits, adjusted: decimal.Decimal(
            (sign, tuple(int(c) for c in str(digits)), adjusted - len(str(digits)) + 1)
        ),
        st.integers(0, 1),
        st.integers(1, 10**40),
        st.integers(-130, 125),
    ),
)


@st.composite
def encoded(draw: st.DrawFn) -> tuple[int, bytes, str | int, str | int]:
    """(type code, bytes, charset, db_timezone) as the project's encoders write values."""
    type_code = draw(st.sampled_from(sorted(CODECS)))
    charset: str | int = draw(st.sampled_from(CHARSETS))
    zone: str | int = draw(zones)
    if type_code in TEXT_TYPES:
        value: Any = draw(st.text(st.characters(exclude_categories=("Cs",)), max_size=12))
    elif type_code == 2:
        value = draw(numbers_as_values)
    elif type_code in (12, 180, 231):
        value = draw(st.datetimes())
    elif type_code == 181:
        offset = draw(st.integers(-15 * 60 + 1, 16 * 60 - 1))
        value = draw(st.datetimes(timezones=st.just(datetime.timezone(datetime.timedelta(minutes=offset)))))
    elif type_code in (23, 113):
        value = draw(st.binary(max_size=16))
    elif type_code == 100:
        value = draw(st.floats(width=32, allow_nan=False))
    elif type_code == 101:
        value = draw(st.floats(allow_nan=False))
    elif type_code == 182:
        value = draw(st.integers(-(2**31) * 12 + 12, 2**31 * 12 - 12))
    elif type_code == 183:
        value = draw(st.timedeltas())
    elif type_code == 252:
        value = draw(st.booleans())
    else:  # 69, 208
        value = draw(
            st.builds(
                lambda o, f, b, s: f"{native_rowid(o, f, b, s)}",
                st.integers(0, 2**32 - 1),
                st.integers(0, 0x3FF),
                st.integers(0, 0x3FFFFF),
                st.integers(0, 0xFFFF),
            )
        )
    try:
        if type_code == 180 and draw(st.booleans()):
            data = encode_timestamp(value, nanos=draw(st.integers(0, 999_999_999)))
        else:
            data = encode_value(type_code, value, charset=charset, db_timezone=0)
    except ValueDecodeError:  # the value does not fit the type or charset: its UTF-8 bytes instead
        data = str(value).encode()
    return type_code, data, charset, zone


def native_rowid(dataobj: int, rfile: int, block: int, slot: int) -> str:
    from redo_lib.values.rowids import RowId

    return str(RowId(dataobj=dataobj, rfile=rfile, block=block, slot=slot))


# --- properties ---------------------------------------------------------------------------------------


@pytest.mark.parametrize("examples", PROFILES)
def test_encoded_values_render_alike(examples: int) -> None:
    @run(examples * 4, encoded())
    def check(case: tuple[int, bytes, str | int, str | int]) -> None:
        agree(*case)


@pytest.mark.parametrize("examples", PROFILES)
def test_random_bytes_render_alike(examples: int) -> None:
    @run(examples * 4, type_codes, st.binary(max_size=24), charset_args, zones)
    def check(type_code: int, data: bytes, charset: str | int, zone: str | int) -> None:
        agree(type_code, data, charset, zone)


@pytest.mark.parametrize("examples", PROFILES)
def test_datetime_bytes_render_alike(examples: int) -> None:
    @run(examples * 4, st.sampled_from([12, 180, 181, 231]), date_like(), zones)
    def check(type_code: int, data: bytes, zone: str | int) -> None:
        agree(type_code, data, zone=zone)


@pytest.mark.parametrize("examples", PROFILES)
def test_interval_and_rowid_bytes_render_alike(examples: int) -> None:
    @run(examples * 2, st.sampled_from([182, 183]), intervals())
    def check_interval(type_code: int, data: bytes) -> None:
        agree(type_code, data)

    @run(examples, urowids())
    def check_urowid(data: bytes) -> None:
        agree(208, data)

    @run(examples, rowid_values())
    def check_rowid(data: bytes) -> None:
        agree(69, data)


@pytest.mark.parametrize("examples", PROFILES)
def test_number_bytes_render_alike(examples: int) -> None:
    """Exponent byte and base-100 digits drawn around the valid ones (both signs, terminator or not)."""

    @run(
        examples * 4,
        st.integers(0, 255),
        st.lists(st.integers(0, 103) | st.integers(0, 255), max_size=22),
        st.booleans(),
    )
    def check(head: int, digits: list[int], terminator: bool) -> None:
        agree(2, bytes([head, *digits]) + (b"\x66" if terminator else b""))


@pytest.mark.parametrize("examples", PROFILES)
def test_text_in_every_charset_renders_alike(examples: int) -> None:
    """Text encoded in each charset (and then damaged), and random bytes, for CHAR/VARCHAR2/LONG/CLOB."""

    @run(
        examples * 4,
        st.sampled_from(TEXT_TYPES),
        st.sampled_from(CHARSETS),
        st.text(st.characters(exclude_categories=("Cs",)), max_size=16),
        st.binary(max_size=4),
        st.integers(0, 20),
    )
    def check(type_code: int, charset: str | int, text: str, noise: bytes, at: int) -> None:
        try:
            data = encode_value(RENDERED_LIKE.get(type_code, (type_code,))[0], text, charset=charset)
        except ValueDecodeError:
            data = text.encode("utf-8", "surrogatepass")
        agree(type_code, data, charset)
        agree(type_code, data[:at] + noise + data[at:], charset)
        agree(type_code, data[:at], charset)


@pytest.mark.parametrize("examples", PROFILES)
def test_unknown_charset_names(examples: int) -> None:
    """An unknown charset name is the same error; the message too unless it holds an unassigned
    code point (Python escapes it in the repr, the core prints it)."""

    @run(
        examples, st.text(st.characters(exclude_categories=("Cs",)), max_size=10), st.sampled_from(TEXT_TYPES)
    )
    def check(name: str, type_code: int) -> None:
        if name.strip().upper() in CORE_ONLY_NAMES:  # the core decodes it, the twin has no codec
            return
        expected = _python(type_code, b"A", name, 0)
        got = _rust(type_code, b"A", name, 0)
        if any(unicodedata.category(c) == "Cn" for c in name):
            assert got[0] == expected[0] and got[2] == expected[2]
        else:
            assert got == expected


def test_every_byte_in_every_charset() -> None:
    singles = [bytes([b]) for b in range(256)]
    pairs = [bytes([a, b]) for a in range(256) for b in (0x00, 0x41, 0x80, 0xA0, 0xBF, 0xC0, 0xFF)]
    for charset in CHARSETS:
        for type_code in TEXT_TYPES:
            agree_batch(type_code, singles, charset)
        agree_batch(1, pairs, charset)


def test_utf16_and_cesu8_code_units() -> None:
    """Every UTF-16 code unit alone, and every high/low surrogate pairing edge; every 3-byte
    sequence starting with 0xED in CESU-8 and UTF-8, alone and before a low surrogate."""
    units = [u.to_bytes(2, "big") for u in range(0x10000)]
    assert agree_batch(1, units, "AL16UTF16") == 0x10000 - 0x800
    edges = [0xD7FF, 0xD800, 0xDBFF, 0xDC00, 0xDFFF, 0xE000, 0x0041]
    combos = [a.to_bytes(2, "big") + b.to_bytes(2, "big") for a in edges for b in edges]
    agree_batch(1, combos + [c[:3] for c in combos], 2000)
    ed = [bytes([0xED, b, c]) for b in range(256) for c in (0x80, 0xBF, 0x41, 0xC0)]
    low = (
        "\U0001f600".encode("utf-16-be")[2:]
        .decode("utf-16-be", "surrogatepass")
        .encode("utf-8", "surrogatepass")
    )
    for charset in ("UTF8", "AL32UTF8"):
        agree_batch(1, ed + [e + low for e in ed] + [e[:2] for e in ed], charset)


@pytest.mark.parametrize(
    "count", [pytest.param(20_000, id="quick"), pytest.param(1_000_000, marks=pytest.mark.slow, id="heavy")]
)
def test_random_float_bits(count: int) -> None:
    """BINARY_FLOAT / BINARY_DOUBLE of random bit patterns (NaN payloads, subnormals, both zeros),
    and of the values with few significant bits, where the %g search meets ties."""
    import random

    rnd = random.Random(16)
    for type_code, size, exponents in ((100, 4, range(-150, 121)), (101, 8, range(-1075, 1018, 7))):
        values = [rnd.getrandbits(8 * size).to_bytes(size, "big") for _ in range(count)]
        values += [encode_value(type_code, m * 2.0**e) for m in range(-40, 41) for e in exponents]
        assert agree_batch(type_code, values) == len(values)


def test_batch_keeps_nulls_and_raises_the_first_error() -> None:
    assert native.render_values(2, [b"\xc1\x02", None, b"\x80"]) == ["1", None, "0"]
    with pytest.raises(ValueDecodeError) as info:
        native.render_values(2, [b"\xc1\x02", b"\xc1\x00", b""])
    assert info.value.message == "malformed NUMBER digits"
    assert info.value.details == {"type": "NUMBER", "hex": "c100"}
    assert native.render_value(2, b"\xc1\x0d\x33") == "12.5"  # decode_value's defaults


# --- the values the generator writes for the named scenarios ---------------------------------------------


@pytest.mark.parametrize("name", ["typed_columns", "lobs", "basic_dml", "schema_changes", "long_types"])
def test_scenario_values_render_alike(name: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from redo_lib.synth import columns, generate, load_scenario

    written: list[tuple[int, bytes, str | int]] = []

    def encode_value_recorded(type_code: int, value: Any, **kwargs: Any) -> bytes:
        data = encode_value(type_code, value, **kwargs)
        written.append((type_code, data, kwargs.get("charset", "AL32UTF8")))
        return data

    def encode_timestamp_recorded(value: Any, **kwargs: Any) -> bytes:
        data = encode_timestamp(value, **kwargs)
        written.append((180, data, "AL32UTF8"))
        return data

    monkeypatch.setattr(columns, "encode_value", encode_value_recorded)
    monkeypatch.setattr(columns, "encode_timestamp", encode_timestamp_recorded)
    generate(load_scenario(REPO / "include" / "scenarios" / f"{name}.yaml"), tmp_path, record_steps=False)
    assert written
    by_type: dict[tuple[int, str | int], list[bytes]] = {}
    for type_code, data, charset in written:
        by_type.setdefault((type_code, charset), []).append(data)
    for (type_code, charset), values in by_type.items():
        assert agree_batch(type_code, values, charset) == len(values)
