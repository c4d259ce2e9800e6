"""``DictionaryHistory``: every known table version, by object id and SCN, plus Redotrail's own JSON form.

``lookup(obj, scn)`` answers "what did object ``obj`` look like at ``scn``": the table version whose
half-open range ``[valid_from_scn, valid_to_scn)`` holds ``scn``. A partition's or subpartition's
``obj`` or ``dataobj`` resolves to its table's version. DDL met in the redo opens a new version from
its SCN on with ``with_version`` (the previous version is closed at that SCN); the history itself is
never changed in place, so one history can be shared by Spark tasks and caches.

The own JSON format ("redotrail-dictionary", version 1) is described in docs/dictionary.md and is
what include/sql/export_dictionary.sql writes. ``to_json`` / ``from_json`` round-trip it. Its
``sys`` member (the captured owners' rows of ``SYS.OBJ$``, ``TABPART$``, ``TABCOMPART$``,
``TABSUBPART$``, ``USER$``, ``COL$``, ``CDEF$`` and ``CCOL$``; docs/dictionary.md, "The SYS rows") is
checked for shape here and kept as ``SysRows``, an opaque frozen value: the Rust core gives the rows
their meaning.
``JsonFields`` reads typed fields of a JSON object and names the JSON path of any problem; the
loaders in load.py use it too.

Layer 2 (dictionary): imports ``redo_lib.errors`` and this package. No file I/O here (load.py reads
files). On bad input, public functions raise only ``DictionaryError`` and its subclasses.
"""

from __future__ import annotations

import dataclasses
import itertools
import json
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any, final

from redo_lib.dictionary.model import (
    ColumnDef,
    KeyConstraint,
    KeyKind,
    OwnerObject,
    PartitionDef,
    TableVersion,
    choose_key,
    normalize_type_name,
    type_code_for_name,
)
from redo_lib.errors import DictionaryError, MissingObjectError, locate

__all__ = ["FORMAT_NAME", "FORMAT_VERSION", "SYS_TABLES", "DictionaryHistory", "JsonFields", "SysRows"]

#: Value of the top-level ``"format"`` member of Redotrail's own dictionary JSON.
FORMAT_NAME = "redotrail-dictionary"
#: The version of that format this module reads and writes.
FORMAT_VERSION = 1

#: ``DBA_TAB_COLS.CHARACTER_SET_NAME`` values that stand for the database's two character sets.
_CHAR_CS = "CHAR_CS"
_NCHAR_CS = "NCHAR_CS"

#: The members of the ``sys`` member, in document order: Oracle's dictionary tables whose row changes
#: the core follows (docs/dictionary.md, "The SYS rows").
SYS_TABLES = ("OBJ$", "TABPART$", "TABCOMPART$", "TABSUBPART$", "USER$", "COL$", "CDEF$", "CCOL$")
#: Members a ``sys`` member may lack (no rows): documents written before ``COL$`` (then ``CDEF$`` and
#: ``CCOL$``, the tables' constraints and their columns) were followed.
_OPTIONAL_SYS_TABLES = frozenset({"COL$", "CDEF$", "CCOL$"})

_CONSTRAINT_KINDS = {
    "P": KeyKind.PRIMARY,
    "U": KeyKind.UNIQUE,
    "primary": KeyKind.PRIMARY,
    "unique": KeyKind.UNIQUE,
}


def _kind_of(value: object) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int | float):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list):
        return "array"
    return "object"


@final
class JsonFields:
    """A JSON object and its path (``$.tables[3]``): typed reads that raise ``DictionaryError`` naming
    the JSON path (``details["json_path"]``) of a missing or mistyped member.

    ``get_*`` require the member; ``opt_*`` return ``default`` when it is absent or null.
    """

    __slots__ = ("data", "path")

    def __init__(self, data: object, path: str = "$") -> None:
        if not isinstance(data, dict):
            raise DictionaryError(f"expected a JSON object, got {_kind_of(data)}", json_path=path)
        self.data: dict[str, Any] = data
        self.path = path

    def problem(self, key: str | None, message: str) -> DictionaryError:
        """A ``DictionaryError`` about member ``key`` (or the object itself)."""
        return DictionaryError(message, json_path=self.path if key is None else f"{self.path}.{key}")

    def _required(self, key: str) -> object:
        if key not in self.data:
            raise self.problem(key, "required member is missing")
        return self.data[key]

    def _int(self, key: str, value: object) -> int:
        if isinstance(value, bool) or not isinstance(value, int):
            raise self.problem(key, f"expected an integer, got {_kind_of(value)}")
        return value

    def get_int(self, key: str) -> int:
        return self._int(key, self._required(key))

    def opt_int(self, key: str, default: int | None = None) -> int | None:
        value = self.data.get(key)
        return default if value is None else self._int(key, value)

    def _str(self, key: str, value: object) -> str:
        if not isinstance(value, str):
            raise self.problem(key, f"expected a string, got {_kind_of(value)}")
        return value

    def get_str(self, key: str) -> str:
        return self._str(key, self._required(key))

    def opt_str(self, key: str, default: str | None = None) -> str | None:
        value = self.data.get(key)
        return default if value is None else self._str(key, value)

    def _bool(self, key: str, value: object) -> bool:
        if not isinstance(value, bool):
            raise self.problem(key, f"expected true or false, got {_kind_of(value)}")
        return value

    def get_bool(self, key: str) -> bool:
        return self._bool(key, self._required(key))

    def opt_bool(self, key: str, default: bool) -> bool:
        value = self.data.get(key)
        return default if value is None else self._bool(key, value)

    def get_str_list(self, key: str) -> list[str]:
        items = self.get_list(key)
        for i, item in enumerate(items):
            if not isinstance(item, str):
                raise self.problem(f"{key}[{i}]", f"expected a string, got {_kind_of(item)}")
        return items

    def get_object(self, key: str) -> JsonFields:
        return JsonFields(self._required(key), f"{self.path}.{key}")

    def get_list(self, key: str) -> list[Any]:
        value = self._required(key)
        if not isinstance(value, list):
            raise self.problem(key, f"expected an array, got {_kind_of(value)}")
        return value

    def opt_list(self, key: str) -> list[Any]:
        value = self.data.get(key)
        if value is None:
            return []
        if not isinstance(value, list):
            raise self.problem(key, f"expected an array, got {_kind_of(value)}")
        return value

    def objects(self, key: str, *, required: bool = True) -> Iterator[JsonFields]:
        """The members of array ``key``, each as ``JsonFields`` with its ``[i]`` path."""
        items = self.get_list(key) if required else self.opt_list(key)
        for i, item in enumerate(items):
            yield JsonFields(item, f"{self.path}.{key}[{i}]")


@final
@dataclass(frozen=True, slots=True)
class SysRows:
    """The ``sys`` member of a dictionary document (docs/dictionary.md, "The SYS rows"): the captured
    owners' rows of ``SYS.OBJ$``, ``TABPART$``, ``TABCOMPART$``, ``TABSUBPART$``, ``USER$``, ``COL$``
    (the columns of their tables), ``CDEF$`` and ``CCOL$`` (their constraints and the constraints'
    columns), each with its ``rowid`` and the SCN range ``[valid_from_scn, valid_to_scn)`` it is valid on.

    Opaque here: the Rust core (``redo_core::trail``, ``sys.rs``) applies the row changes and resolves
    objects through them. ``text`` is the member's compact JSON text (members and rows in the order
    given); build one with ``from_document`` / ``from_json``, which check its shape.
    """

    text: str

    @classmethod
    def from_document(cls, value: object, path: str = "$.sys") -> SysRows:
        """Check the parsed ``sys`` member: an object holding the arrays of ``SYS_TABLES`` (``COL$``,
        ``CDEF$`` and ``CCOL$`` may be absent: an older document; other members are kept as they are,
        and checked the same way), each row an object with ``rowid``
        (a string), ``valid_from_scn`` (an integer), ``valid_to_scn`` (an integer or null) and column
        values that are integers, strings or null. Raises ``DictionaryError`` naming the JSON path."""
        root = JsonFields(value, path)
        for table in SYS_TABLES:
            if table not in _OPTIONAL_SYS_TABLES or table in root.data:
                root.get_list(table)
        for table in root.data:
            for row in root.objects(table):
                row.get_str("rowid")
                row.get_int("valid_from_scn")
                row.opt_int("valid_to_scn")
                for column, item in row.data.items():
                    if item is not None and (isinstance(item, bool) or not isinstance(item, int | str)):
                        raise row.problem(
                            column, f"expected an integer, a string or null, got {_kind_of(item)}"
                        )
        return cls(json.dumps(root.data, ensure_ascii=False, separators=(",", ":")))

    @classmethod
    def from_json(cls, text: str | bytes) -> SysRows:
        """Like ``from_document``, from the member's JSON text (as the core writes it)."""
        try:
            value = json.loads(text)
        except (json.JSONDecodeError, UnicodeDecodeError) as exc:
            raise DictionaryError(f"sys rows are not valid JSON: {exc}", json_path="$.sys") from exc
        return cls.from_document(value)

    def tables(self) -> dict[str, list[dict[str, Any]]]:
        """The rows by table name: a new copy at each call (the value itself never changes)."""
        rows: dict[str, list[dict[str, Any]]] = json.loads(self.text)
        return rows

    def count(self, table: str) -> int:
        """How many rows (open or closed) table ``table`` (``"OBJ$"``, ...) has."""
        return len(self.tables().get(table, ()))


@final
class DictionaryHistory:
    """Table versions by object id and SCN, and the source database's character sets.

    Immutable: ``with_version`` / ``with_dropped`` return new histories. Picklable.
    ``db_charset`` is NLS_CHARACTERSET (charset form 1), ``national_charset`` NLS_NCHAR_CHARACTERSET
    (form 2). ``max_object_id`` is the highest object number of the source database at the export
    (``MAX(OBJECT_ID)`` of DBA_OBJECTS), ``None`` when the export did not record it: Oracle numbers
    objects from one increasing counter, so an object the history does not know and numbered at or
    below it existed at the export without being exported (docs/dictionary.md). ``owners`` are the
    owners the export was taken for (``None``: not recorded) and ``owner_objects`` their tables,
    partitions and subpartitions as ``DBA_OBJECTS`` listed them: an object among them that no
    version describes belongs to an exported owner, so the dictionary lacks a table it should hold.
    ``sys_rows`` (``None``: the document has no ``sys`` member) are those owners' rows of Oracle's
    own dictionary tables, which the core follows through the redo (docs/dictionary.md, "The SYS
    rows"); every new history keeps them, and ``with_sys`` replaces them.
    """

    __slots__ = (
        "_db_charset",
        "_max_object_id",
        "_national_charset",
        "_owner_objects",
        "_owners",
        "_segments",
        "_sys",
        "_versions",
    )

    def __init__(
        self,
        versions: Iterable[TableVersion] = (),
        *,
        db_charset: str,
        national_charset: str,
        max_object_id: int | None = None,
        owners: Iterable[str] | None = None,
        owner_objects: Iterable[OwnerObject] = (),
        sys: SysRows | None = None,
    ) -> None:
        by_obj: dict[int, list[TableVersion]] = {}
        for version in versions:
            by_obj.setdefault(version.obj, []).append(version)
        self._db_charset = db_charset
        self._national_charset = national_charset
        self._max_object_id = max_object_id
        self._owners = None if owners is None else tuple(sorted(set(owners)))
        self._owner_objects = tuple(sorted(owner_objects, key=lambda o: o.obj))
        self._sys = sys
        self._versions: dict[int, tuple[TableVersion, ...]] = {}
        for obj, items in by_obj.items():
            items.sort(key=lambda v: v.valid_from_scn)
            for before, after in itertools.pairwise(items):
                if before.valid_to_scn is None or before.valid_to_scn > after.valid_from_scn:
                    raise DictionaryError(
                        f"versions of object {obj} overlap: one from SCN {before.valid_from_scn} "
                        f"to {before.valid_to_scn}, the next from SCN {after.valid_from_scn}",
                        obj=obj,
                        scn=after.valid_from_scn,
                    )
            self._versions[obj] = tuple(items)
        segments: dict[int, list[TableVersion]] = {}
        for group in self._versions.values():
            for version in group:
                for seg in version.segment_objs():
                    segments.setdefault(seg, []).append(version)
        self._segments: dict[int, tuple[TableVersion, ...]] = {k: tuple(v) for k, v in segments.items()}

    # -- attributes -------------------------------------------------------------------------------

    @property
    def db_charset(self) -> str:
        """The database character set (NLS_CHARACTERSET), e.g. ``"AL32UTF8"``."""
        return self._db_charset

    @property
    def national_charset(self) -> str:
        """The national character set (NLS_NCHAR_CHARACTERSET), e.g. ``"AL16UTF16"``."""
        return self._national_charset

    @property
    def max_object_id(self) -> int | None:
        """The highest object number at the export (``None``: not recorded)."""
        return self._max_object_id

    @property
    def owners(self) -> tuple[str, ...] | None:
        """The owners the export was taken for, sorted (``None``: not recorded)."""
        return self._owners

    @property
    def owner_objects(self) -> tuple[OwnerObject, ...]:
        """The tables, partitions and subpartitions of the exported owners at the export, by obj."""
        return self._owner_objects

    @property
    def sys_rows(self) -> SysRows | None:
        """The ``sys`` member: the SYS dictionary rows the core follows (``None``: not in the document)."""
        return self._sys

    @property
    def sys_json(self) -> str | None:
        """The ``sys`` member as compact JSON text (``SysRows.text``), ``None`` when there is none."""
        return None if self._sys is None else self._sys.text

    def objects(self) -> tuple[int, ...]:
        """The table object ids with at least one version, ascending (partitions not included)."""
        return tuple(sorted(self._versions))

    def versions(self, obj: int) -> tuple[TableVersion, ...]:
        """All versions of table ``obj``, oldest first; empty if unknown."""
        return self._versions.get(obj, ())

    def __iter__(self) -> Iterator[TableVersion]:
        """Every version of every table, by object id then SCN."""
        for obj in self.objects():
            yield from self._versions[obj]

    def __len__(self) -> int:
        return len(self._versions)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, DictionaryHistory):
            return NotImplemented
        return self._key() == other._key()

    def _key(self) -> tuple[object, ...]:
        return (
            self._db_charset,
            self._national_charset,
            self._max_object_id,
            self._owners,
            self._owner_objects,
            self._sys,
            self._versions,
        )

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        count = sum(len(v) for v in self._versions.values())
        return (
            f"DictionaryHistory(tables={len(self._versions)}, versions={count}, "
            f"db_charset={self._db_charset!r}, national_charset={self._national_charset!r}, "
            f"max_object_id={self._max_object_id!r}, sys={self._sys is not None})"
        )

    # -- look-ups ---------------------------------------------------------------------------------

    def _find(self, obj: int, scn: int) -> TableVersion | None:
        for version in reversed(self._versions.get(obj, ())):
            if version.valid_from_scn <= scn:
                if version.valid_to_scn is None or scn < version.valid_to_scn:
                    return version
                break
        for version in self._segments.get(obj, ()):
            if version.covers(scn):
                return version
        return None

    def lookup(self, obj: int, scn: int) -> TableVersion:
        """The version of the table that ``obj`` (a table, partition or subpartition ``obj``, or a
        partition's ``dataobj``) belonged to at ``scn``.

        Raises ``MissingObjectError`` (details ``obj``, ``scn``) when there is none: an unknown object,
        or an SCN before its first version or after it was dropped.
        """
        version = self._find(obj, scn)
        if version is not None:
            return version
        known = self._versions.get(obj) or self._segments.get(obj)
        if known:
            ranges = ", ".join(f"[{v.valid_from_scn}, {v.valid_to_scn or ''})" for v in known)
            raise MissingObjectError(
                f"object {obj} ({known[0].full_name}) has no dictionary version at SCN {scn}; known on {ranges}",
                obj=obj,
                scn=scn,
            )
        raise MissingObjectError(f"object {obj} is not in the dictionary", obj=obj, scn=scn)

    def contains(self, obj: int, scn: int) -> bool:
        """Whether ``lookup(obj, scn)`` would succeed."""
        return self._find(obj, scn) is not None

    def knows(self, obj: int) -> bool:
        """Whether ``obj`` (a table, partition or subpartition, or a partition's ``dataobj``) has a
        version at any SCN: ``lookup`` of an object it knows fails only for an SCN outside its range."""
        return obj in self._versions or obj in self._segments

    # -- new versions -----------------------------------------------------------------------------

    def _replaced(self, obj: int, items: list[TableVersion]) -> DictionaryHistory:
        versions = dict(self._versions)
        if items:
            versions[obj] = tuple(items)
        else:
            versions.pop(obj, None)
        return DictionaryHistory(
            (v for group in versions.values() for v in group),
            db_charset=self._db_charset,
            national_charset=self._national_charset,
            max_object_id=self._max_object_id,
            owners=self._owners,
            owner_objects=self._owner_objects,
            sys=self._sys,
        )

    def with_sys(self, sys: SysRows | str | bytes | Mapping[str, Any] | None) -> DictionaryHistory:
        """A new history with the ``sys`` member replaced (the rows the core tracked through a batch's
        redo): a ``SysRows``, its JSON text, or the parsed member; ``None`` removes it. Raises
        ``DictionaryError`` (``json_path`` ``$.sys...``) when the rows are malformed."""
        if sys is None or isinstance(sys, SysRows):
            rows = sys
        elif isinstance(sys, str | bytes):
            rows = SysRows.from_json(sys)
        else:
            rows = SysRows.from_document(dict(sys))
        new = DictionaryHistory(
            (),
            db_charset=self._db_charset,
            national_charset=self._national_charset,
            max_object_id=self._max_object_id,
            owners=self._owners,
            owner_objects=self._owner_objects,
            sys=rows,
        )
        new._versions, new._segments = self._versions, self._segments  # immutable: shared
        return new

    def with_version(self, version: TableVersion) -> DictionaryHistory:
        """A new history in which ``version`` is in force from its ``valid_from_scn`` on.

        The version that was in force at that SCN is closed there (``valid_to_scn``); a version
        starting at the same SCN is replaced. Versions must arrive in SCN order: one starting after
        ``valid_from_scn`` raises ``DictionaryError``.
        """
        start = version.valid_from_scn
        kept: list[TableVersion] = []
        for old in self._versions.get(version.obj, ()):
            if old.valid_from_scn > start:
                raise DictionaryError(
                    f"{version.full_name}: a version from SCN {old.valid_from_scn} already exists; "
                    f"cannot open one from SCN {start} before it",
                    obj=version.obj,
                    scn=start,
                )
            if old.valid_from_scn == start:
                continue
            if old.valid_to_scn is None or old.valid_to_scn > start:
                old = dataclasses.replace(old, valid_to_scn=start)
            kept.append(old)
        kept.append(version)
        return self._replaced(version.obj, kept)

    def with_columns(
        self,
        obj: int,
        scns: tuple[int, int | None],
        columns: tuple[ColumnDef, ...],
        key: tuple[tuple[str, ...], KeyKind],
    ) -> DictionaryHistory:
        """A new history in which table ``obj`` has ``columns`` and ``key`` (its columns and kind) on
        the SCN range ``scns`` (``[from, to)``, ``to`` ``None``: open), the rest of the version in
        force at ``from`` as it was: that version is cut around the range (the columns its ``COL$``
        rows give, ``sys_columns.with_columns_from_sys``). Raises ``MissingObjectError`` if no
        version is in force at ``from``, ``DictionaryError`` if it ends inside the range."""
        start, end = scns
        current = [v for v in self._versions.get(obj, ()) if v.covers(start)]
        if not current:
            raise MissingObjectError(f"no version of object {obj} at SCN {start}", obj=obj, scn=start)
        old = current[0]
        if old.valid_to_scn is not None and (end is None or old.valid_to_scn < end):
            raise DictionaryError(
                f"{old.full_name}: its version ends at SCN {old.valid_to_scn}, inside the range from SCN "
                f"{start} to {end}",
                obj=obj,
                scn=start,
            )
        cut = [dataclasses.replace(old, valid_to_scn=start)] if old.valid_from_scn < start else []
        cut.append(
            dataclasses.replace(
                old,
                columns=columns,
                key_columns=key[0],
                key_kind=key[1],
                valid_from_scn=start,
                valid_to_scn=end,
            )
        )
        if end is not None and (old.valid_to_scn is None or old.valid_to_scn > end):
            cut.append(dataclasses.replace(old, valid_from_scn=end))
        kept = [v for v in self._versions[obj] if v is not old] + cut
        kept.sort(key=lambda v: v.valid_from_scn)
        return self._replaced(obj, kept)

    def with_dropped(self, obj: int, scn: int) -> DictionaryHistory:
        """A new history in which table ``obj`` no longer exists from ``scn`` on (DROP TABLE).

        Raises ``MissingObjectError`` if no version of ``obj`` is in force at ``scn``.
        """
        current = [v for v in self._versions.get(obj, ()) if v.covers(scn)]
        if not current:
            raise MissingObjectError(f"cannot drop object {obj}: no version at SCN {scn}", obj=obj, scn=scn)
        kept: list[TableVersion] = []
        for old in self._versions[obj]:
            if old.valid_from_scn >= scn:
                continue
            if old is current[0]:
                old = dataclasses.replace(old, valid_to_scn=scn)
            kept.append(old)
        return self._replaced(obj, kept)

    # -- own JSON format --------------------------------------------------------------------------

    def to_json(self) -> str:
        """This history in Redotrail's own JSON format (docs/dictionary.md): one line per column,
        so that two exports diff well."""
        header = {
            "format": FORMAT_NAME,
            "format_version": FORMAT_VERSION,
            "db_charset": self._db_charset,
            "national_charset": self._national_charset,
        }
        if self._max_object_id is not None:
            header["max_object_id"] = self._max_object_id
        if self._owners is not None:
            header["owners"] = list(self._owners)
        lines = ["{"]
        lines.extend(f" {json.dumps(k)}: {json.dumps(v, ensure_ascii=False)}," for k, v in header.items())
        tables = [_render_table(_table_to_json(v)) for v in self]
        lines.append(' "tables": [' + ("" if tables else "]"))
        if tables:
            lines.append(",\n".join(tables))
            lines.append(" ]")
        if self._owner_objects:
            lines[-1] += ","
            lines.append(' "objects": [')
            lines.append(
                ",\n".join(
                    f"  {json.dumps(dataclasses.asdict(o), ensure_ascii=False)}" for o in self._owner_objects
                )
            )
            lines.append(" ]")
        if self._sys is not None:
            lines[-1] += ","
            lines.append(' "sys": {')
            members = []
            for table, rows in self._sys.tables().items():
                if rows:
                    body = ",\n".join(f"   {json.dumps(r, ensure_ascii=False)}" for r in rows)
                    members.append(f"  {json.dumps(table)}: [\n{body}\n  ]")
                else:
                    members.append(f"  {json.dumps(table)}: []")
            lines.append(",\n".join(members))
            lines.append(" }")
        lines.append("}")
        return "\n".join(lines) + "\n"

    @classmethod
    def from_json(cls, text: str, *, source: str | None = None) -> DictionaryHistory:
        """Read Redotrail's own JSON format; ``source`` names the file in errors.

        Raises ``DictionaryError`` with the JSON path of the problem in ``details["json_path"]``.
        """
        try:
            try:
                doc = json.loads(text)
            except json.JSONDecodeError as exc:
                raise DictionaryError(
                    f"not valid JSON: {exc.msg}", line=exc.lineno, column=exc.colno
                ) from exc
            return cls.from_document(doc)
        except DictionaryError as exc:
            raise locate(exc, file=source) from None

    @classmethod
    def from_document(cls, doc: object) -> DictionaryHistory:
        """Like ``from_json``, from the already parsed JSON value."""
        root = JsonFields(doc)
        fmt = root.opt_str("format")
        if fmt != FORMAT_NAME:
            raise root.problem(
                "format", f"not a Redotrail dictionary (format {fmt!r}, expected {FORMAT_NAME!r})"
            )
        version = root.get_int("format_version")
        if version != FORMAT_VERSION:
            raise root.problem("format_version", f"unsupported format version {version} (this reader: 1)")
        db_charset = root.get_str("db_charset")
        national_charset = root.get_str("national_charset")
        default_scn = root.opt_int("scn")
        max_object_id = root.opt_int("max_object_id")
        owners = root.get_str_list("owners") if root.data.get("owners") is not None else None
        owner_objects = [
            OwnerObject(
                obj=o.get_int("obj"),
                dataobj=o.opt_int("dataobj"),
                owner=o.get_str("owner"),
                name=o.get_str("name"),
                subname=o.opt_str("subname"),
                type=o.opt_str("type") or "TABLE",
            )
            for o in root.objects("objects", required=False)
        ]
        versions = [
            _table_from_json(t, default_scn, db_charset, national_charset) for t in root.objects("tables")
        ]
        sys = SysRows.from_document(root.data["sys"]) if root.data.get("sys") is not None else None
        try:
            return cls(
                versions,
                db_charset=db_charset,
                national_charset=national_charset,
                max_object_id=max_object_id,
                owners=owners,
                owner_objects=owner_objects,
                sys=sys,
            )
        except DictionaryError as exc:
            exc.details.setdefault("json_path", "$.tables")
            raise


# -- own format: one table ------------------------------------------------------------------------


def _table_to_json(version: TableVersion) -> dict[str, Any]:
    return {
        "obj": version.obj,
        "dataobj": version.dataobj,
        "owner": version.owner,
        "name": version.name,
        "valid_from_scn": version.valid_from_scn,
        "valid_to_scn": version.valid_to_scn,
        "columns": [
            {
                "col_no": c.col_no,
                "segcol_no": c.segcol_no,
                "name": c.name,
                "type": c.type_name,
                "type_code": c.type_code,
                "length": c.length,
                "char_length": c.char_length,
                "precision": c.precision,
                "scale": c.scale,
                "charset": c.charset,
                "nullable": c.nullable,
                "hidden": c.hidden,
            }
            for c in version.columns
        ],
        "key": {"kind": str(version.key_kind), "columns": list(version.key_columns)},
        "partitions": [{"obj": p.obj, "dataobj": p.dataobj, "name": p.name} for p in version.partitions],
        # the storage attributes only when set: documents without them stay as they were
        **({"encrypted": True} if version.encrypted else {}),
        **({"compress_for": version.compress_for} if version.compress_for else {}),
        **({"iot_type": version.iot_type} if version.iot_type else {}),
        **({"supplemental": version.supplemental} if version.supplemental else {}),
    }


def _render_table(table: dict[str, Any]) -> str:
    """One table of ``to_json``: its scalar members on one line, then one line per column / partition."""

    def dumps(value: object) -> str:
        return json.dumps(value, ensure_ascii=False)

    arrays = ("columns", "partitions")
    head = ", ".join(f"{dumps(k)}: {dumps(v)}" for k, v in table.items() if k not in arrays)
    parts = [f"  {{{head},"]
    for n, name in enumerate(arrays):
        end = "}" if n == len(arrays) - 1 else ","
        items = table[name]
        if items:
            parts.append(f"   {dumps(name)}: [")
            parts.append(",\n".join(f"    {dumps(item)}" for item in items))
            parts.append(f"   ]{end}")
        else:
            parts.append(f"   {dumps(name)}: []{end}")
    return "\n".join(parts)


def _resolve_charset(name: str | None, db_charset: str, national_charset: str) -> str | None:
    if name == _CHAR_CS:
        return db_charset
    if name == _NCHAR_CS:
        return national_charset
    return name


def _column_from_json(col: JsonFields, db_charset: str, national_charset: str) -> ColumnDef | None:
    segcol_no = col.opt_int("segcol_no")
    name = col.get_str("name")
    type_name = normalize_type_name(col.get_str("type"))
    if segcol_no is None:
        return None  # a virtual column: no storage, no place in the redo row
    type_code = col.opt_int("type_code")
    return ColumnDef(
        col_no=col.opt_int("col_no", 0) or 0,
        segcol_no=segcol_no,
        name=name,
        type_code=type_code_for_name(type_name) if type_code is None else type_code,
        type_name=type_name,
        length=col.get_int("length"),
        char_length=col.opt_int("char_length"),
        precision=col.opt_int("precision"),
        scale=col.opt_int("scale"),
        charset=_resolve_charset(col.opt_str("charset"), db_charset, national_charset),
        nullable=col.get_bool("nullable"),
        hidden=col.opt_bool("hidden", False),
    )


def _constraint_from_json(con: JsonFields) -> KeyConstraint:
    kind_text = con.get_str("type")
    kind = _CONSTRAINT_KINDS.get(kind_text)
    if kind is None:
        raise con.problem("type", f"constraint type {kind_text!r} is not P (primary) or U (unique)")
    columns = tuple(con.get_str_list("columns"))
    return KeyConstraint(name=con.get_str("name"), kind=kind, columns=columns)


def _table_from_json(
    table: JsonFields, default_scn: int | None, db_charset: str, national_charset: str
) -> TableVersion:
    obj = table.get_int("obj")
    columns: list[ColumnDef] = []
    for col in table.objects("columns"):
        try:
            column = _column_from_json(col, db_charset, national_charset)
        except DictionaryError as exc:
            exc.details.setdefault("json_path", col.path)
            raise
        if column is not None:
            columns.append(column)
    columns.sort(key=lambda c: c.segcol_no)
    if "key" in table.data and table.data["key"] is not None:
        key = table.get_object("key")
        kind_text = key.get_str("kind")
        try:
            key_kind = KeyKind(kind_text)
        except ValueError:
            raise key.problem("kind", f"key kind {kind_text!r} is not one of primary, unique, all") from None
        key_columns = tuple(key.get_str_list("columns"))
    else:
        constraints = [_constraint_from_json(c) for c in table.objects("constraints", required=False)]
        key_kind, key_columns = choose_key(columns, constraints)
    valid_from = table.opt_int("valid_from_scn", default_scn)
    if valid_from is None:
        raise table.problem("valid_from_scn", "missing, and the document has no top-level scn")
    partitions = [
        PartitionDef(obj=p.get_int("obj"), dataobj=p.opt_int("dataobj"), name=p.opt_str("name"))
        for p in table.objects("partitions", required=False)
    ]
    try:
        return TableVersion(
            obj=obj,
            dataobj=table.opt_int("dataobj"),
            owner=table.get_str("owner"),
            name=table.get_str("name"),
            columns=tuple(columns),
            key_columns=key_columns,
            key_kind=key_kind,
            valid_from_scn=valid_from,
            valid_to_scn=table.opt_int("valid_to_scn"),
            partitions=tuple(partitions),
            encrypted=table.opt_bool("encrypted", False),
            compress_for=table.opt_str("compress_for") or None,
            iot_type=table.opt_str("iot_type") or None,
            supplemental=table.opt_str("supplemental") or None,
        )
    except DictionaryError as exc:
        exc.details.setdefault("json_path", table.path)
        raise
