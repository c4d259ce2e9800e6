"""The mirror tables' column types: an Oracle column (the dictionary's ``ColumnDef``) -> the Spark SQL
type its mirror column gets in Iceberg or Delta (docs/tables.md, "Column types").

| Oracle | mirror (Spark SQL) | Iceberg / Delta |
|---|---|---|
| NUMBER(p,0), p <= 18 | ``bigint`` | long |
| NUMBER(p,s), p <= 38 | ``decimal(p,s)`` | decimal(p,s) |
| NUMBER, NUMBER(*,s) | ``decimal(38,10)`` (``decimal(38,s)``), or ``string`` by table option | |
| FLOAT, BINARY_DOUBLE | ``double`` | double |
| BINARY_FLOAT | ``float`` | float |
| DATE, TIMESTAMP(n) | ``timestamp_ntz`` (n <= 6: every digit; 7..9: below a microsecond -> NULL, counted) | timestamp / timestamp_ntz |
| TIMESTAMP WITH (LOCAL) TIME ZONE | ``timestamp`` | timestamptz / timestamp |
| RAW, LONG RAW, BLOB | ``binary`` | binary |
| BOOLEAN (23ai) | ``boolean`` | boolean |
| everything else (character types, CLOB, INTERVAL as the trail's ``+02-03`` / ``+01 02:03:04.5...``, ROWID and UROWID as the 18-character ROWID, ...) | ``string`` | string |

NUMBER without a precision defaults to ``decimal(38,10)``: it is how Oracle declares most amounts and
ids (``NUMBER`` alone), and a mirror that cannot be summed is what this mapping is for. A value that
does not fit (more than 28 integer or 10 fractional digits, or Oracle's infinities) is not rounded:
it lands as NULL in the mirror and is counted per table, column and rule in the batch's publish
report, while the changelog keeps the trail's exact text. A table whose numbers do not fit declares
its unbounded NUMBER columns ``string`` instead (``publish --number-as-string OWNER.TABLE``).

Pure functions of the dictionary: the Spark expressions that apply them live in
``spark_jobs/mirror.py``. ``typed_row`` is the same conversion in Python, with Python's own parsers,
for checking a published mirror against a scenario's expected final tables (the demo, tests);
``tests/spark/test_mirror_types.py`` holds both to hand-written values.
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Iterable, Mapping
from decimal import Decimal, InvalidOperation
from typing import Any

from redo_lib.dictionary.model import ColumnDef, TableVersion, TypeCode

STRING = "string"
#: an unbounded NUMBER's decimal: 28 integer digits and 10 fractional ones
UNBOUNDED_PRECISION, UNBOUNDED_SCALE = 38, 10
_BINARY = {TypeCode.RAW, TypeCode.LONG_RAW, TypeCode.BLOB}
_TIMESTAMP_NTZ = {TypeCode.DATE, TypeCode.TIMESTAMP}
_TIMESTAMP_TZ = {TypeCode.TIMESTAMP_TZ, TypeCode.TIMESTAMP_LTZ}


def exact_type(column: ColumnDef, sql_type: str) -> bool:
    """Whether ``sql_type`` holds every value of ``column`` exactly: not for a NUMBER without
    precision (decimal(38,10)), a FLOAT (decimal digits in a double), a TIMESTAMP WITH (LOCAL) TIME
    ZONE, or a TIMESTAMP whose precision the dictionary does not say or is above 6 (digits below the
    microsecond); a TIMESTAMP(0..6) is exact (its n digits fit the mirror's microseconds)."""
    if sql_type == STRING:
        return True
    if column.type_code == TypeCode.NUMBER:
        return column.type_name != "FLOAT" and column.precision is not None and column.precision <= 38
    if column.type_code == TypeCode.TIMESTAMP:
        return column.scale is not None and 0 <= column.scale <= 6
    return column.type_code not in _TIMESTAMP_TZ


def mirror_type(column: ColumnDef, *, number_as_string: bool = False, key: bool = False) -> str:
    """The Spark SQL type of ``column``'s mirror column. A ``key`` column is a string where the
    mapped type cannot hold every value exactly (``exact_type``): a value left NULL in a key column
    would merge distinct rows."""
    sql_type = _mapped_type(column, number_as_string=number_as_string)
    return sql_type if not key or exact_type(column, sql_type) else STRING


def _mapped_type(column: ColumnDef, *, number_as_string: bool = False) -> str:
    code = column.type_code
    if code == TypeCode.NUMBER:
        if column.type_name == "FLOAT" or column.scale == -127:
            return "double"
        precision, scale = column.precision, column.scale
        if precision is None or precision > 38:
            if number_as_string:
                return STRING
            scale = UNBOUNDED_SCALE if scale is None else min(max(scale, 0), UNBOUNDED_PRECISION)
            return f"decimal({UNBOUNDED_PRECISION},{scale})"
        scale = scale or 0
        if scale < 0:  # NUMBER(5,-2): whole hundreds, up to p - s integer digits
            precision, scale = min(precision - scale, 38), 0
        if scale == 0 and precision <= 18:
            return "bigint"
        if scale > precision:  # NUMBER(3,5): 0.00xyz
            precision = scale
        return f"decimal({precision},{scale})"
    if code == TypeCode.BINARY_DOUBLE:
        return "double"
    if code == TypeCode.BINARY_FLOAT:
        return "float"
    if code in _TIMESTAMP_NTZ:
        return "timestamp_ntz"
    if code in _TIMESTAMP_TZ:
        return "timestamp"
    if code in _BINARY:
        return "binary"
    if code == TypeCode.BOOLEAN:
        return "boolean"
    return STRING


def source_name(version: TableVersion) -> str:
    """``OWNER.TABLE`` as the trail and the mirrors name a table (no owner: the bare name)."""
    return f"{version.owner}.{version.name}" if version.owner else version.name


def newest_versions(versions: Iterable[TableVersion]) -> dict[str, TableVersion]:
    """Per ``OWNER.TABLE``, its newest version (the latest ``valid_from_scn``): the shape its mirror
    has after the batch."""
    newest: dict[str, TableVersion] = {}
    for version in versions:
        name = source_name(version)
        if name not in newest or version.valid_from_scn > newest[name].valid_from_scn:
            newest[name] = version
    return newest


def table_types(
    versions: Iterable[TableVersion],
    *,
    number_as_string: Iterable[str] = (),
    exclude_columns: Iterable[str] = (),
) -> dict[str, dict[str, str]]:
    """Per ``OWNER.TABLE``, its columns' mirror types, from the table's newest version (the latest
    ``valid_from_scn``); hidden columns are left out (the trail does not carry them), and so are the
    columns the capture scope leaves out (``exclude_columns``, ``OWNER.TABLE.COLUMN``: the capture
    list's ``-OWNER.TABLE.COLUMN`` entries). Key columns (trail contract rule 12) take an exact type
    (``mirror_type(key=True)``)."""
    as_string = {name.upper() for name in number_as_string}
    left_out = set(exclude_columns)
    newest = newest_versions(versions)
    return {
        name: {
            c.name: mirror_type(
                c, number_as_string=name.upper() in as_string, key=c.name in version.key_columns
            )
            for c in version.columns
            if not c.hidden and f"{name}.{c.name}" not in left_out
        }
        for name, version in sorted(newest.items())
    }


def column_types(
    columns: Iterable[str], held: Mapping[str, str], dictionary: Mapping[str, str]
) -> dict[str, str]:
    """A mirror's column types: what the table holds already wins (a mirror written before, or with
    other options, keeps its types), then the dictionary's, else ``string``."""
    return {c: held.get(c) or dictionary.get(c) or STRING for c in columns}


# --- the conversion in Python (checking mirrors against expected text) ------------------------------

_DATETIME = re.compile(
    r"(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,9}))?(Z|[+-]\d{2}:\d{2})?(?: \[TZ region \d+\])?"
)
_FLOATS = {"Inf": "inf", "-Inf": "-inf", "Nan": "nan", "~": "inf", "-~": "-inf"}


def _decimal(text: str, precision: int, scale: int) -> Decimal | None:
    try:
        value = Decimal(text)
    except InvalidOperation:  # "~": Oracle's infinity
        return None
    _, digits, exponent = value.as_tuple()
    fraction = max(0, -int(exponent))
    whole = len(digits) - fraction if len(digits) > fraction else 0
    if value == 0:
        whole = 0
    return value if fraction <= scale and whole <= precision - scale else None


def _datetime(text: str, aware: bool) -> dt.datetime | None:
    m = _DATETIME.fullmatch(text)
    if not m:
        return None  # a BC date: out of range
    nanos = (m[7] or "").ljust(9, "0")
    if nanos[6:] != "000":
        return None  # below a microsecond
    year, month, day, hour, minute, second = (int(m[i]) for i in range(1, 7))
    value = dt.datetime(year, month, day, hour, minute, second, int(nanos[:6]))
    if not aware:
        return value
    zone = m[8] or "Z"
    offset = (
        dt.timedelta(0) if zone == "Z" else dt.timedelta(hours=int(zone[:3]), minutes=int(zone[0] + zone[4:]))
    )
    return value.replace(tzinfo=dt.timezone(offset)).astimezone(dt.UTC)


def typed_value(text: str | None, kind: Any) -> Any:
    """``text`` (the trail's form) as the mirror column of Arrow type ``kind`` holds it; None for
    a value the type cannot hold exactly."""
    import pyarrow as pa

    if text is None or pa.types.is_string(kind) or pa.types.is_large_string(kind):
        return text
    if pa.types.is_decimal(kind):
        return _decimal(text, kind.precision, kind.scale)
    if pa.types.is_int64(kind):
        value = _decimal(text, 18, 0)
        return None if value is None else int(value)
    if pa.types.is_floating(kind):
        number = float(_FLOATS.get(text, text))
        return number if pa.types.is_float64(kind) else float(pa.scalar(number, pa.float32()).as_py())
    if pa.types.is_timestamp(kind):
        return _datetime(text, aware=kind.tz is not None)
    if pa.types.is_binary(kind) or pa.types.is_large_binary(kind):
        return bytes.fromhex(text) if len(text) % 2 == 0 and re.fullmatch(r"[0-9A-Fa-f]*", text) else None
    if pa.types.is_boolean(kind):
        return {"TRUE": True, "FALSE": False}.get(text)
    raise ValueError(f"no conversion of the trail's text to {kind}")


def typed_row(row: dict[str, str | None], schema: Any) -> dict[str, Any]:
    """An expected row (column -> text) as the mirror of ``schema`` holds it."""
    return {name: typed_value(text, schema.field(name).type) for name, text in row.items()}


def comparable(row: dict[str, Any]) -> dict[str, Any]:
    """A mirror row as read back (pyiceberg, delta-rs): aware timestamps in UTC."""
    return {k: v.astimezone(dt.UTC) if isinstance(v, dt.datetime) and v.tzinfo else v for k, v in row.items()}
