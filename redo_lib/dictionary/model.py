"""What one Oracle table looked like over one SCN range: ``ColumnDef``, ``PartitionDef``, ``TableVersion``.

Frozen values only (style §6.5): nothing here reads files or keeps state. A ``TableVersion`` is valid
on the half-open SCN range ``[valid_from_scn, valid_to_scn)``; ``DictionaryHistory`` (history.py)
strings versions together. Also here: Oracle's internal type codes (``COL$.TYPE#``) with the
``DATA_TYPE`` names the data dictionary views print, and the key choice of trail-contract rule 12
(``choose_key``).

Column placement follows redo-format §6.6.2: the column index in a row piece is ``segcol# - 1``, so
columns are kept in ``SEGCOL#`` order and columns without storage (``SEGCOL# = 0``: virtual columns)
are not part of a version at all.

Layer 2 (dictionary): imports only ``redo_lib.errors``. On bad input, constructors raise only
``DictionaryError`` (``MissingColumnError`` for look-ups of a column that is not there).
"""

from __future__ import annotations

import enum
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import final

from redo_lib.errors import DictionaryError, MissingColumnError

__all__ = [
    "ColumnDef",
    "KeyConstraint",
    "KeyKind",
    "PartitionDef",
    "TableVersion",
    "TypeCode",
    "choose_key",
    "normalize_type_name",
    "type_code_for_name",
    "type_name_for_code",
]


class TypeCode(enum.IntEnum):
    """Oracle internal data type codes, as in ``COL$.TYPE#`` and in ``DUMP()`` output (redo-format §7).

    ``UNKNOWN`` (0) is Redotrail's own: a type the dictionary names but this table does not list
    (object types, nested tables, ...). Its values cannot be decoded, but its column still takes its
    place in the row.
    """

    UNKNOWN = 0
    VARCHAR2 = 1  # also NVARCHAR2 (charset form 2)
    NUMBER = 2  # also FLOAT
    LONG = 8
    DATE = 12
    RAW = 23
    LONG_RAW = 24
    XMLTYPE = 58  # opaque type
    ROWID = 69
    CHAR = 96  # also NCHAR (charset form 2)
    BINARY_FLOAT = 100
    BINARY_DOUBLE = 101
    CLOB = 112  # also NCLOB (charset form 2)
    BLOB = 113
    BFILE = 114
    JSON = 119
    TIMESTAMP = 180
    TIMESTAMP_TZ = 181
    INTERVAL_YM = 182
    INTERVAL_DS = 183
    UROWID = 208
    TIMESTAMP_LTZ = 231
    BOOLEAN = 252


#: ``DATA_TYPE`` as DBA_TAB_COLS prints it (precision qualifiers removed, see ``normalize_type_name``)
#: -> internal type code.
_CODE_BY_NAME: dict[str, TypeCode] = {
    "VARCHAR2": TypeCode.VARCHAR2,
    "VARCHAR": TypeCode.VARCHAR2,
    "NVARCHAR2": TypeCode.VARCHAR2,
    "NUMBER": TypeCode.NUMBER,
    "FLOAT": TypeCode.NUMBER,
    "LONG": TypeCode.LONG,
    "DATE": TypeCode.DATE,
    "RAW": TypeCode.RAW,
    "LONG RAW": TypeCode.LONG_RAW,
    "XMLTYPE": TypeCode.XMLTYPE,
    "ROWID": TypeCode.ROWID,
    "CHAR": TypeCode.CHAR,
    "NCHAR": TypeCode.CHAR,
    "BINARY_FLOAT": TypeCode.BINARY_FLOAT,
    "BINARY_DOUBLE": TypeCode.BINARY_DOUBLE,
    "CLOB": TypeCode.CLOB,
    "NCLOB": TypeCode.CLOB,
    "BLOB": TypeCode.BLOB,
    "BFILE": TypeCode.BFILE,
    "JSON": TypeCode.JSON,
    "TIMESTAMP": TypeCode.TIMESTAMP,
    "TIMESTAMP WITH TIME ZONE": TypeCode.TIMESTAMP_TZ,
    "INTERVAL YEAR TO MONTH": TypeCode.INTERVAL_YM,
    "INTERVAL DAY TO SECOND": TypeCode.INTERVAL_DS,
    "UROWID": TypeCode.UROWID,
    "TIMESTAMP WITH LOCAL TIME ZONE": TypeCode.TIMESTAMP_LTZ,
    "BOOLEAN": TypeCode.BOOLEAN,
}

#: code -> name for charset form 1 (or no charset); the national variants are in ``_NATIONAL_NAMES``.
_NAME_BY_CODE: dict[int, str] = {
    TypeCode.VARCHAR2: "VARCHAR2",
    TypeCode.NUMBER: "NUMBER",
    TypeCode.LONG: "LONG",
    TypeCode.DATE: "DATE",
    TypeCode.RAW: "RAW",
    TypeCode.LONG_RAW: "LONG RAW",
    TypeCode.XMLTYPE: "XMLTYPE",
    TypeCode.ROWID: "ROWID",
    TypeCode.CHAR: "CHAR",
    TypeCode.BINARY_FLOAT: "BINARY_FLOAT",
    TypeCode.BINARY_DOUBLE: "BINARY_DOUBLE",
    TypeCode.CLOB: "CLOB",
    TypeCode.BLOB: "BLOB",
    TypeCode.BFILE: "BFILE",
    TypeCode.JSON: "JSON",
    TypeCode.TIMESTAMP: "TIMESTAMP",
    TypeCode.TIMESTAMP_TZ: "TIMESTAMP WITH TIME ZONE",
    TypeCode.INTERVAL_YM: "INTERVAL YEAR TO MONTH",
    TypeCode.INTERVAL_DS: "INTERVAL DAY TO SECOND",
    TypeCode.UROWID: "UROWID",
    TypeCode.TIMESTAMP_LTZ: "TIMESTAMP WITH LOCAL TIME ZONE",
    TypeCode.BOOLEAN: "BOOLEAN",
}
_NATIONAL_NAMES: dict[int, str] = {
    TypeCode.VARCHAR2: "NVARCHAR2",
    TypeCode.CHAR: "NCHAR",
    TypeCode.CLOB: "NCLOB",
}

#: Types that never serve as key columns of the "all columns" pseudo key: supplemental logging of
#: ALL columns does not log them either, and GoldenGate leaves them out of its pseudo key.
_UNKEYABLE_TYPES = frozenset(
    {
        TypeCode.LONG,
        TypeCode.LONG_RAW,
        TypeCode.XMLTYPE,
        TypeCode.CLOB,
        TypeCode.BLOB,
        TypeCode.BFILE,
        TypeCode.JSON,
        TypeCode.UNKNOWN,
    }
)

_QUALIFIER = re.compile(r"\(\s*[^)]*\)")


def normalize_type_name(name: str) -> str:
    """``"TIMESTAMP(6) WITH TIME ZONE"`` -> ``"TIMESTAMP WITH TIME ZONE"``: upper case, no qualifiers."""
    return " ".join(_QUALIFIER.sub("", name).upper().split())


def type_code_for_name(name: str) -> int:
    """Internal type code of a ``DATA_TYPE`` name; ``TypeCode.UNKNOWN`` (0) for names not listed."""
    return int(_CODE_BY_NAME.get(normalize_type_name(name), TypeCode.UNKNOWN))


def type_name_for_code(code: int, *, national: bool = False, float_: bool = False) -> str:
    """The ``DATA_TYPE`` name of an internal type code: ``national`` for charset form 2 (NCHAR, ...),
    ``float_`` for a type 2 column stored as ``FLOAT`` (COL$.SCALE = -127). Unknown codes: ``"TYPE#<n>"``.
    """
    if national and code in _NATIONAL_NAMES:
        return _NATIONAL_NAMES[code]
    if float_ and code == TypeCode.NUMBER:
        return "FLOAT"
    return _NAME_BY_CODE.get(code, f"TYPE#{code}")


@final
@dataclass(frozen=True, slots=True, kw_only=True)
class ColumnDef:
    """One stored column of a table (``COL$`` / ``DBA_TAB_COLS``, hidden columns included).

    ``segcol_no`` is ``COL$.SEGCOL#`` (1-based place in the stored row; the redo column index is
    ``segcol_no - 1``, redo-format §6.6.2). ``col_no`` is ``COL$.COL#`` (``COLUMN_ID``), 0 for hidden
    columns. ``length`` is in bytes (``COL$.LENGTH`` / ``DATA_LENGTH``); ``char_length`` is the
    declared length in characters where the source says so. ``charset`` is the Oracle character set
    name the column's bytes are in (charset form 1: database, 2: national; redo-format §7.2), ``None``
    for non-character types.
    """

    col_no: int
    segcol_no: int
    name: str
    type_code: int
    type_name: str
    length: int
    precision: int | None = None
    scale: int | None = None
    charset: str | None = None
    nullable: bool = True
    hidden: bool = False
    char_length: int | None = None

    def __post_init__(self) -> None:
        if not self.name:
            raise DictionaryError("column without a name", segcol=self.segcol_no)
        if self.segcol_no < 1:
            raise DictionaryError(
                f"column {self.name} has segcol# {self.segcol_no}; stored columns start at 1",
                column=self.name,
            )
        if self.col_no < 0 or self.length < 0:
            raise DictionaryError(f"column {self.name} has a negative col# or length", column=self.name)

    @property
    def index(self) -> int:
        """0-based column index in a redo row piece: ``segcol_no - 1``."""
        return self.segcol_no - 1


@final
@dataclass(frozen=True, slots=True, kw_only=True)
class PartitionDef:
    """A partition or subpartition segment of a table: its ``obj``, ``dataobj`` and name.

    ``dataobj`` is ``None`` for a composite partition (it has no segment of its own, only its
    subpartitions have). ``name`` is ``None`` where the source does not give it (OLR checkpoints).
    """

    obj: int
    dataobj: int | None = None
    name: str | None = None


@final
@dataclass(frozen=True, slots=True, kw_only=True)
class OwnerObject:
    """An object of an exported owner as ``DBA_OBJECTS`` listed it at the export (``SYS.OBJ$``):
    its ``obj`` (OBJECT_ID), ``dataobj`` (DATA_OBJECT_ID, ``None`` without a segment), ``owner``,
    ``name``, ``subname`` (the partition's or subpartition's) and ``type`` (``TABLE``,
    ``TABLE PARTITION``, ``TABLE SUBPARTITION``).

    The objects of the exported owners tell a change to an object of a captured owner that the
    dictionary does not describe (a failure naming it) from another owner's (out of scope):
    docs/data-quality.md, "Unknown objects and the capture scope".
    """

    obj: int
    dataobj: int | None = None
    owner: str
    name: str
    subname: str | None = None
    type: str = "TABLE"

    @property
    def full_name(self) -> str:
        """``OWNER.NAME``: the table a partition or subpartition belongs to."""
        return f"{self.owner}.{self.name}"


class KeyKind(enum.StrEnum):
    """Where a table's key columns come from (trail contract rule 12)."""

    PRIMARY = "primary"
    UNIQUE = "unique"
    ALL = "all"


@final
@dataclass(frozen=True, slots=True, kw_only=True)
class KeyConstraint:
    """A primary or unique key constraint as the source declares it (``kind`` PRIMARY or UNIQUE)."""

    name: str
    kind: KeyKind
    columns: tuple[str, ...]


def choose_key(
    columns: Sequence[ColumnDef], constraints: Iterable[KeyConstraint]
) -> tuple[KeyKind, tuple[str, ...]]:
    """The key columns of a table by trail-contract rule 12, and where they come from.

    1. The primary key.
    2. Else a unique key whose columns are all NOT NULL; of several, the first by constraint name
       (GoldenGate's choice).
    3. Else all columns: the visible ones, without LOB / LONG / XMLTYPE / JSON / unknown types (what
       ALL-column supplemental logging can supply); if that leaves nothing, every visible column,
       and at last every column.

    A constraint naming a column that is not stored (a virtual column) is not eligible. The key
    columns are returned in the table's column (``SEGCOL#``) order.
    """
    by_name = {c.name: c for c in columns}

    def ordered(names: Iterable[str]) -> tuple[str, ...]:
        wanted = set(names)
        return tuple(c.name for c in columns if c.name in wanted)

    ranked = sorted(constraints, key=lambda k: (k.kind != KeyKind.PRIMARY, k.name))
    for constraint in ranked:
        if not constraint.columns or any(n not in by_name for n in constraint.columns):
            continue
        if constraint.kind == KeyKind.PRIMARY:
            return KeyKind.PRIMARY, ordered(constraint.columns)
        if constraint.kind == KeyKind.UNIQUE and not any(by_name[n].nullable for n in constraint.columns):
            return KeyKind.UNIQUE, ordered(constraint.columns)
    visible = [c for c in columns if not c.hidden]
    keyable = [c for c in visible if c.type_code not in _UNKEYABLE_TYPES]
    chosen = keyable or visible or list(columns)
    return KeyKind.ALL, tuple(c.name for c in chosen)


@final
@dataclass(frozen=True, slots=True, kw_only=True)
class TableVersion:
    """One table as it was on the SCN range ``[valid_from_scn, valid_to_scn)`` (``None``: still current).

    ``obj`` is ``OBJ$.OBJ#`` (the dump's ``OBJ:``), ``dataobj`` the segment's ``DATAOBJ#`` (``None`` for
    a partitioned table, whose segments are its partitions). ``columns`` are the stored columns in
    ``SEGCOL#`` order; ``key_columns`` and ``key_kind`` follow trail-contract rule 12 (``choose_key``).
    ``partitions`` lists every partition and subpartition whose ``obj`` or ``dataobj`` belongs to this
    table.

    ``encrypted`` (its tablespace is encrypted: TDE), ``compress_for`` (``DBA_TABLES.COMPRESS_FOR``:
    ``BASIC``, ``ADVANCED`` / ``OLTP``, ``QUERY LOW|HIGH``, ``ARCHIVE LOW|HIGH``; ``None``: not
    compressed) and ``iot_type`` (``IOT``, ``IOT_OVERFLOW``, ``IOT_MAPPING``; ``None``: a heap table)
    say which of its changes the decoder cannot read (``redo_lib/unsupported.py``,
    docs/data-quality.md); optional in the document, older exports have none of them.

    ``supplemental`` is the table's supplemental logging (``all``, ``primary``, ``unique``,
    ``foreign``, ``none``; ``None``: not said, taken as ``primary``): with ``all`` (ALL COLUMNS logged
    on the table or the database) the decoder gives deletes their whole row (docs/tables.md).
    """

    obj: int
    dataobj: int | None
    owner: str
    name: str
    columns: tuple[ColumnDef, ...]
    key_columns: tuple[str, ...]
    key_kind: KeyKind
    valid_from_scn: int
    valid_to_scn: int | None = None
    partitions: tuple[PartitionDef, ...] = ()
    encrypted: bool = False
    compress_for: str | None = None
    iot_type: str | None = None
    supplemental: str | None = None

    def __post_init__(self) -> None:
        # Accept lists and plain strings from callers; store tuples and the enum.
        object.__setattr__(self, "columns", tuple(self.columns))
        object.__setattr__(self, "key_columns", tuple(self.key_columns))
        object.__setattr__(self, "partitions", tuple(self.partitions))
        try:
            object.__setattr__(self, "key_kind", KeyKind(self.key_kind))
        except ValueError:
            raise DictionaryError(
                f"{self.full_name}: key kind {self.key_kind!r} is not one of primary, unique, all",
                obj=self.obj,
            ) from None
        if not self.columns:
            raise DictionaryError(f"{self.full_name}: table without stored columns", obj=self.obj)
        names: set[str] = set()
        previous = 0
        for column in self.columns:
            if column.segcol_no <= previous:
                raise DictionaryError(
                    f"{self.full_name}: columns not in strictly ascending segcol# order at {column.name}",
                    obj=self.obj,
                    segcol=column.segcol_no,
                )
            if column.name in names:
                raise DictionaryError(f"{self.full_name}: duplicate column {column.name}", obj=self.obj)
            previous = column.segcol_no
            names.add(column.name)
        missing = [k for k in self.key_columns if k not in names]
        if missing or not self.key_columns:
            raise DictionaryError(
                f"{self.full_name}: key columns {missing or '(none)'} are not columns of the table",
                obj=self.obj,
            )
        if self.valid_to_scn is not None and self.valid_to_scn <= self.valid_from_scn:
            raise DictionaryError(
                f"{self.full_name}: empty SCN range [{self.valid_from_scn}, {self.valid_to_scn})",
                obj=self.obj,
                scn=self.valid_from_scn,
            )

    @property
    def full_name(self) -> str:
        """``OWNER.NAME``."""
        return f"{self.owner}.{self.name}"

    def covers(self, scn: int) -> bool:
        """Whether this version is the one in force at ``scn``."""
        return self.valid_from_scn <= scn and (self.valid_to_scn is None or scn < self.valid_to_scn)

    def column_by_segcol(self, segcol_no: int) -> ColumnDef:
        """The column stored at 1-based ``segcol_no``; raises ``MissingColumnError`` if there is none."""
        columns = self.columns
        if 0 < segcol_no <= len(columns) and columns[segcol_no - 1].segcol_no == segcol_no:
            return columns[segcol_no - 1]  # the usual case: segcol# 1..n without gaps
        for column in columns:
            if column.segcol_no == segcol_no:
                return column
        raise MissingColumnError(
            f"{self.full_name} has no column with segcol# {segcol_no}",
            obj=self.obj,
            segcol=segcol_no,
            scn=self.valid_from_scn,
        )

    def column_by_name(self, name: str) -> ColumnDef:
        """The column called ``name``; raises ``MissingColumnError`` if there is none."""
        for column in self.columns:
            if column.name == name:
                return column
        raise MissingColumnError(f"{self.full_name} has no column {name}", obj=self.obj, column=name)

    def segment_objs(self) -> frozenset[int]:
        """Every partition ``obj`` and ``dataobj`` that resolves to this table (not the table's own)."""
        ids: set[int] = set()
        for partition in self.partitions:
            ids.add(partition.obj)
            if partition.dataobj is not None:
                ids.add(partition.dataobj)
        return frozenset(ids)
