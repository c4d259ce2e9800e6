"""The scenario model of the workload generator: tables, sessions, settings and SQL-level steps.

A scenario is what a test writes down in SQL terms; :mod:`redo_lib.synth.engine` runs it against a
simulated database and writes archived logs plus the expected trail. Values here are frozen; table
and setting checks happen in the constructors (``ScenarioError`` with a clear message), step checks
that need the state of the run (unknown rows, savepoints, sessions with no transaction) happen in
the engine.

Step kinds (``Step`` is their union):

* ``AppendLob`` (DBMS_LOB.APPEND on a CLOB / NCLOB / BLOB column; LOB pieces are written
  ``lob_pieces: before`` or ``after`` the row change, also for ``Insert`` and ``Update``);
* ``Insert`` (one row, or several with ``array=True``: 11.11 QMI per block), ``DirectInsert``
  (``INSERT /*+ APPEND */``: 19.1 block images), ``Update`` and ``Delete`` with a ``Predicate``
  (every matching row, in ROWID order; ``Delete(array=True)`` writes 11.12 QMD per block);
* ``Commit``, ``Rollback``, ``Savepoint``, ``RollbackTo``;
* ``Ddl`` (CREATE TABLE, ALTER TABLE ADD / DROP COLUMN / RENAME COLUMN / MODIFY, DROP TABLE,
  TRUNCATE TABLE: a transaction of its own, see ``ddl.py``);
* ``Switch`` (``ALTER SYSTEM SWITCH LOGFILE`` on one thread or all), ``Sleep`` (advance the clock).
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, final

from redo_lib.errors import ScenarioError
from redo_lib.synth.charsets import NATIONAL_CHARSETS, PYTHON_CODECS
from redo_lib.synth.columns import LOB_TYPES, LONG_TYPES, ColumnType, normalize, parse_type
from redo_lib.synth.partspec import PartitionBy, check_partition_by

__all__ = [
    "COMPAT_NAMES",
    "check_compat",
    "AppendLob",
    "LobWrite",
    "DDL_STATEMENTS",
    "PARTITION_STATEMENTS",
    "ColumnSpec",
    "Commit",
    "Ddl",
    "Delete",
    "DirectInsert",
    "Insert",
    "Noise",
    "Predicate",
    "Rollback",
    "RollbackTo",
    "Savepoint",
    "Scenario",
    "SessionSpec",
    "Settings",
    "Sleep",
    "Step",
    "Switch",
    "TableSpec",
    "Update",
    "parse_size",
]

COMPAT_NAMES = {"11.2": 0x0B200400, "19c": 0x13000000, "23ai": 0x17000000}
_NAME_RE = re.compile(r"^[A-Z][A-Z0-9_$#]{0,127}$")
_SIZE_RE = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*([KMGT]?)B?\s*$", re.IGNORECASE)
_UNITS = {"": 1, "K": 1 << 10, "M": 1 << 20, "G": 1 << 30, "T": 1 << 40}
PREDICATE_OPS = ("eq", "ne", "lt", "le", "gt", "ge", "in", "is_null")


def parse_size(value: int | str) -> int:
    """``"5GB"``, ``"64KB"``, ``"1.5M"``, ``1048576`` -> bytes."""
    if isinstance(value, int) and not isinstance(value, bool):
        return value
    match = _SIZE_RE.match(str(value))
    if not match:
        raise ScenarioError(f"not a size: {value!r} (use e.g. 64KB, 5GB)")
    return int(float(match.group(1)) * _UNITS[match.group(2).upper()])


def _check_name(name: str, what: str) -> str:
    if not isinstance(name, str) or not _NAME_RE.match(name):
        raise ScenarioError(f"{what} {name!r} is not an upper-case Oracle identifier")
    return name


@final
@dataclass(frozen=True, slots=True, kw_only=True)
class ColumnSpec:
    """One column: name, declared type (``VARCHAR2(30)``), NULL allowed or not."""

    name: str
    type: ColumnType
    nullable: bool = True
    #: a hidden column (``DBA_TAB_COLS.HIDDEN_COLUMN``): the BLOB storing the XMLTYPE before it
    #: (:func:`with_xml_storage`); never named in a scenario, never in a trail record
    hidden: bool = False

    def __post_init__(self) -> None:
        _check_name(self.name, "column")


def with_xml_storage(columns: Iterable[ColumnSpec]) -> tuple[ColumnSpec, ...]:
    """The row's columns of a table declared with ``columns``: each XMLTYPE column (binary XML, the
    default storage since 11.2.0.2) followed by the hidden BLOB ``SYS_NC<nnnnn>$`` that stores its
    document (nnnnn its segment column number; docs/generator.md, "XMLTYPE columns"). Columns already
    followed by their storage column stay as they are."""
    out: list[ColumnSpec] = []
    given = list(columns)
    for i, c in enumerate(given):
        if c.hidden and not (out and out[-1].type.name == "XMLTYPE"):
            raise ScenarioError(f"hidden column {c.name} does not follow an XMLTYPE column")
        out.append(c)
        storage = i + 1 < len(given) and given[i + 1].hidden
        if c.type.name == "XMLTYPE" and not storage:
            name = f"SYS_NC{len(out) + 1:05d}$"
            out.append(ColumnSpec(name=name, type=parse_type("BLOB", c.type.db_charset, c.type.national_charset),
                                  hidden=True))  # fmt: skip
    return tuple(out)


def xml_storage(columns: Sequence[ColumnSpec]) -> dict[int, int]:
    """XMLTYPE column index -> the index of its hidden storage BLOB (:func:`with_xml_storage`)."""
    return {
        i: i + 1
        for i, c in enumerate(columns)
        if c.type.name == "XMLTYPE" and i + 1 < len(columns) and columns[i + 1].hidden
    }


SECUREFILE_MODES = frozenset({"", "pieces", "images", "list_pages"})
#: supplemental logging (``TableSpec.supplemental``, ``Settings.supplemental``): ``ALTER TABLE / DATABASE
#: ADD SUPPLEMENTAL LOG DATA (ALL | PRIMARY KEY | UNIQUE | FOREIGN KEY) COLUMNS``, or minimal logging
#: only (``none``); what Oracle writes for each: synth/pairs.py
SUPPLEMENTAL_MODES = ("all", "primary", "unique", "foreign", "none")
#: ``TableSpec.storage`` values (None: an ordinary heap table)
STORAGE_KINDS = frozenset({None, "encrypted", "oltp_compressed", "iot"})


@final
@dataclass(frozen=True, slots=True, kw_only=True)
class TableSpec:
    """A heap table: owner, name, columns, optional primary key and unique keys.

    ``obj`` / ``dataobj`` default to ids assigned by the engine. The key of the trail (rule 12) is
    :attr:`key`: the primary key; else the first unique key (by constraint name) whose columns are
    all NOT NULL; else all columns.
    """

    owner: str
    name: str
    columns: tuple[ColumnSpec, ...]
    primary_key: tuple[str, ...] = ()
    unique_keys: tuple[tuple[str, ...], ...] = ()
    obj: int | None = None
    dataobj: int | None = None
    # LOB storage: "" BasicFile; "pieces" SecureFile (its locator forms, pages as 26.2 pieces);
    # "images" SecureFile with pages as 26.6 page images; "list_pages" SecureFile locators of the 12c+
    # list-page form the decoder does not read (it counts them; for tests of that count): docs/lobs.md
    securefile: str = ""
    # BasicFile: at most this many page DBAs in a locator (0: all); the LOB's other pages are named
    # by LOB index entries (5.1 opc 10.22 + 10.2, redo-format §5.7)
    locator_pages: int = 0
    # storage the decoder cannot read (docs/data-quality.md, "Tables the decoder cannot read"):
    # "encrypted" (a TDE tablespace: row vectors TYP|0x80, opaque bodies), "oltp_compressed" (inserted
    # rows as one compressed row image, §5.1), "iot" (index-organized: 5.1 opc 10.22 + 10.x)
    storage: str | None = None
    # a partitioned table (partspec.py): its partitions, each a segment of its own
    partition_by: PartitionBy | None = None
    # supplemental logging of the table (SUPPLEMENTAL_MODES; None: the database's, Settings)
    supplemental: str | None = None
    # foreign keys (their columns; the referenced table is not modelled): the FOREIGN KEY log groups
    foreign_keys: tuple[tuple[str, ...], ...] = ()

    def __post_init__(self) -> None:
        if self.locator_pages < 0 or (self.locator_pages and self.securefile):
            raise ScenarioError(
                f"table {self.owner}.{self.name}: locator_pages is a count >= 0 of BasicFile tables"
            )
        _check_name(self.owner, "owner")
        if self.securefile not in SECUREFILE_MODES:
            raise ScenarioError(
                f"table {self.owner}.{self.name}: securefile is one of {sorted(SECUREFILE_MODES)}, not {self.securefile!r}"
            )
        _check_name(self.name, "table")
        if self.storage not in STORAGE_KINDS:
            raise ScenarioError(
                f"table {self.full_name}: storage {self.storage!r} is not one of {sorted(k for k in STORAGE_KINDS if k is not None)}"
            )
        if not self.columns:
            raise ScenarioError(f"table {self.full_name} has no columns")
        names = [c.name for c in self.columns]
        if len(set(names)) != len(names):
            raise ScenarioError(f"table {self.full_name} has duplicate column names")
        for key in (self.primary_key, *self.unique_keys):
            missing = [k for k in key if k not in names]
            if missing:
                raise ScenarioError(f"table {self.full_name}: key columns {missing} are not columns")
            if len(set(key)) != len(key):
                raise ScenarioError(f"table {self.full_name}: key {list(key)} repeats a column")
        if self.supplemental is not None and self.supplemental not in SUPPLEMENTAL_MODES:
            raise ScenarioError(
                f"table {self.full_name}: supplemental is one of {', '.join(SUPPLEMENTAL_MODES)}, "
                f"not {self.supplemental!r}"
            )
        for key in self.foreign_keys:
            missing = [k for k in key if k not in names]
            if missing or not key:
                raise ScenarioError(f"table {self.full_name}: foreign key columns {missing} are not columns")
        longs = [c.name for c in self.columns if c.type.name in LONG_TYPES]
        if len(longs) > 1:
            raise ScenarioError(
                f"table {self.full_name}: columns {longs}: a table may contain only one column of type "
                "LONG (ORA-01754)"
            )
        if any(n in k for n in longs for k in (self.primary_key, *self.unique_keys)):
            raise ScenarioError(f"table {self.full_name}: key column cannot be of LONG datatype (ORA-02269)")
        if any(not k for k in self.unique_keys):
            raise ScenarioError(f"table {self.full_name}: empty unique key")
        xml = {c.name for c in self.columns if c.type.name == "XMLTYPE" or c.hidden}
        if any(n in k for n in xml for k in (self.primary_key, *self.unique_keys)):
            raise ScenarioError(f"table {self.full_name}: key column cannot be of XMLTYPE (ORA-02329)")
        if xml and (self.storage or self.partition_by is not None):
            raise ScenarioError(f"table {self.full_name}: XMLTYPE columns are generated in heap tables only")
        if self.primary_key:
            nullable = [c.name for c in self.columns if c.name in self.primary_key and c.nullable]
            if nullable:
                raise ScenarioError(
                    f"table {self.full_name}: primary key columns {nullable} must be NOT NULL"
                )
        if self.partition_by is not None:
            if self.storage:
                raise ScenarioError(f"table {self.full_name}: partitioned tables take no storage")
            object.__setattr__(self, "partition_by", check_partition_by(self))

    @property
    def full_name(self) -> str:
        return f"{self.owner}.{self.name}"

    def column(self, name: str) -> ColumnSpec:
        for c in self.columns:
            if c.name == name:
                return c
        raise ScenarioError(f"table {self.full_name} has no column {name!r}")

    def index_of(self, name: str) -> int:
        for i, c in enumerate(self.columns):
            if c.name == name:
                return i
        raise ScenarioError(f"table {self.full_name} has no column {name!r}")

    @property
    def key_kind(self) -> str:
        """``primary``, ``unique`` or ``all`` (trail-contract rule 12)."""
        if self.primary_key:
            return "primary"
        return "unique" if self._eligible_unique() else "all"

    def _eligible_unique(self) -> tuple[str, ...] | None:
        nullable = {c.name for c in self.columns if c.nullable}
        eligible = [k for k in self.unique_keys if not nullable.intersection(k)]
        return eligible[0] if eligible else None

    @property
    def key(self) -> tuple[str, ...]:
        """Key columns in column order (trail-contract rule 12): the primary key; else the first
        declared unique key whose columns are all NOT NULL; else all columns."""
        chosen: Iterable[str] = (
            self.primary_key
            or self._eligible_unique()
            # LOBs and LONGs are never key columns (the dictionary's choose_key)
            or [
                c.name
                for c in self.columns
                if c.type.name not in LOB_TYPES | LONG_TYPES | {"XMLTYPE"} and not c.hidden
            ]
        )
        wanted = set(chosen)
        return tuple(c.name for c in self.columns if c.name in wanted)

    @property
    def unique_sets(self) -> tuple[tuple[str, ...], ...]:
        """Column sets whose values must be unique (PK and every UK)."""
        return tuple(k for k in (self.primary_key, *self.unique_keys) if k)

    def row(self, values: Mapping[str, Any], what: str) -> tuple[Any, ...]:
        """A full row from ``{column: value}`` (missing columns NULL), normalised and checked."""
        unknown = [k for k in values if k not in {c.name for c in self.columns}]
        if unknown:
            raise ScenarioError(f"{what}: {self.full_name} has no columns {unknown}")
        out: list[Any] = []
        for c in self.columns:
            if c.hidden:  # an XMLTYPE's storage: its document (with_xml_storage)
                if c.name in values:
                    raise ScenarioError(f"{what}: {self.name}.{c.name} is a hidden column")
                out.append(out[-1])
                continue
            v = normalize(c.type, values.get(c.name), f"{what} {self.name}.{c.name}")
            if v is None and not c.nullable:
                raise ScenarioError(f"{what}: {self.name}.{c.name} is NOT NULL (ORA-01400)")
            out.append(v)
        return tuple(out)


@final
@dataclass(frozen=True, slots=True, kw_only=True)
class SessionSpec:
    """A database session; it runs on one redo thread (one RAC instance)."""

    name: str
    thread: int = 1

    def __post_init__(self) -> None:
        if not 1 <= self.thread <= 8:
            raise ScenarioError(f"session {self.name}: thread must be 1..8")


@final
@dataclass(frozen=True, slots=True, kw_only=True)
class Noise:
    """Redo that must never reach the trail (rule 3), switched on by kind."""

    index: bool = True  # 5.1 (10.22) + 10.2 for inserts into tables with a PK / UK index
    space: bool = True  # recursive space-management transactions (13.x) when a table grows
    markers: bool = True  # 5.19 / 5.20 session records, 24.4 after commits, VLD 0x02 records
    cleanout: bool = True  # 4.1 block cleanouts after commits


#: the character sets of a database whose scenario names none (``database: {charset: ...}``)
DEFAULT_CHARSET = "AL32UTF8"
DEFAULT_NATIONAL_CHARSET = "AL16UTF16"


@final
@dataclass(frozen=True, slots=True, kw_only=True)
class Settings:
    """Database and log settings. ``log_size`` is the archived-log size limit in bytes (log switch);
    ``charset`` / ``national_charset`` are NLS_CHARACTERSET and NLS_NCHAR_CHARACTERSET (the
    scenario's ``database:`` key; docs/charsets.md lists the sets)."""

    compat: str = "19c"
    block_size: int = 512
    big_endian: bool = False
    log_size: int = 4 << 20
    data_block_size: int = 8192
    start_scn: int = 1_000_000
    start_time: dt.datetime = dt.datetime(2024, 1, 15, 10, 0, 0)
    resetlogs_id: int = 1_100_000_001
    dbid: int = 0x5EED0001
    db_name: str = "SYNTH"
    noise: Noise = field(default_factory=Noise)
    charset: str = DEFAULT_CHARSET
    national_charset: str = DEFAULT_NATIONAL_CHARSET
    # the database's supplemental logging (SUPPLEMENTAL_MODES), for every table that says none
    supplemental: str = "primary"

    def __post_init__(self) -> None:
        if self.supplemental not in SUPPLEMENTAL_MODES:
            raise ScenarioError(
                f"database supplemental is one of {', '.join(SUPPLEMENTAL_MODES)}, not {self.supplemental!r}"
            )
        if self.charset not in PYTHON_CODECS or self.charset in ("AL16UTF16", "AL16UTF16LE"):
            raise ScenarioError(
                f"database charset {self.charset!r} is not one of the sets (docs/charsets.md)"
            )
        if self.national_charset not in NATIONAL_CHARSETS:
            raise ScenarioError(
                f"national_charset {self.national_charset!r} is not one of {', '.join(NATIONAL_CHARSETS)}"
            )
        if self.compat not in COMPAT_NAMES:
            raise ScenarioError(f"compat {self.compat!r} is not one of {', '.join(COMPAT_NAMES)}")
        if self.block_size not in (512, 1024, 4096):
            raise ScenarioError(f"block_size {self.block_size} is not 512, 1024 or 4096")
        if self.log_size < 64 * self.block_size:
            raise ScenarioError(f"log_size {self.log_size} is below 64 blocks")
        if self.data_block_size not in (2048, 4096, 8192, 16384, 32768):
            raise ScenarioError(f"data_block_size {self.data_block_size} is not a power of 2 in 2K..32K")
        if not 0 < self.start_scn < 1 << 46:
            raise ScenarioError("start_scn must be in 1..2^46")

    @property
    def compat_version(self) -> int:
        return COMPAT_NAMES[self.compat]


@final
@dataclass(frozen=True, slots=True, kw_only=True)
class Predicate:
    """``WHERE``: ``terms`` are (column, op, value) ANDed together; ``rowids`` (when not empty) keeps
    only those ROWIDs; no terms and no rowids = every row. Ops: eq ne lt le gt ge in is_null (SQL
    NULL semantics)."""

    terms: tuple[tuple[str, str, Any], ...] = ()
    rowids: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        for _, op, _ in self.terms:
            if op not in PREDICATE_OPS:
                raise ScenarioError(f"predicate operator {op!r} is not one of {', '.join(PREDICATE_OPS)}")


@final
@dataclass(frozen=True, slots=True, kw_only=True)
class Insert:
    session: str = "s1"
    table: str
    rows: tuple[Mapping[str, Any], ...]
    array: bool = False  # one 11.11 QMI per block instead of one 11.2 per row
    lob_pieces: str = "after"  # LOB pages written "before" or "after" the row change


@final
@dataclass(frozen=True, slots=True, kw_only=True)
class DirectInsert:
    session: str = "s1"
    table: str
    rows: tuple[Mapping[str, Any], ...]


@final
@dataclass(frozen=True, slots=True, kw_only=True)
class Update:
    """``set`` maps a column to a value, or to ``{"add": n}`` (NUMBER columns: ``col = col + n``)."""

    session: str = "s1"
    table: str
    set: Mapping[str, Any]
    where: Predicate
    lob_pieces: str = "after"


@final
@dataclass(frozen=True, slots=True, kw_only=True)
class AppendLob:
    """``DBMS_LOB.APPEND(col, value)`` on every matching row: new LOB pages for the appended data (the
    row change rewrites the locator); the trail's UPDATE carries the complete new value."""

    session: str = "s1"
    table: str
    column: str
    value: Any
    where: Predicate
    lob_pieces: str = "after"


@final
@dataclass(frozen=True, slots=True, kw_only=True)
class LobWrite:
    """A write through the LOB locator of every matching row (BasicFile): ``kind`` ``write``
    (DBMS_LOB.WRITE of ``value`` at ``offset``), ``trim`` (DBMS_LOB.TRIM to ``length``) or ``erase``
    (DBMS_LOB.ERASE of ``amount`` at ``offset``); offsets 1-based, lengths in characters (CLOB, NCLOB)
    or bytes (BLOB). Same LOB id; the pages it changes are rewritten, the row change rewrites the
    locator; the trail's UPDATE carries the complete new value."""

    session: str = "s1"
    table: str
    column: str
    kind: str
    where: Predicate
    value: Any = None
    offset: Any = None
    length: Any = None
    amount: Any = None
    lob_pieces: str = "after"


@final
@dataclass(frozen=True, slots=True, kw_only=True)
class Delete:
    session: str = "s1"
    table: str
    where: Predicate
    array: bool = False  # one 11.12 QMD per block for single-piece rows


@final
@dataclass(frozen=True, slots=True, kw_only=True)
class Commit:
    session: str = "s1"


@final
@dataclass(frozen=True, slots=True, kw_only=True)
class Rollback:
    session: str = "s1"


@final
@dataclass(frozen=True, slots=True, kw_only=True)
class Savepoint:
    session: str = "s1"
    name: str


@final
@dataclass(frozen=True, slots=True, kw_only=True)
class RollbackTo:
    session: str = "s1"
    name: str


@final
@dataclass(frozen=True, slots=True, kw_only=True)
class Switch:
    thread: int | None = None  # None: every thread


@final
@dataclass(frozen=True, slots=True, kw_only=True)
class Sleep:
    seconds: int

    def __post_init__(self) -> None:
        if self.seconds < 0:
            raise ScenarioError("sleep needs a non-negative number of seconds")


#: partition DDL (partitions.py): ALTER TABLE ... ADD / DROP / TRUNCATE / SPLIT / MERGE / EXCHANGE
PARTITION_STATEMENTS = (
    "add_partition",
    "drop_partition",
    "truncate_partition",
    "split_partition",
    "merge_partitions",
    "exchange_partition",
)
DDL_STATEMENTS = (
    "create_table",
    "add_column",
    "drop_column",
    "rename_column",
    "modify_column",
    "drop_table",
    "truncate_table",
    *PARTITION_STATEMENTS,
)


@final
@dataclass(frozen=True, slots=True, kw_only=True)
class Ddl:
    """One DDL statement (``statement`` one of ``DDL_STATEMENTS``) on ``table`` (``OWNER.NAME`` or a
    unique bare name). ``create`` is the new table of ``create_table`` (``table`` is then its full
    name); ``column`` the column of ``add_column`` (always NULL-able, no DEFAULT) and of
    ``modify_column`` (its new, wider type); ``column_name`` the column of ``drop_column`` /
    ``rename_column`` / ``modify_column``, ``new_name`` the new name of ``rename_column``. ``sql``
    replaces the generated statement text in the redo and the trail (the model follows the step,
    not the text)."""

    session: str = "s1"
    statement: str
    table: str = ""
    create: TableSpec | None = None
    column: ColumnSpec | None = None
    column_name: str = ""
    new_name: str = ""
    sql: str | None = None
    # partition DDL: the partition(s) named, the new bound (add: values; split: at), the new
    # partitions (split: two names; merge: one), the table of an exchange
    partitions: tuple[str, ...] = ()
    values: Any = None
    into: tuple[str, ...] = ()
    with_table: str = ""

    def __post_init__(self) -> None:
        if self.statement not in DDL_STATEMENTS:
            raise ScenarioError(f"DDL {self.statement!r} is not one of {', '.join(DDL_STATEMENTS)}")
        if self.statement == "create_table":
            if self.create is None:
                raise ScenarioError("create_table needs the table (columns, keys)")
            object.__setattr__(self, "table", self.create.full_name)
        elif not self.table:
            raise ScenarioError(f"{self.statement} needs a table")
        if self.statement in ("add_column", "modify_column") and self.column is None:
            raise ScenarioError(f"{self.statement} needs a column with its type")
        if self.column is not None and not self.column_name:
            object.__setattr__(self, "column_name", self.column.name)
        if self.statement in ("drop_column", "rename_column", "modify_column") and not self.column_name:
            raise ScenarioError(f"{self.statement} needs a column")
        if self.statement == "rename_column":
            _check_name(self.new_name, "column")
        if self.statement in PARTITION_STATEMENTS:
            _check_partition_step(self)
        if self.sql is not None and not self.sql.strip():
            raise ScenarioError(f"{self.statement}: empty sql text")


def _check_partition_step(step: Ddl) -> None:
    kind = step.statement
    want = {"merge_partitions": 2}.get(kind, 1)
    if len(step.partitions) != want:
        raise ScenarioError(f"{kind} names {want} partition(s), not {list(step.partitions)}")
    for name in (*step.partitions, *step.into):
        _check_name(name, "partition")
    into = {"split_partition": 2, "merge_partitions": 1}.get(kind, 0)
    if into and len(step.into) != into:
        raise ScenarioError(f"{kind} makes {into} partition(s): into: {list(step.into)}")
    if kind == "split_partition" and step.values is None:
        raise ScenarioError("split_partition needs at: the bound it splits at")
    if kind == "exchange_partition" and not step.with_table:
        raise ScenarioError("exchange_partition needs with: the table to exchange with")


Step = (
    Insert
    | DirectInsert
    | Update
    | AppendLob
    | LobWrite
    | Delete
    | Commit
    | Rollback
    | Savepoint
    | RollbackTo
    | Switch
    | Sleep
    | Ddl
)


#: column types a database below a release cannot hold: type name -> (compat, the release's name)
_TYPE_RELEASE = {"BOOLEAN": (COMPAT_NAMES["23ai"], "23ai")}


def check_compat(columns: Iterable[ColumnSpec], settings: Settings, what: str) -> None:
    """``ScenarioError`` for a column of a type the scenario's ``compat`` has not (BOOLEAN before 23ai)."""
    for column in columns:
        release = _TYPE_RELEASE.get(column.type.name)
        if release and settings.compat_version < release[0]:
            raise ScenarioError(
                f"{what}.{column.name}: {column.type.name} columns need compat {release[1]} "
                f"(the scenario's compat is {settings.compat}; Oracle before 23ai has no BOOLEAN column type)"
            )


@final
@dataclass(frozen=True, slots=True, kw_only=True)
class Scenario:
    """Tables, sessions, settings and the steps. ``steps`` may be any iterable (a generator for
    large random workloads: it is consumed once)."""

    name: str = "scenario"
    settings: Settings = field(default_factory=Settings)
    tables: tuple[TableSpec, ...]
    sessions: tuple[SessionSpec, ...] = ()
    steps: Iterable[Step] | Callable[[Any], Iterator[Step]] = ()  # or f(engine) -> steps (random)
    random: Mapping[str, Any] | None = None  # the parameters of a random scenario, for scenario.yaml

    def __post_init__(self) -> None:
        names = [t.full_name for t in self.tables]
        if len(set(names)) != len(names):
            raise ScenarioError("two tables with the same OWNER.NAME")
        for t in self.tables:
            check_compat(t.columns, self.settings, t.full_name)
        sessions = [s.name for s in self.sessions]
        if len(set(sessions)) != len(sessions):
            raise ScenarioError("two sessions with the same name")

    def table(self, name: str) -> TableSpec:
        """Look a table up by ``OWNER.NAME`` or by a unique bare ``NAME``."""
        hits = [t for t in self.tables if name in (t.full_name, t.name)]
        if len(hits) != 1:
            raise ScenarioError(f"unknown table {name!r}" if not hits else f"ambiguous table name {name!r}")
        return hits[0]

    def session(self, name: str) -> SessionSpec:
        for s in self.sessions:
            if s.name == name:
                return s
        return SessionSpec(name=name)
