"""Random tables and column values for ``synth.randomized``: :func:`random_table` (keys and columns
of the basic types) and :func:`basic_value` (their values), from the plan's streams;
:func:`random_value` for the column types of issue 34 (NVARCHAR2 / NCHAR, INTEGER / SMALLINT /
DECIMAL(p,s) / FLOAT(b), BINARY_FLOAT, BOOLEAN (23ai seeds only), TIMESTAMP(n), INTERVAL YEAR TO
MONTH / DAY TO SECOND, LONG / LONG RAW (one a table at most, its last drawn column), UROWID).

The columns of issue 34's types and their values come from random streams of their own (``seed ^
TYPES_STREAM`` for the columns, ``seed ^ VALUES_STREAM`` for the values), as the character set
draw does: half the seeds draw no such column and give, byte for byte, the scenario they gave before
these types existed; the others add one to four columns ``Y1``, ``Y2``, ... at the end of some of
their tables (:func:`add_type_columns`). The supplemental logging of each table comes from a stream
of its own too (``seed ^ SUPPLEMENTAL_STREAM``, :func:`draw_supplemental`): half the seeds keep the
default (primary key logging) for every table.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import decimal
import random
from typing import Any

from redo_lib.synth.charsets import alphabet, encode_text
from redo_lib.synth.columns import ColumnType, parse_type
from redo_lib.synth.scenario import SUPPLEMENTAL_MODES, ColumnSpec, TableSpec
from redo_lib.values.rowids import RowId

__all__ = [
    "BASIC_TYPES",
    "DRAWN_TYPES",
    "KEY_TYPES",
    "TYPES_STREAM",
    "RANDOM_MODES",
    "SUPPLEMENTAL_STREAM",
    "VALUES_STREAM",
    "add_type_columns",
    "draw_supplemental",
    "basic_value",
    "random_table",
    "random_value",
]

#: the basic types of a random table's columns (and of the columns random DDL adds); of its keys
BASIC_TYPES = [
    "NUMBER",
    "NUMBER(10,2)",
    "VARCHAR2(40)",
    "VARCHAR2(400)",
    "CHAR(6)",
    "DATE",
    "TIMESTAMP",
    "RAW(12)",
    "BINARY_DOUBLE",
]
KEY_TYPES = ["NUMBER", "VARCHAR2(30)"]

TYPES_STREAM = 0x7195E5
VALUES_STREAM = 0x7195E6
SUPPLEMENTAL_STREAM = 0x5A9915
#: the modes random seeds with DDL draw: those whose updates keep their key in the redo. Under
#: ``unique``, ``foreign`` and ``none`` an update may lack it and is keyed by ROWID (docs/tables.md),
#: which publish finds in the mirror by ``_rowid``: a MOVE, SPLIT or EXCHANGE gives rows new ROWIDs
#: with no row change, so such an update after one finds no row (counted, not placed). Seeds without
#: DDL draw every mode (``SUPPLEMENTAL_MODES``).
RANDOM_MODES = ("all", "primary")
#: the declarations a random table's extra columns take (BOOLEAN: 23ai seeds only)
DRAWN_TYPES = (
    "NVARCHAR2(20)",
    "NCHAR(4)",
    "INTEGER",
    "SMALLINT",
    "DECIMAL(12,3)",
    "FLOAT(24)",
    "FLOAT",
    "BINARY_FLOAT",
    "BOOLEAN",
    "TIMESTAMP(0)",
    "TIMESTAMP(3)",
    "TIMESTAMP(6)",
    "TIMESTAMP(9)",
    "INTERVAL YEAR TO MONTH",
    "INTERVAL YEAR(4) TO MONTH",
    "INTERVAL DAY TO SECOND",
    "INTERVAL DAY(3) TO SECOND(0)",
    "LONG",
    "LONG RAW",
    "UROWID",
)
#: at most one of these a table (ORA-01754), stored last: a second draw is dropped, the one kept
#: goes after the table's other drawn columns
_LONGS = ("LONG", "LONG RAW")
_TEXT = "abcdefghijklmnopqrstuvwxyz ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789'\"-_.,;:!?éßøæ漢字€"
_NATIONAL_TEXT = "abcxyz ÀéßΩЖ中文한글日本😀𠀀"


def random_table(rnd: random.Random, i: int, name: str = "", *, sets: tuple[str, str]) -> TableSpec:
    """A random table ``T<i+1>`` (or ``name``): key columns K1.. of ``KEY_TYPES`` (a primary key, a
    unique key or none), columns C1.. of ``BASIC_TYPES``, and now and then three wide VARCHAR2s."""
    name = name or f"T{i + 1}"
    kind = rnd.choice(["pk", "pk", "uk", "none"])
    key_count = rnd.choice([1, 1, 2])
    columns = [
        ColumnSpec(name=f"K{j + 1}", type=parse_type(rnd.choice(KEY_TYPES), *sets), nullable=kind == "none")
        for j in range(key_count)
    ]
    for j in range(rnd.randint(1, 6)):
        columns.append(
            ColumnSpec(name=f"C{j + 1}", type=parse_type(rnd.choice(BASIC_TYPES), *sets), nullable=True)
        )
    if rnd.random() < 0.3:  # rows larger than a data block
        columns += [
            ColumnSpec(name=f"BIG{j + 1}", type=parse_type("VARCHAR2(1800)", *sets), nullable=True)
            for j in range(3)
        ]
    keys = tuple(c.name for c in columns[:key_count])
    if kind == "pk":
        return TableSpec(owner="RND", name=name, columns=tuple(columns), primary_key=keys)
    if kind == "uk":
        return TableSpec(owner="RND", name=name, columns=tuple(columns), unique_keys=(keys,))
    return TableSpec(owner="RND", name=name, columns=tuple(columns))


def draw_supplemental(
    seed: int, tables: tuple[TableSpec, ...], modes: tuple[str, ...] = SUPPLEMENTAL_MODES
) -> tuple[TableSpec, ...]:
    """The tables of random seed ``seed`` with the supplemental logging its own stream draws for each
    from ``modes`` (``foreign``: a foreign key on one non-key column); unchanged for half the seeds."""
    rnd = random.Random(seed ^ SUPPLEMENTAL_STREAM)
    if rnd.random() < 0.5:
        return tables
    out = []
    for table in tables:
        mode = rnd.choice(modes)
        others = [c.name for c in table.columns if c.name not in table.key]
        foreign = ((rnd.choice(others),),) if mode == "foreign" and others else ()
        out.append(dataclasses.replace(table, supplemental=mode, foreign_keys=foreign))
    return tuple(out)


def add_type_columns(
    seed: int, tables: tuple[TableSpec, ...], compat: str, sets: tuple[str, str]
) -> tuple[tuple[TableSpec, ...], random.Random | None]:
    """The tables of random seed ``seed`` with the extra columns its own stream draws, and the
    stream their values come from (``None``, and the tables unchanged, for half the seeds)."""
    rnd = random.Random(seed ^ TYPES_STREAM)
    if rnd.random() < 0.5:
        return tables, None
    choices = [t for t in DRAWN_TYPES if t != "BOOLEAN" or compat == "23ai"]
    out = []
    for table in tables:
        count = rnd.choice([0, 1, 2, 4])
        drawn = [rnd.choice(choices) for _ in range(count)]
        longs = [t for t in drawn if t in _LONGS][:1]
        drawn = [t for t in drawn if t not in _LONGS] + longs
        extra = tuple(
            ColumnSpec(name=f"Y{j + 1}", type=parse_type(t, *sets), nullable=True)
            for j, t in enumerate(drawn)
        )
        out.append(dataclasses.replace(table, columns=table.columns + extra) if extra else table)
    if not any(len(a.columns) != len(b.columns) for a, b in zip(out, tables, strict=True)):
        return tables, None
    return tuple(out), random.Random(seed ^ VALUES_STREAM)


def basic_value(rnd: random.Random, ctype: ColumnType, nullable: bool, text_limit: int) -> Any:
    """A scenario value for a column of one of the basic types (NUMBER, VARCHAR2, CHAR, DATE,
    TIMESTAMP, RAW, BINARY_DOUBLE) from the plan's own stream (``None`` now and then when NULL-able)."""
    if nullable and rnd.random() < 0.15:
        return None
    name = ctype.name
    if name == "NUMBER":
        if ctype.scale:
            return str(decimal.Decimal(rnd.randrange(-(10**7), 10**7)).scaleb(-ctype.scale))
        return rnd.choice(
            [
                rnd.randrange(-1000, 1000),
                rnd.randrange(10**15),
                str(decimal.Decimal(rnd.randrange(-(10**9), 10**9)).scaleb(-rnd.randrange(0, 12))),
                0,
            ]
        )
    if name in ("VARCHAR2", "CHAR"):
        limit = min(ctype.length, text_limit if name == "VARCHAR2" else ctype.length)
        text = "".join(rnd.choices(alphabet(ctype.db_charset, _TEXT), k=rnd.randint(1, limit)))
        while _size(text, ctype.db_charset) > ctype.length:
            text = text[:-1]
        return text or "x"
    if name in ("DATE", "TIMESTAMP"):
        moment = dt.datetime(1900, 1, 1) + dt.timedelta(seconds=rnd.randrange(200 * 365 * 86400))
        if name == "TIMESTAMP" and rnd.random() < 0.6:
            return f"{moment.isoformat()}.{rnd.randrange(10**9):09d}"
        return moment.isoformat()
    if name == "RAW":
        return bytes(rnd.randrange(256) for _ in range(rnd.randint(1, ctype.length))).hex()
    special = rnd.random()
    if special < 0.05:
        return rnd.choice(["Inf", "-Inf", "Nan"])
    return rnd.choice(
        [
            rnd.uniform(-1e6, 1e6),
            rnd.random(),
            float(rnd.randrange(-100, 100)),
            rnd.uniform(-1, 1) * 10 ** rnd.randrange(-300, 300),
        ]
    )


def _size(text: str, charset: str) -> int:
    """Bytes of ``text`` in ``charset`` (random text holds only characters the set holds)."""
    return len(text.encode("utf-8") if charset == "AL32UTF8" else encode_text(text, charset))


def random_value(rnd: random.Random, ctype: ColumnType, nullable: bool, *, small: bool = False) -> Any:
    """A scenario value for a drawn column of ``ctype`` (``None`` now and then when NULL-able); every
    value fits the type (``columns.normalize`` rounds the fractions Oracle rounds). ``small``: a row
    of a direct-path load, which must fit one block (a LONG / LONG RAW of at most 100 characters)."""
    if nullable and rnd.random() < 0.15:
        return None
    name = ctype.name
    if name in ("NVARCHAR2", "NCHAR"):
        limit = ctype.char_length or 1
        text = "".join(rnd.choices(_NATIONAL_TEXT, k=rnd.randint(1, limit)))
        while len(text.encode("utf-16-be")) // 2 > limit:  # a supplementary character counts two
            text = text[:-1]
        return text
    if name == "NUMBER" and ctype.precision is None:  # INTEGER / SMALLINT: NUMBER(*,0)
        return rnd.choice(
            [rnd.randrange(-1000, 1000), rnd.randrange(-(2**31), 2**31), 0, f"{rnd.randrange(10**6)}.5"]
        )
    # DECIMAL(p,s): p digits at most, s of them after the point (precision None returned above)
    if name == "NUMBER" and ctype.precision is not None:
        digits = rnd.randint(1, ctype.precision)
        return str(decimal.Decimal(rnd.randrange(-(10**digits) + 1, 10**digits)).scaleb(-(ctype.scale or 0)))
    if name == "FLOAT":
        return str(decimal.Decimal(rnd.randrange(-(10**12), 10**12)).scaleb(-rnd.randrange(0, 20)))
    if name == "BINARY_FLOAT":
        if rnd.random() < 0.05:
            return rnd.choice(["Inf", "-Inf", "Nan"])
        return rnd.choice(
            [
                rnd.uniform(-1e6, 1e6),
                float(rnd.randrange(-100, 100)),
                rnd.uniform(-1, 1) * 10 ** rnd.randrange(-30, 30),
            ]
        )
    if name == "BOOLEAN":
        return rnd.random() < 0.5
    if name == "TIMESTAMP":
        moment = dt.datetime(1900, 1, 1) + dt.timedelta(seconds=rnd.randrange(200 * 365 * 86400))
        return f"{moment.isoformat()}.{rnd.randrange(10**9):09d}"
    if name == "INTERVAL YEAR TO MONTH":
        years = rnd.randrange(10 ** (ctype.precision or 2))
        return f"{rnd.choice('+-')}{years}-{rnd.randrange(12)}"
    if name == "INTERVAL DAY TO SECOND":
        days = rnd.randrange(10 ** (ctype.precision or 2) - 1)  # room for a fraction rounded up
        hms = f"{rnd.randrange(24)}:{rnd.randrange(60)}:{rnd.randrange(60)}"
        return f"{rnd.choice('+-')}{days} {hms}.{rnd.randrange(10**9):09d}"
    if name == "LONG":  # short enough for a row piece of the smallest data block (2K)
        if rnd.random() < 0.1 and not small:
            return {"repeat": rnd.choice("lmn"), "times": rnd.randint(1000, 1500)}
        text = "".join(
            rnd.choices(alphabet(ctype.db_charset, _TEXT), k=rnd.randint(1, 100 if small else 300))
        )
        return text.strip() or "x"
    if name == "LONG RAW":
        size = rnd.randint(1, 100) if small else rnd.choice([rnd.randint(1, 300), 1500])
        return bytes(rnd.randrange(256) for _ in range(size)).hex()
    if name == "UROWID":  # a physical ROWID (data object, file, block, slot)
        dataobj, rfile = rnd.randrange(1, 2**32), rnd.randrange(1, 1024)
        return str(RowId(dataobj=dataobj, rfile=rfile, block=rnd.randrange(2**22), slot=rnd.randrange(2**16)))
    raise AssertionError(f"{ctype} is not a drawn type")
