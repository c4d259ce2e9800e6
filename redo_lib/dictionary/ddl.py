"""DDL met in the redo (OP 24.1, redo-format §5.9, §6.8) opens a new dictionary version from its SCN on.

``apply_ddl(history, obj=, scn=, text=, schema=)`` reads the statement text of a 24.1 vector and
returns the new ``DictionaryHistory`` and a ``DdlEffect``. It reads ``CREATE TABLE`` (columns, inline
and out-of-line PRIMARY KEY / UNIQUE; the object id is the 24.1's, without one the history is left
unchanged), ``ALTER TABLE`` (ADD / DROP / SET UNUSED / RENAME / MODIFY columns, DROP UNUSED COLUMNS,
ADD PRIMARY KEY / UNIQUE, DROP PRIMARY KEY, RENAME TO; supplemental-log, CHECK, FOREIGN KEY,
row-movement, logging, parallel and cache clauses change nothing), ``RENAME a TO b``, ``DROP TABLE``
(no version from the SCN on) and ``TRUNCATE TABLE`` (reported, no change). Partition maintenance
(``ALTER TABLE ... ADD / DROP / TRUNCATE / SPLIT / MERGE / EXCHANGE / MOVE / MODIFY / RENAME /
COALESCE PARTITION|SUBPARTITION``, ``SET INTERVAL``, ``SET SUBPARTITION TEMPLATE``, ``MODIFY DEFAULT
ATTRIBUTES``, ...) changes no column: it is kind ``partition`` (no new version) when the history has
the ``sys`` rows through which the core follows the partitions it creates and renumbers
(docs/dictionary.md, "The SYS rows"), and ``unsupported`` without them, since the new partitions'
object ids are not in the text. Anything else is kind ``unsupported`` with its text.
``DictionaryError`` is raised only when the DDL contradicts the history: the 24.1 object is another
table, a column to drop, rename or modify is missing, a new one exists already, a version after the
SCN exists.

The row layout (redo-format §6.6.2: column index = segcol# - 1), kept simple:

* Added columns take the next segcol numbers (Oracle appends them to the row). From 12.1 on, the
  first column added with a DEFAULT and without NOT NULL brings a hidden RAW guard column
  ``SYS_NCnnnnn$`` in the segcol before it (``guard_column=False`` for 11g sources). Such columns
  are metadata-only: older rows lack them and Oracle supplies the default, which is not modelled.
* ``DROP COLUMN`` rewrites every row without the column, so it leaves the version and the columns
  after it move down one segcol; UNUSED columns go with it, as in Oracle. (A table compressed for
  OLTP, where Oracle turns DROP COLUMN into SET UNUSED, is not recognised from the text.)
* ``SET UNUSED`` leaves the column in the rows and in the version, hidden, as ``SYS_Cnnnnn_UNUSED$``.
* Virtual columns take no segcol. The key (trail contract rule 12) follows renames, added and
  dropped keys and NOT NULL changes; a table keyed on all columns is re-keyed.

Layer 2 (dictionary): imports ``redo_lib.errors`` and this package only.
"""

from __future__ import annotations

import dataclasses
import enum
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import NamedTuple, final

from redo_lib.dictionary.history import DictionaryHistory
from redo_lib.dictionary.model import (
    ColumnDef,
    KeyConstraint,
    KeyKind,
    TableVersion,
    TypeCode,
    choose_key,
    type_code_for_name,
)
from redo_lib.errors import DictionaryError

__all__ = ["DdlEffect", "DdlKind", "DdlSubject", "apply_ddl", "ddl_subject", "replay_ddl"]


class DdlKind(enum.StrEnum):
    """What a DDL statement did to the dictionary."""

    CREATE = "create"
    ALTER = "alter"
    DROP = "drop"
    TRUNCATE = "truncate"
    RENAME = "rename"
    PARTITION = "partition"  # partition maintenance: no column change, partitions followed by SYS rows
    UNSUPPORTED = "unsupported"


@final
@dataclass(frozen=True, slots=True, kw_only=True)
class DdlEffect:
    """The outcome of one DDL: ``table`` is ``OWNER.NAME`` (``""`` when not known), ``version`` the
    new version in force from the DDL's SCN (``None`` when none was opened: drop, truncate, partition
    maintenance, unknown table or object id, unsupported text), ``message`` a one-line account for
    the decode report. ``partition_clause`` is the partition maintenance done (``"DROP PARTITION"``,
    ``"SET INTERVAL"``, ...; ``""`` for other kinds), and ``partition_names`` the partitions (or
    subpartitions) it names right after (``DROP PARTITIONS P1, P2``: both; a partition named by
    ``FOR (value)`` or by no name: none)."""

    kind: DdlKind
    table: str
    version: TableVersion | None
    message: str
    obj: int | None = None
    # what the statement did to the columns, in its clause order: (old, new) names of RENAME COLUMN,
    # names that left the rows (DROP COLUMN and the UNUSED columns it takes along, SET UNUSED), names
    # added, names given a new type (mirrors follow these: docs/tables.md)
    renamed: tuple[tuple[str, str], ...] = ()
    dropped: tuple[str, ...] = ()
    added: tuple[str, ...] = ()
    modified: tuple[str, ...] = ()
    partition_clause: str = ""
    partition_names: tuple[str, ...] = ()


class _Unsupported(Exception):
    """Internal: the text is outside what this module reads (becomes kind ``unsupported``)."""


# -- tokens -----------------------------------------------------------------------------------

_TOKEN = re.compile(
    r"""\s+|--[^\n]*|/\*.*?\*/
    |(?P<quoted>"(?:[^"]|"")*")|(?P<string>'(?:[^']|'')*')
    |(?P<word>[A-Za-z][A-Za-z0-9_$#]*)|(?P<number>\d+(?:\.\d*)?)|(?P<op>.)""",
    re.X | re.S,
)


class _Tok(NamedTuple):
    kind: str  # quoted, string, word, number, op
    text: str  # words upper-cased; quoted identifiers without their quotes


def _tokenize(text: str) -> list[_Tok]:
    out = []
    for m in _TOKEN.finditer(text.strip().rstrip(";/").strip()):
        kind = m.lastgroup
        if kind == "word":
            out.append(_Tok(kind, m.group().upper()))
        elif kind == "quoted":
            out.append(_Tok(kind, m.group()[1:-1].replace('""', '"')))
        elif kind is not None:
            out.append(_Tok(kind, m.group()))
    return out


class _Stream:
    """Tokens with a cursor; word tests ignore quoted identifiers (``"ADD"`` is a name)."""

    def __init__(self, tokens: Sequence[_Tok]) -> None:
        self.tokens = list(tokens)
        self.i = 0

    def peek(self, *words: str, at: int = 0) -> bool:
        j = self.i + at
        return j < len(self.tokens) and self.tokens[j].kind in ("word", "op") and self.tokens[j].text in words

    def accept(self, *words: str) -> bool:
        for n, word in enumerate(words):
            if not self.peek(word, at=n):
                return False
        self.i += len(words)
        return True

    def expect(self, *words: str) -> None:
        if not self.accept(*words):
            raise _Unsupported(f"expected {' '.join(words)} at {self.rest()!r}")

    def done(self) -> bool:
        return self.i >= len(self.tokens)

    def rest(self) -> str:
        return " ".join(t.text for t in self.tokens[self.i : self.i + 6])

    def ident(self) -> str:
        if self.done() or self.tokens[self.i].kind not in ("word", "quoted"):
            raise _Unsupported(f"expected a name at {self.rest()!r}")
        self.i += 1
        return self.tokens[self.i - 1].text

    def qualified(self) -> tuple[str | None, str]:
        first = self.ident()
        return (first, self.ident()) if self.accept(".") else (None, first)

    def group(self) -> list[list[_Tok]]:
        """A parenthesized list, split at its top-level commas."""
        self.expect("(")
        items: list[list[_Tok]] = [[]]
        depth = 0
        while not self.done():
            tok = self.tokens[self.i]
            self.i += 1
            if tok.kind == "op" and tok.text == ")" and depth == 0:
                return items
            depth += tok.text == "(" and tok.kind == "op"
            depth -= tok.text == ")" and tok.kind == "op"
            if tok.kind == "op" and tok.text == "," and depth == 0:
                items.append([])
            else:
                items[-1].append(tok)
        raise _Unsupported("unbalanced parentheses")

    def until(self, *words: str) -> list[_Tok]:
        """Tokens up to a top-level word in ``words`` or the end (nested groups kept whole)."""
        start, depth = self.i, 0
        while not self.done() and not (depth == 0 and self.peek(*words)):
            tok = self.tokens[self.i]
            depth += (tok.kind, tok.text) == ("op", "(")
            depth -= (tok.kind, tok.text) == ("op", ")")
            self.i += 1
        return self.tokens[start : self.i]


def _names(items: list[list[_Tok]]) -> list[str]:
    out = []
    for item in items:
        if len(item) != 1 or item[0].kind not in ("word", "quoted"):
            raise _Unsupported("expected a list of column names")
        out.append(item[0].text)
    return out


def _has(tokens: Sequence[_Tok], *words: str) -> bool:
    """Whether ``words`` occur in a row among the top-level tokens."""
    depth = 0
    for i, tok in enumerate(tokens):
        depth += (tok.kind, tok.text) == ("op", "(")
        depth -= (tok.kind, tok.text) == ("op", ")")
        if depth == 0 and all(
            i + k < len(tokens) and tokens[i + k].kind == "word" and tokens[i + k].text == w
            for k, w in enumerate(words)
        ):
            return True
    return False


# -- column types -----------------------------------------------------------------------------

_FIXED_LENGTH = {"NUMBER": 22, "FLOAT": 22, "DATE": 7, "BINARY_FLOAT": 4, "BINARY_DOUBLE": 8, "ROWID": 10,
                 "CLOB": 4000, "NCLOB": 4000, "BLOB": 4000, "BFILE": 530, "TIMESTAMP": 11,
                 "TIMESTAMP WITH TIME ZONE": 13, "TIMESTAMP WITH LOCAL TIME ZONE": 11,
                 "INTERVAL YEAR TO MONTH": 5, "INTERVAL DAY TO SECOND": 11, "BOOLEAN": 1}  # fmt: skip
# ANSI names -> (DATA_TYPE, default precision, default scale); "*" = no precision (NUMBER(*,0))
_ALIASES = {"INTEGER": ("NUMBER", "*", "0"), "INT": ("NUMBER", "*", "0"), "SMALLINT": ("NUMBER", "*", "0"),
            "DECIMAL": ("NUMBER", "*", "0"), "DEC": ("NUMBER", "*", "0"), "NUMERIC": ("NUMBER", "*", "0"),
            "REAL": ("FLOAT", "63", None), "DOUBLE PRECISION": ("FLOAT", "126", None),
            "CHARACTER": ("CHAR", None, None), "VARCHAR": ("VARCHAR2", None, None),
            "CHARACTER VARYING": ("VARCHAR2", None, None)}  # fmt: skip
_TEXT_TYPES = frozenset({"VARCHAR2", "CHAR", "NVARCHAR2", "NCHAR"})
_NATIONAL = frozenset({"NVARCHAR2", "NCHAR", "NCLOB"})
_DB_CHARSET_TYPES = frozenset({"VARCHAR2", "CHAR", "CLOB", "LONG"})
# bytes per character of the character sets a CHAR-semantics length is multiplied by
_MAX_BYTES = {"AL32UTF8": 4, "UTF8": 3, "AL16UTF16": 2, "UTF16": 2}


class _Type(NamedTuple):
    """A declared type: ``DATA_TYPE`` as DBA_TAB_COLS prints it and its qualifiers as written."""

    name: str  # e.g. "TIMESTAMP WITH TIME ZONE"
    size: str | None = None  # NUMBER/FLOAT precision, text or RAW length, fractional seconds, leading field
    scale: str | None = None  # NUMBER scale, INTERVAL DAY TO SECOND fractional seconds
    chars: bool = False  # length in characters (VARCHAR2(n CHAR))


def _qualifier(ts: _Stream) -> list[list[str]]:
    return [[t.text for t in item] for item in ts.group()] if ts.peek("(") else []


def _read_type(ts: _Stream) -> _Type:
    word = ts.ident()
    if (word == "LONG" and ts.peek("RAW")) or (word == "DOUBLE" and ts.peek("PRECISION")):
        word = f"{word} {ts.ident()}"
    elif word == "CHARACTER" and ts.accept("VARYING"):
        word = "CHARACTER VARYING"
    args = _qualifier(ts)
    size = args[0][0] if args and args[0] else None
    scale = args[1][0] if len(args) > 1 and args[1] else None
    chars = bool(args and len(args[0]) > 1 and args[0][1] == "CHAR")
    if word == "TIMESTAMP" and ts.accept("WITH"):
        word += " WITH LOCAL TIME ZONE" if ts.accept("LOCAL") else " WITH TIME ZONE"
        ts.expect("TIME", "ZONE")
    elif word == "INTERVAL":
        unit = ts.ident()
        lead = _qualifier(ts)
        ts.expect("TO")
        word = f"INTERVAL {unit} TO {ts.ident()}"
        frac = _qualifier(ts)
        size = lead[0][0] if lead and lead[0] else None
        scale = frac[0][0] if frac and frac[0] else None
    name, default_size, default_scale = _ALIASES.get(word, (word, None, None))
    if type_code_for_name(name) == TypeCode.UNKNOWN or name == "XMLTYPE":
        raise _Unsupported(
            f"column type {word}: a user-defined or XML type, its storage columns are not known"
        )
    return _Type(name, size or default_size, scale or default_scale, chars)


def _int(text: str | None) -> int | None:
    return int(text) if text is not None and text.isdigit() else None


def _column(
    name: str, typ: _Type, *, segcol: int, col_no: int, nullable: bool, hidden: bool, history: DictionaryHistory
) -> ColumnDef:  # fmt: skip
    """A ``ColumnDef`` with DBA_TAB_COLS-like length, precision, scale and character set."""
    charset = None
    if typ.name in _NATIONAL:
        charset = history.national_charset
    elif typ.name in _DB_CHARSET_TYPES:
        charset = history.db_charset
    size, scale = _int(typ.size), _int(typ.scale)
    precision = char_length = None
    length = _FIXED_LENGTH.get(typ.name, 0)
    if typ.name in _TEXT_TYPES:
        char_length = size if size is not None else 1
        per_char = _MAX_BYTES.get(charset or "", 1) if typ.chars or typ.name in _NATIONAL else 1
        length = char_length * per_char
    elif typ.name in ("RAW", "UROWID"):
        length = size if size is not None else 4000
    elif typ.name == "NUMBER":
        precision = size
        scale = scale if scale is not None else (0 if size is not None else None)
    elif typ.name == "FLOAT":
        precision, scale = (size if size is not None else 126), None
    elif typ.name.startswith("TIMESTAMP"):
        scale = size if size is not None else 6
        if scale == 0 and typ.name == "TIMESTAMP":  # COL$.LENGTH 7 for TIMESTAMP(0) (a real 23ai's)
            length = 7
    elif typ.name.startswith("INTERVAL"):
        precision = size if size is not None else 2
        scale = (scale if scale is not None else 6) if typ.name.endswith("SECOND") else 0
    return ColumnDef(
        col_no=col_no, segcol_no=segcol, name=name, type_code=type_code_for_name(typ.name),
        type_name=typ.name, length=length, precision=precision, scale=scale, charset=charset,
        nullable=nullable, hidden=hidden, char_length=char_length,
    )  # fmt: skip


class _ColumnSpec(NamedTuple):
    name: str
    type: _Type | None  # None: MODIFY without a type
    nullable: bool | None  # None: not said
    virtual: bool
    invisible: bool
    default: bool
    inline_key: KeyConstraint | None


def _column_spec(tokens: list[_Tok], *, type_required: bool) -> _ColumnSpec:
    ts = _Stream(tokens)
    name = ts.ident()
    typ = None
    if not ts.done() and not ts.peek("DEFAULT", "NOT", "NULL", "CONSTRAINT", "PRIMARY", "UNIQUE", "VISIBLE",
                                     "INVISIBLE", "GENERATED", "AS", "CHECK", "REFERENCES", "ENCRYPT"):  # fmt: skip
        typ = _read_type(ts)
    rest = ts.tokens[ts.i :]
    identity = _has(rest, "AS", "IDENTITY")  # identity columns are NOT NULL
    virtual = _has(rest, "AS") and not identity
    if typ is None and type_required and not virtual:
        raise _Unsupported(f"column {name} without a type")
    not_null = identity or any(
        _has(rest, *w) for w in (("NOT", "NULL"), ("DEFAULT", "ON", "NULL"), ("PRIMARY", "KEY"))
    )
    explicit_null = any(
        t.kind == "word" and t.text == "NULL" and (i == 0 or rest[i - 1].text not in ("NOT", "DEFAULT", "ON"))
        for i, t in enumerate(rest)
    )
    nullable = False if not_null else (True if explicit_null else None)
    key = None
    if _has(rest, "PRIMARY", "KEY") or _has(rest, "UNIQUE"):
        kind = KeyKind.PRIMARY if _has(rest, "PRIMARY", "KEY") else KeyKind.UNIQUE
        key = KeyConstraint(name=_constraint_name(rest, name), kind=kind, columns=(name,))
    return _ColumnSpec(name, typ, nullable, virtual, _has(rest, "INVISIBLE"), _has(rest, "DEFAULT"), key)


def _constraint_name(tokens: Sequence[_Tok], fallback: str) -> str:
    for i, tok in enumerate(tokens[:-1]):
        if tok.kind == "word" and tok.text == "CONSTRAINT":
            return tokens[i + 1].text
    return f"SYS_C_{fallback}"  # Oracle's generated SYS_Cnnnnnn name is not in the text


def _key_constraint(tokens: list[_Tok]) -> KeyConstraint | None:
    """An out-of-line constraint: PRIMARY KEY / UNIQUE with its columns; None for other kinds."""
    ts = _Stream(tokens)
    name = ts.ident() if ts.accept("CONSTRAINT") else None
    if ts.accept("PRIMARY", "KEY"):
        kind = KeyKind.PRIMARY
    elif ts.accept("UNIQUE"):
        kind = KeyKind.UNIQUE
    elif _is_constraint(ts.tokens[ts.i :]):
        return None  # CHECK, FOREIGN KEY, ...: no say in the key
    else:
        raise _Unsupported(f"constraint {ts.rest()!r}")
    columns = tuple(_names(ts.group()))
    return KeyConstraint(name=name or f"SYS_C_{'_'.join(columns)}", kind=kind, columns=columns)


# what an out-of-line constraint starts with (a column may be named PERIOD or SCOPE)
_CONSTRAINT_STARTS = (("CONSTRAINT",), ("PRIMARY", "KEY"), ("UNIQUE",), ("CHECK",), ("FOREIGN", "KEY"),
                      ("SUPPLEMENTAL", "LOG"), ("SCOPE", "FOR"), ("REF", "("), ("PERIOD", "FOR"))  # fmt: skip


def _is_constraint(tokens: list[_Tok]) -> bool:
    ts = _Stream(tokens)
    return any(all(ts.peek(w, at=i) for i, w in enumerate(start)) for start in _CONSTRAINT_STARTS)


# -- statements -------------------------------------------------------------------------------

_GUARD = re.compile(r"SYS_NC\d{5}\$")
_UNUSED = re.compile(r"SYS_C\d{5}_.+\$")
_CLAUSES = ("ADD", "MODIFY", "DROP", "RENAME", "SET")
# ALTER TABLE clauses that change neither the columns nor the key
_NO_CHANGE = (("ADD", "SUPPLEMENTAL"), ("DROP", "SUPPLEMENTAL"), ("RENAME", "CONSTRAINT"), ("ENABLE", "ROW"),
              ("DISABLE", "ROW"), ("LOGGING",), ("NOLOGGING",), ("PARALLEL",), ("NOPARALLEL",), ("CACHE",),
              ("NOCACHE",), ("SHRINK", "SPACE"))  # fmt: skip


@dataclass
class _Work:
    """A table being created or altered: columns in segcol order, name, known key constraints."""

    full_name: str
    obj: int
    columns: list[ColumnDef]
    name: str
    keys: list[KeyConstraint]
    altering: bool = False  # ALTER TABLE ADD (not CREATE TABLE): defaults are metadata-only
    guard_column: bool = False
    notes: list[str] = dataclasses.field(default_factory=list)
    renamed: list[tuple[str, str]] = dataclasses.field(default_factory=list)
    dropped: list[str] = dataclasses.field(default_factory=list)
    added: list[str] = dataclasses.field(default_factory=list)
    modified: list[str] = dataclasses.field(default_factory=list)

    def error(self, message: str) -> DictionaryError:
        return DictionaryError(f"{self.full_name}: {message}", obj=self.obj)

    def find(self, name: str) -> int:
        for i, column in enumerate(self.columns):
            if column.name == name:
                return i
        raise self.error(f"DDL names column {name}, which the table does not have")

    def next_segcol(self) -> int:
        return max((c.segcol_no for c in self.columns), default=0) + 1

    def add(self, spec: _ColumnSpec, history: DictionaryHistory, col_no: int | None = None) -> None:
        """Append a column at the next segcol (``col_no`` None: after the last visible column)."""
        if any(c.name == spec.name for c in self.columns):
            raise self.error(f"column {spec.name} exists already")
        if spec.inline_key is not None:
            self.keys.append(spec.inline_key)
        if spec.virtual or spec.type is None:
            self.notes.append(f"virtual column {spec.name}: no storage")
            return
        nullable = spec.nullable is not False and not _in_primary(spec.name, self.keys)
        if spec.default and self.altering:
            self.notes.append(f"{spec.name} has a DEFAULT: older rows lack it (default not modelled)")
            if nullable and self.guard_column and not any(_GUARD.fullmatch(c.name) for c in self.columns):
                seg = self.next_segcol()
                guard = _column(f"SYS_NC{seg:05d}$", _Type("RAW", "126"), segcol=seg, col_no=0, nullable=True,
                                hidden=True, history=history)  # fmt: skip
                self.columns.append(guard)
        if col_no is None:
            col_no = 0 if spec.invisible else max((c.col_no for c in self.columns), default=0) + 1
        column = _column(spec.name, spec.type, segcol=self.next_segcol(), col_no=col_no, nullable=nullable,
                         hidden=spec.invisible, history=history)  # fmt: skip
        self.columns.append(column)
        self.added.append(spec.name)

    def remove(self, names: Sequence[str]) -> None:
        """Physical drop: the columns (and any UNUSED ones) leave the rows; later segcols move down."""
        gone = {self.columns[self.find(n)].name for n in names}
        gone |= {c.name for c in self.columns if c.hidden and _UNUSED.fullmatch(c.name)}
        dropped = [c for c in self.columns if c.name in gone]
        kept = []
        for c in self.columns:
            if c.name not in gone:
                seg = c.segcol_no - sum(d.segcol_no < c.segcol_no for d in dropped)
                col_no = c.col_no - sum(0 < d.col_no < c.col_no for d in dropped) if c.col_no else 0
                kept.append(dataclasses.replace(c, segcol_no=seg, col_no=col_no))
        if not kept:
            raise self.error("DDL drops every column")
        self.columns = kept
        self.dropped += [c.name for c in dropped]
        self.keys = [k for k in self.keys if not gone & set(k.columns)]

    def set_unused(self, names: Sequence[str]) -> None:
        """The columns stay in the rows, hidden and renamed; visible columns after them renumber."""
        for name in names:
            i = self.find(name)
            old = self.columns[i]
            self.columns = [
                dataclasses.replace(c, col_no=c.col_no - 1) if old.col_no and c.col_no > old.col_no else c
                for c in self.columns
            ]
            unused = f"SYS_C{old.segcol_no:05d}_UNUSED$"
            self.columns[i] = dataclasses.replace(old, name=unused, hidden=True, col_no=0)
            self.dropped.append(name)  # gone from every image (still in the rows, hidden)
            self.keys = [k for k in self.keys if name not in k.columns]

    def add_key(self, key: KeyConstraint | None) -> None:
        """A new primary or unique key; a primary key makes its columns NOT NULL."""
        if key is None:
            return
        self.keys.append(key)
        if key.kind == KeyKind.PRIMARY:
            for name in key.columns:
                i = self.find(name)
                self.columns[i] = dataclasses.replace(self.columns[i], nullable=False)

    def rename(self, old: str, new: str) -> None:
        i = self.find(old)
        if any(c.name == new for c in self.columns):
            raise self.error(f"column {new} exists already")
        self.columns[i] = dataclasses.replace(self.columns[i], name=new)
        self.renamed.append((old, new))
        self.keys = [
            dataclasses.replace(k, columns=tuple(new if n == old else n for n in k.columns))
            for k in self.keys
        ]

    def modify(self, spec: _ColumnSpec, history: DictionaryHistory) -> None:
        """New type and/or nullability; the column keeps its segcol (the row layout is unchanged)."""
        i = self.find(spec.name)
        old = new = self.columns[i]
        if spec.type is not None:
            new = _column(old.name, spec.type, segcol=old.segcol_no, col_no=old.col_no, nullable=old.nullable,
                          hidden=old.hidden, history=history)  # fmt: skip
        if spec.nullable is not None:
            new = dataclasses.replace(new, nullable=spec.nullable)
        if spec.type is not None and new != dataclasses.replace(old, nullable=new.nullable):
            self.modified.append(old.name)
        self.columns[i] = new


def _in_primary(name: str, keys: Sequence[KeyConstraint]) -> bool:
    return any(k.kind == KeyKind.PRIMARY and name in k.columns for k in keys)


def _current_keys(version: TableVersion) -> list[KeyConstraint]:
    """The key a version was built with, as a constraint choose_key can weigh against new ones."""
    if version.key_kind == KeyKind.ALL:
        return []
    return [
        KeyConstraint(name=f"({version.key_kind} key)", kind=version.key_kind, columns=version.key_columns)
    ]


def _items(ts: _Stream) -> list[list[_Tok]]:
    """The parenthesized list of an ADD / MODIFY clause, or its single unparenthesized item."""
    return ts.group() if ts.peek("(") else [ts.until(*_CLAUSES)]


# partition maintenance: <verb> PARTITION|SUBPARTITION|PARTITIONS|SUBPARTITIONS ..., and SET / MODIFY
# clauses of the partitioning (none of them touches a column)
_PARTITION_VERBS = ("ADD", "DROP", "TRUNCATE", "SPLIT", "MERGE", "EXCHANGE", "MOVE", "MODIFY", "RENAME",
                    "COALESCE")  # fmt: skip
_PARTITION_WORDS = ("PARTITION", "SUBPARTITION", "PARTITIONS", "SUBPARTITIONS")
_PARTITION_SETTINGS = (("SET", "INTERVAL"), ("SET", "SUBPARTITION", "TEMPLATE"), ("SET", "PARTITIONING"),
                       ("SET", "STORE", "IN"), ("MODIFY", "DEFAULT", "ATTRIBUTES"))  # fmt: skip


def _partition_clause(ts: _Stream) -> str | None:
    """The partition maintenance the clause at the cursor does (``"DROP PARTITION"``), else None."""
    if ts.peek(*_PARTITION_VERBS) and ts.peek(*_PARTITION_WORDS, at=1):
        return f"{ts.tokens[ts.i].text} {ts.tokens[ts.i + 1].text}"
    for words in _PARTITION_SETTINGS:
        if all(ts.peek(w, at=n) for n, w in enumerate(words)):
            return " ".join(words)
    return None


def _partition_names(ts: _Stream) -> tuple[str, ...]:
    """The names after the partition clause at the cursor (``DROP PARTITION P1, P2 ...``): the names
    separated by commas; none for ``FOR (value)`` or a clause without names (``SET INTERVAL``)."""
    if not ts.peek(*_PARTITION_WORDS, at=1):
        return ()
    j, names = ts.i + 2, []
    while j < len(ts.tokens) and ts.tokens[j].kind in ("word", "quoted"):
        if ts.tokens[j].kind == "word" and ts.tokens[j].text == "FOR":
            break
        names.append(ts.tokens[j].text)
        if not (j + 1 < len(ts.tokens) and ts.tokens[j + 1].kind == "op" and ts.tokens[j + 1].text == ","):
            break
        j += 2
    return tuple(names)


def _alter_clauses(work: _Work, ts: _Stream, history: DictionaryHistory, *, all_key: bool) -> bool:
    """Apply the clauses of ALTER TABLE in order; True when one of them is RENAME TO."""
    renamed = False
    while not ts.done():
        if _partition_clause(ts) is not None:
            raise _Unsupported("partition maintenance amid column clauses")
        if any(ts.accept(*words) for words in _NO_CHANGE):
            ts.until(*_CLAUSES)
        elif ts.accept("ADD"):
            for item in _items(ts):
                if _is_constraint(item):
                    work.add_key(_key_constraint(item))
                else:
                    work.add(_column_spec(item, type_required=True), history)
        elif ts.accept("MODIFY"):
            if ts.peek("CONSTRAINT", "PRIMARY", "UNIQUE", "PARTITION", "DEFAULT", "LOB", "NESTED", "VARRAY"):
                raise _Unsupported(f"MODIFY {ts.rest()!r}")
            for item in _items(ts):
                work.modify(_column_spec(item, type_required=False), history)
        elif ts.accept("DROP", "PRIMARY", "KEY"):
            work.keys = [k for k in work.keys if k.kind != KeyKind.PRIMARY]
            ts.until(*_CLAUSES)
        elif ts.accept("DROP", "UNUSED", "COLUMNS") or ts.accept("DROP", "COLUMNS", "CONTINUE"):
            work.remove([])
            ts.until(*_CLAUSES)
        elif ts.accept("DROP", "COLUMN") or (ts.peek("(", at=1) and ts.accept("DROP")):
            work.remove(_names(ts.group()) if ts.peek("(") else [ts.ident()])
            ts.until(*_CLAUSES)
        elif all_key and ts.accept("DROP", "CONSTRAINT"):
            ts.until(*_CLAUSES)  # no primary or usable unique key: the key stays "all columns"
        elif ts.accept("SET", "UNUSED"):
            if not ts.peek("(", "COLUMN"):
                raise _Unsupported(f"SET UNUSED {ts.rest()!r}")
            work.set_unused(
                _names(ts.group()) if ts.peek("(") else [ts.ident()] if ts.accept("COLUMN") else []
            )
            ts.until(*_CLAUSES)
        elif ts.accept("RENAME", "COLUMN"):
            old = ts.ident()
            ts.expect("TO")
            work.rename(old, ts.ident())
        elif ts.accept("RENAME", "TO"):
            work.name, renamed = ts.ident(), True
        else:
            raise _Unsupported(f"ALTER TABLE clause {ts.rest()!r}")
    return renamed


def _target(
    history: DictionaryHistory, obj: int | None, scn: int, owner: str | None, name: str, schema: str
) -> TableVersion | None:
    """The version the DDL is about: by the 24.1 object id, else by name among those in force."""
    if obj is not None:
        if not history.contains(obj, scn):
            return None
        version = history.lookup(obj, scn)
        if version.name != name or (owner is not None and version.owner != owner):
            named = f"{owner}.{name}" if owner else name
            raise DictionaryError(
                f"24.1 object {obj} is {version.full_name} in the dictionary, but the DDL names {named}",
                obj=obj,
                scn=scn,
            )
        return version
    wanted = owner or schema
    found = [v for v in history if v.covers(scn) and v.name == name and (not wanted or v.owner == wanted)]
    if len(found) > 1:
        raise _Unsupported(f"no object id, and {len(found)} tables are named {name}")
    return found[0] if found else None


def _create(
    history: DictionaryHistory, ts: _Stream, obj: int | None, scn: int, owner: str, name: str
) -> tuple[DictionaryHistory, DdlEffect]:
    full = f"{owner}.{name}"
    if not ts.peek("("):
        raise _Unsupported("CREATE TABLE without a column list (object table or AS SELECT)")
    work = _Work(full_name=full, obj=obj or 0, columns=[], name=name, keys=[])
    items = ts.group()
    col_no = 0
    for item in items:  # constraints first: a primary key makes its columns NOT NULL
        if _is_constraint(item):
            work.keys += [constraint] if (constraint := _key_constraint(item)) else []
    for item in items:
        if not _is_constraint(item):
            spec = _column_spec(item, type_required=True)
            col_no += not spec.invisible
            work.add(spec, history, col_no=0 if spec.invisible else col_no)
    tail = ts.tokens[ts.i :]
    if _has(tail, "AS", "SELECT") or _has(tail, "ORGANIZATION", "INDEX"):
        raise _Unsupported("CREATE TABLE ... AS SELECT, or an index-organized table (rows in an index)")
    if not work.columns:
        raise _Unsupported("CREATE TABLE without stored columns")
    if obj is None:
        message = f"CREATE TABLE {full}: unknown object id (the 24.1 vector gives none); history unchanged"
        return history, DdlEffect(kind=DdlKind.CREATE, table=full, version=None, message=message)
    partitioned = _has(tail, "PARTITION", "BY")
    kind, key = choose_key(work.columns, work.keys)
    version = TableVersion(obj=obj, dataobj=None if partitioned else obj, owner=owner, name=name,
                           columns=tuple(work.columns), key_columns=key, key_kind=kind, valid_from_scn=scn)  # fmt: skip
    note = "; its partitions are not known from the text" if partitioned else ""
    message = (
        f"CREATE TABLE {full} (obj {obj}): {len(work.columns)} stored columns, {kind} key {list(key)}{note}"
    )
    effect = DdlEffect(kind=DdlKind.CREATE, table=full, version=version, message=message, obj=obj)
    return history.with_version(version), effect


def apply_ddl(
    history: DictionaryHistory,
    *,
    obj: int | None,
    scn: int,
    text: str,
    schema: str = "",
    guard_column: bool = True,
) -> tuple[DictionaryHistory, DdlEffect]:
    """The history after the DDL ``text`` logged at ``scn`` (OP 24.1, redo-format §5.9), and its effect.

    ``obj`` is the 24.1 object id (``None`` when the vector has none), ``schema`` the 24.1 schema
    name, used for unqualified table names. A history that does not change is returned as the same
    object. Text this module does not read gives kind ``unsupported``; raises ``DictionaryError`` only
    when the DDL contradicts the history (see the module docstring).
    """
    try:
        return _apply(history, obj=obj, scn=scn, text=text, schema=schema, guard_column=guard_column)
    except _Unsupported as exc:
        message = f"{exc}: {' '.join(text.split())[:300]}"
        return history, DdlEffect(kind=DdlKind.UNSUPPORTED, table="", version=None, message=message, obj=obj)


def _apply(
    history: DictionaryHistory, *, obj: int | None, scn: int, text: str, schema: str, guard_column: bool
) -> tuple[DictionaryHistory, DdlEffect]:
    ts = _Stream(_tokenize(text))
    if ts.accept("CREATE", "TABLE"):
        owner, name = ts.qualified()
        return _create(history, ts, obj, scn, owner or schema, name)
    kinds = {"ALTER": DdlKind.ALTER, "DROP": DdlKind.DROP, "TRUNCATE": DdlKind.TRUNCATE}
    kind = next((k for word, k in kinds.items() if ts.accept(word, "TABLE")), None)
    if kind is None and ts.accept("RENAME"):
        kind = DdlKind.RENAME
    if kind is None:
        raise _Unsupported("not table DDL this module reads")
    owner, name = ts.qualified()
    version = _target(history, obj, scn, owner, name, schema)
    full = version.full_name if version else f"{owner or schema}.{name}"
    if version is None:
        if kind is DdlKind.ALTER and _has(ts.tokens, "RENAME", "TO"):
            kind = DdlKind.RENAME
        message = f"{kind.upper()} {full}: not in the dictionary at SCN {scn}; history unchanged"
        return history, DdlEffect(kind=kind, table=full, version=None, message=message, obj=obj)
    if kind is DdlKind.TRUNCATE:
        message = f"TRUNCATE {full}: no dictionary change (the segment may get a new data object id)"
        return history, DdlEffect(kind=kind, table=full, version=None, message=message, obj=version.obj)
    if kind is DdlKind.DROP:
        message = f"DROP TABLE {full}: no version from SCN {scn} on"
        effect = DdlEffect(kind=kind, table=full, version=None, message=message, obj=version.obj)
        return history.with_dropped(version.obj, scn), effect
    clause = _partition_clause(ts) if kind is DdlKind.ALTER else None
    if clause is not None:
        if history.sys_rows is None:
            raise _Unsupported(
                f"{clause}: partition maintenance, and the dictionary has no sys rows to follow the "
                "partitions by (their object ids are not in the text)"
            )
        message = f"ALTER TABLE {full} {clause}: no column change; its partitions follow from the SYS rows"
        effect = DdlEffect(kind=DdlKind.PARTITION, table=full, version=None, message=message, obj=version.obj,
                           partition_clause=clause, partition_names=_partition_names(ts))  # fmt: skip
        return history, effect
    work = _Work(full_name=full, obj=version.obj, columns=list(version.columns), name=version.name,
                 keys=_current_keys(version), altering=True, guard_column=guard_column)  # fmt: skip
    if kind is DdlKind.RENAME:  # RENAME old TO new
        ts.expect("TO")
        work.name = ts.ident()
    elif _alter_clauses(work, ts, history, all_key=version.key_kind == KeyKind.ALL):
        kind = DdlKind.RENAME
    key_kind, key = choose_key(work.columns, work.keys)
    new = dataclasses.replace(version, name=work.name, columns=tuple(work.columns), key_columns=key,
                              key_kind=key_kind, valid_from_scn=scn, valid_to_scn=None)  # fmt: skip
    if new == dataclasses.replace(version, valid_from_scn=scn, valid_to_scn=None):
        message = f"{kind.upper()} {full}: no change to columns, name or key"
        return history, DdlEffect(kind=kind, table=full, version=None, message=message, obj=version.obj)
    notes = "".join(f"; {n}" for n in work.notes)
    message = (
        f"{kind.upper()} {full}" + (f" -> {new.full_name}" if new.name != version.name else "")
        + f": {len(new.columns)} stored columns, {new.key_kind} key {list(new.key_columns)}{notes}"
    )  # fmt: skip
    return history.with_version(new), DdlEffect(
        kind=kind, table=full, version=new, message=message, obj=version.obj, renamed=tuple(work.renamed),
        dropped=tuple(work.dropped), added=tuple(work.added), modified=tuple(work.modified),
    )  # fmt: skip


def replay_ddl(
    history: DictionaryHistory, *, obj: int | None, scn: int, text: str, schema: str = ""
) -> DdlEffect:
    """The effect of a DDL ``history`` holds already (its versions from ``scn`` on came from it): the
    statement applied again to the versions in force just before ``scn``. Publish reads the column
    lineage of a batch's DDL records from it (``renamed``, ``dropped``, ...). Never raises: a DDL that
    contradicts those versions is an ``unsupported`` effect with the reason."""
    before = [dataclasses.replace(v, valid_to_scn=None) for v in history if v.covers(scn - 1)]
    base = DictionaryHistory(
        before, db_charset=history.db_charset, national_charset=history.national_charset, sys=history.sys_rows
    )
    try:
        return apply_ddl(base, obj=obj, scn=scn, text=text, schema=schema)[1]
    except DictionaryError as exc:
        return DdlEffect(kind=DdlKind.UNSUPPORTED, table="", version=None, message=str(exc), obj=obj)


@final
@dataclass(frozen=True, slots=True, kw_only=True)
class DdlSubject:
    """What a DDL statement is about, from its first words: ``operation`` (its verb: CREATE, ALTER,
    DROP, TRUNCATE, RENAME, GRANT, ...), ``object_type`` (TABLE, INDEX, MATERIALIZED VIEW, ...; ""
    when the statement does not say) and the object's owner and name ("" when not told)."""

    operation: str
    object_type: str
    owner: str
    name: str


# words between the verb and the object type (CREATE OR REPLACE, GLOBAL TEMPORARY TABLE, ...)
_QUALIFIERS = frozenset({"OR", "REPLACE", "GLOBAL", "PRIVATE", "TEMPORARY", "UNIQUE", "BITMAP", "PUBLIC",
                         "EDITIONABLE", "NONEDITIONABLE", "FORCE", "NO", "SHARDED", "DUPLICATED",
                         "IMMUTABLE", "BLOCKCHAIN", "MULTIVALUE"})  # fmt: skip
_TWO_WORD_TYPES = frozenset({("MATERIALIZED", "VIEW"), ("PACKAGE", "BODY"), ("TYPE", "BODY"),
                             ("DATABASE", "LINK")})  # fmt: skip


def ddl_subject(text: str, schema: str = "") -> DdlSubject:
    """The verb, object type, owner and name of a DDL statement (``schema``: the 24.1's schema, the
    owner of an unqualified name). ``RENAME a TO b`` is about ``a``, of type TABLE (what RENAME of a
    captured object renames). Reads the first words only; never raises."""
    tokens = _tokenize(text)
    words = [t.text if t.kind == "word" else None for t in tokens]
    if not words or words[0] is None:
        return DdlSubject(operation="", object_type="", owner=schema, name="")
    operation, i = words[0], 1
    if operation not in ("CREATE", "ALTER", "DROP", "TRUNCATE", "RENAME", "PURGE", "FLASHBACK"):
        return DdlSubject(operation=operation, object_type="", owner=schema, name="")  # GRANT, COMMENT, ...
    if operation == "RENAME":
        object_type = "TABLE"
    else:
        while i < len(words) and words[i] in _QUALIFIERS:
            i += 1
        if i + 1 < len(words) and (words[i], words[i + 1]) in _TWO_WORD_TYPES:
            object_type, i = f"{words[i]} {words[i + 1]}", i + 2
        elif i < len(words) and (word := words[i]) is not None:
            object_type, i = word, i + 1
        else:
            return DdlSubject(operation=operation, object_type="", owner=schema, name="")
    # 23ai's CREATE TABLE IF NOT EXISTS t, DROP TABLE IF EXISTS t: the name comes after
    if words[i : i + 3] == ["IF", "NOT", "EXISTS"]:
        i += 3
    elif words[i : i + 2] == ["IF", "EXISTS"]:
        i += 2
    ts = _Stream(tokens)
    ts.i = i
    try:
        owner, name = ts.qualified()
    except _Unsupported:
        return DdlSubject(operation=operation, object_type=object_type, owner=schema, name="")
    return DdlSubject(operation=operation, object_type=object_type, owner=owner or schema, name=name)
