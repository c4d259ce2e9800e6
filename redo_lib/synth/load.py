"""Scenario YAML <-> :class:`~redo_lib.synth.scenario.Scenario`.

The YAML form (see include/scenarios/*.yaml)::

    name: basic_dml
    settings: {compat: 19c, block_size: 512, log_size: 1MB, start_time: 2024-01-15T10:00:00}
    database: {charset: ZHS16GBK, national_charset: AL16UTF16}   # optional; AL32UTF8 / AL16UTF16
                                   # also supplemental: all | primary (default) | unique | foreign | none
    tables:
      - owner: HR
        name: EMP
        columns:
          - {name: ID, type: NUMBER, nullable: false}
          - {name: NAME, type: VARCHAR2(30)}
        primary_key: [ID]          # optional; unique_keys: [[NAME]] also optional
        storage: encrypted         # optional: encrypted, oltp_compressed or iot (docs/generator.md)
        supplemental: all          # optional: the table's logging, else the database's (pairs.py)
        foreign_keys: [[DEPT_ID]]  # optional: FOREIGN KEY log groups (supplemental: foreign)
    sessions: [{name: s1, thread: 1}, {name: s2, thread: 2}]
    steps:
      - insert: {table: EMP, values: {ID: 1, NAME: A}}
      - insert: {table: EMP, rows: [{ID: 2}, {ID: 3}], array: true}
      - update: {table: EMP, set: {NAME: B, SAL: {add: 10}}, where: {ID: 1}}
      - delete: {table: EMP, where: {ID: {in: [2, 3]}}}   # or where: all / {ROWID: {in: [...]}}
      - append_lob: {table: DOCS, column: BODY, value: more, where: {ID: 1}}  # DBMS_LOB.APPEND
      # (lob_append is the same step); writes through the locator (BasicFile, docs/lobs.md):
      - lob_write: {table: DOCS, column: BODY, offset: 5, value: text, where: {ID: 1}}  # DBMS_LOB.WRITE
      - lob_trim: {table: DOCS, column: BODY, length: 10, where: {ID: 1}}               # DBMS_LOB.TRIM
      - lob_erase: {table: DOCS, column: BODY, offset: 2, amount: 3, where: {ID: 1}}    # DBMS_LOB.ERASE
      - {session: s2, direct_insert: {table: EMP, rows: [...]}}
      - savepoint: a
      - rollback_to: a
      - commit                                                # also rollback, switch, switch: 2
      - sleep: 5
      - create_table: {owner: HR, name: DEPT, columns: [...], primary_key: [ID]}  # a new table
      - add_column: {table: EMP, column: NOTE, type: VARCHAR2(40)}       # ALTER TABLE ADD (NULL-able)
      - rename_column: {table: EMP, column: NOTE, to: REMARK}
      - modify_column: {table: EMP, column: NAME, type: VARCHAR2(60)}    # widening only
      - drop_column: {table: EMP, column: REMARK}
      - truncate_table: EMP                                              # or {table: EMP}
      - drop_table: DEPT
      - {session: s2, add_column: {table: EMP, column: X, type: NUMBER, sql: "alter table ..."}}

Values: NUMBER as int, float or decimal text; DATE / TIMESTAMP as ISO text (nine fraction digits
allowed); RAW as hex; BINARY_DOUBLE as float or ``Inf`` / ``-Inf`` / ``Nan``; ``{repeat: ab, times:
900}`` builds a long VARCHAR2 / CHAR / RAW / CLOB / BLOB value; ``{empty: true}`` is EMPTY_CLOB() /
EMPTY_BLOB() (not NULL); BLOB as hex. ``lob_pieces: before`` (on insert, update, append_lob and the lob_* writes) writes
the LOB pages before the row change instead of after it. Quote strings YAML would read as something else
(``"NO"``, ``"1e3"``); ``null`` (and, as in Oracle, ``""``) is SQL NULL. Predicates: ``{COL: v}``
equality, ``{COL: {op: v}}`` with eq ne lt le gt ge in is_null, ``{ROWID: r}`` or
``{ROWID: {in: [...]}}``; several keys are ANDed; ``where: all`` matches every row.
Every problem raises ``ScenarioError`` naming the step (``steps[3]``) or table.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import decimal
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any, TextIO

import yaml

from redo_lib.errors import Position, ScenarioError
from redo_lib.synth.columns import LONG_TYPES, Timestamp, parse_type
from redo_lib.synth.partspec import dump_partition_by, parse_partition_by
from redo_lib.synth.scenario import (
    DDL_STATEMENTS,
    DEFAULT_CHARSET,
    DEFAULT_NATIONAL_CHARSET,
    PREDICATE_OPS,
    AppendLob,
    ColumnSpec,
    Commit,
    Ddl,
    Delete,
    DirectInsert,
    Insert,
    LobWrite,
    Noise,
    Predicate,
    Rollback,
    RollbackTo,
    Savepoint,
    Scenario,
    SessionSpec,
    Settings,
    Sleep,
    Step,
    Switch,
    TableSpec,
    Update,
    parse_size,
    with_xml_storage,
)

__all__ = ["dump_scenario", "dump_step", "load_scenario", "parse_scenario", "parse_step"]

#: the ``database:`` keys (Settings fields too, written under ``database``, not ``settings``)
_DATABASE_KEYS = {"charset", "national_charset", "supplemental"}
_SETTING_KEYS = {f.name for f in dataclasses.fields(Settings)} - _DATABASE_KEYS
#: (database, national) character sets when a scenario names none
_DEFAULT_SETS = (DEFAULT_CHARSET, DEFAULT_NATIONAL_CHARSET)


def load_scenario(path: str | Path) -> Scenario:
    """Read a scenario YAML file."""
    try:
        text = Path(path).read_text(encoding="utf-8")
    except OSError as exc:
        raise ScenarioError(f"cannot read scenario: {exc}", position=Position(file=str(path))) from exc
    try:
        return parse_scenario(text)
    except ScenarioError as exc:
        exc.position = dataclasses.replace(exc.position, file=str(path))
        raise


def parse_scenario(text: str) -> Scenario:
    """Parse scenario YAML text."""
    try:
        doc = yaml.safe_load(text)
    except yaml.YAMLError as exc:
        line = getattr(getattr(exc, "problem_mark", None), "line", None)
        raise ScenarioError(
            f"not valid YAML: {exc}", position=Position(line=None if line is None else line + 1)
        ) from exc
    if not isinstance(doc, dict):
        raise ScenarioError("a scenario is a YAML mapping with tables and steps")
    unknown = set(doc) - {"name", "database", "settings", "tables", "sessions", "steps", "random"}
    if unknown:
        raise ScenarioError(f"unknown scenario keys {sorted(unknown)}")
    settings = _settings(doc.get("settings") or {}, doc.get("database") or {})
    sets = (settings.charset, settings.national_charset)
    tables = tuple(_table(t, i, sets=sets) for i, t in enumerate(_list(doc.get("tables"), "tables")))
    sessions = tuple(_session(s, i) for i, s in enumerate(_list(doc.get("sessions") or [], "sessions")))
    steps = tuple(
        parse_step(s, f"steps[{i}]", sets=sets) for i, s in enumerate(_list(doc.get("steps") or [], "steps"))
    )
    return Scenario(
        name=str(doc.get("name", "scenario")),
        settings=settings,
        tables=tables,
        sessions=sessions,
        steps=steps,
        random=doc.get("random"),
    )


def _list(value: Any, what: str) -> list[Any]:
    if not isinstance(value, list):
        raise ScenarioError(f"{what} must be a list")
    return value


def _mapping(value: Any, what: str) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise ScenarioError(f"{what} must be a mapping, not {type(value).__name__}")
    return value


def _settings(raw: Any, database: Any) -> Settings:
    raw = dict(_mapping(raw, "settings"))
    unknown = set(raw) - _SETTING_KEYS
    if unknown:
        raise ScenarioError(f"unknown settings {sorted(unknown)} (known: {sorted(_SETTING_KEYS)})")
    database = _mapping(database, "database")
    unknown = set(database) - _DATABASE_KEYS
    if unknown:
        raise ScenarioError(f"unknown database keys {sorted(unknown)} (known: {sorted(_DATABASE_KEYS)})")
    raw.update({k: str(v) for k, v in database.items()})
    if "log_size" in raw:
        raw["log_size"] = parse_size(raw["log_size"])
    if "start_time" in raw and not isinstance(raw["start_time"], dt.datetime):
        try:
            raw["start_time"] = dt.datetime.fromisoformat(str(raw["start_time"]))
        except ValueError:
            raise ScenarioError(f"settings.start_time {raw['start_time']!r} is not an ISO time") from None
    if "compat" in raw:
        raw["compat"] = str(raw["compat"])
    if "noise" in raw:
        noise = raw["noise"]
        if isinstance(noise, bool):
            raw["noise"] = Noise(index=noise, space=noise, markers=noise, cleanout=noise)
        else:
            try:
                raw["noise"] = Noise(**_mapping(noise, "settings.noise"))
            except TypeError as exc:
                raise ScenarioError(f"settings.noise: {exc}") from None
    return Settings(**raw)


_TABLE_KEYS = frozenset(
    {
        "owner",
        "name",
        "columns",
        "primary_key",
        "unique_keys",
        "obj",
        "dataobj",
        "securefile",
        "locator_pages",
        "storage",
        "partition_by",
        "supplemental",
        "foreign_keys",
    }
)


def _table(raw: Any, i: int, *, what: str = "", sets: tuple[str, str] = _DEFAULT_SETS) -> TableSpec:
    what = what or f"tables[{i}]"
    raw = _mapping(raw, what)
    unknown = set(raw) - _TABLE_KEYS
    if unknown:
        raise ScenarioError(f"{what}: unknown keys {sorted(unknown)}")
    name = str(raw.get("name", ""))
    owner = raw.get("owner")
    if owner is None and "." in name:
        owner, name = name.split(".", 1)
    columns = []
    for j, c in enumerate(_list(raw.get("columns"), f"{what}.columns")):
        c = _mapping(c, f"{what}.columns[{j}]")
        if "name" not in c or "type" not in c:
            raise ScenarioError(f"{what}.columns[{j}] needs name and type")
        columns.append(
            ColumnSpec(
                name=str(c["name"]), type=parse_type(c["type"], *sets), nullable=bool(c.get("nullable", True))
            )
        )
    longs = [c.name for c in columns if c.type.name in LONG_TYPES]
    if len(longs) == 1 and columns[-1].name != longs[0]:  # two or more: TableSpec refuses (ORA-01754)
        # Oracle stores a LONG column last in the row whatever its place in CREATE TABLE (a column
        # added later comes after it); the generator stores columns in declared order
        raise ScenarioError(
            f"{what}: declare the LONG / LONG RAW column {longs[0]} last (Oracle stores it last)"
        )
    return TableSpec(
        owner=str(owner or "SYNTH"),
        name=name,
        columns=with_xml_storage(columns),  # an XMLTYPE's hidden storage BLOB after it
        primary_key=tuple(raw.get("primary_key") or ()),
        unique_keys=tuple(tuple(k) for k in raw.get("unique_keys") or ()),
        obj=raw.get("obj"),
        dataobj=raw.get("dataobj"),
        securefile=_securefile(raw.get("securefile", False), what),
        locator_pages=_count(raw.get("locator_pages", 0), f"{what}.locator_pages"),
        storage=raw.get("storage"),
        partition_by=None
        if raw.get("partition_by") is None
        else parse_partition_by(raw["partition_by"], what),
        supplemental=None if raw.get("supplemental") is None else str(raw["supplemental"]),
        foreign_keys=tuple(tuple(k) for k in raw.get("foreign_keys") or ()),
    )


def _count(raw: Any, what: str) -> int:
    if isinstance(raw, bool) or not isinstance(raw, int) or raw < 0:
        raise ScenarioError(f"{what}: a count >= 0, not {raw!r}")
    return raw


def _securefile(raw: Any, what: str) -> str:
    """``securefile: true`` (SecureFile locators, pages as 26.2 pieces), ``images`` (pages as 26.6
    page images) or ``list_pages`` (a locator form the decoder does not read); absent or false:
    BasicFile."""
    if raw is True:
        return "pieces"
    if raw is False or raw is None:
        return ""
    if raw in ("pieces", "images", "list_pages"):
        return str(raw)
    raise ScenarioError(f"{what}.securefile: true, false, pieces, images or list_pages, not {raw!r}")


def _session(raw: Any, i: int) -> SessionSpec:
    raw = _mapping(raw, f"sessions[{i}]")
    return SessionSpec(name=str(raw.get("name", f"s{i + 1}")), thread=int(raw.get("thread", 1)))


def _where(raw: Any, what: str) -> Predicate:
    if raw == "all":
        return Predicate()
    if raw is None:
        raise ScenarioError(f"{what}: needs where (write `where: all` for every row)")
    terms: list[tuple[str, str, Any]] = []
    rowids: tuple[str, ...] = ()
    for column, cond in _mapping(raw, f"{what}.where").items():
        if column == "ROWID":
            if isinstance(cond, dict) and set(cond) == {"in"} and isinstance(cond["in"], list):
                rowids = tuple(str(r) for r in cond["in"])
            elif isinstance(cond, str):
                rowids = (cond,)
            else:
                raise ScenarioError(f"{what}.where.ROWID: a ROWID or {{in: [ROWID, ...]}}")
            if not rowids:
                raise ScenarioError(f"{what}.where.ROWID: no ROWIDs")
        elif isinstance(cond, dict):
            if len(cond) != 1 or next(iter(cond)) not in PREDICATE_OPS:
                raise ScenarioError(f"{what}.where.{column}: use one of {', '.join(PREDICATE_OPS)}")
            op, value = next(iter(cond.items()))
            terms.append((str(column), op, value))
        else:
            terms.append((str(column), "eq", cond))
    return Predicate(terms=tuple(terms), rowids=rowids)


def _rows(args: dict[str, Any], what: str) -> tuple[Mapping[str, Any], ...]:
    if "values" in args:
        return (_mapping(args["values"], f"{what}.values"),)
    rows = _list(args.get("rows"), f"{what}.rows")
    if not rows:
        raise ScenarioError(f"{what}: no rows")
    return tuple(_mapping(r, f"{what}.rows[{k}]") for k, r in enumerate(rows))


def parse_step(raw: Any, what: str = "step", *, sets: tuple[str, str] = _DEFAULT_SETS) -> Step:
    """One step from its YAML form (a bare word, or a one-key mapping plus optional ``session``);
    ``sets``: the database and national character sets of the columns it declares."""
    if isinstance(raw, str):
        raw = {raw: None}
    raw = dict(_mapping(raw, what))
    session = raw.pop("session", None)
    if len(raw) != 1:
        raise ScenarioError(f"{what}: a step has exactly one action, got {sorted(raw)}")
    kind, args = next(iter(raw.items()))
    if isinstance(args, dict) and "session" in args:
        args = dict(args)
        session = args.pop("session")
    common = {"session": str(session)} if session is not None else {}
    try:
        if kind == "lob_append":  # DBMS_LOB.WRITEAPPEND / APPEND: the same step as append_lob
            kind = "append_lob"
        if kind in _LOB_WRITES:
            return _lob_write(kind, _mapping(args, f"{what}.{kind}"), what, common)
        if kind in ("insert", "direct_insert", "update", "delete", "append_lob"):
            args = _mapping(args, f"{what}.{kind}")
            table = str(args.get("table") or "")
            if not table:
                raise ScenarioError(f"{what}: {kind} needs a table")
            pieces = str(args.get("lob_pieces", "after"))
            if pieces not in ("before", "after"):
                raise ScenarioError(f"{what}: lob_pieces must be before or after, not {pieces!r}")
            if kind == "insert":
                return Insert(
                    table=table, rows=_rows(args, what), array=bool(args.get("array", False)),
                    lob_pieces=pieces, **common,
                )  # fmt: skip
            if kind == "append_lob":
                return AppendLob(
                    table=table, column=str(args.get("column") or ""), value=args.get("value"),
                    where=_where(args.get("where"), what), lob_pieces=pieces, **common,
                )  # fmt: skip
            if kind == "direct_insert":
                return DirectInsert(table=table, rows=_rows(args, what), **common)
            if kind == "update":
                return Update(
                    table=table,
                    set=_mapping(args.get("set"), f"{what}.set"),
                    where=_where(args.get("where"), what),
                    lob_pieces=pieces,
                    **common,
                )
            return Delete(
                table=table,
                where=_where(args.get("where"), what),
                array=bool(args.get("array", False)),
                **common,
            )
        if kind == "commit":
            return Commit(**common)
        if kind == "rollback":
            return Rollback(**common)
        if kind == "savepoint":
            return Savepoint(name=str(args), **common)
        if kind == "rollback_to":
            return RollbackTo(name=str(args), **common)
        if kind == "switch":
            return Switch(thread=None if args in (None, "all") else int(args))
        if kind == "sleep":
            return Sleep(seconds=int(args))
        if kind in DDL_STATEMENTS:
            return _ddl(kind, args, what, common, sets)
    except ScenarioError as exc:
        if not exc.message.startswith(what):
            exc.message = f"{what}: {exc.message}"
            exc.args = (exc.message,)
        raise
    except (TypeError, ValueError) as exc:
        raise ScenarioError(f"{what}: bad {kind} arguments: {exc}") from None
    raise ScenarioError(f"{what}: unknown step kind {kind!r}")


_DDL_KEYS = {
    "create_table": set(),
    "add_column": {"table", "column", "type"},
    "drop_column": {"table", "column"},
    "rename_column": {"table", "column", "to"},
    "modify_column": {"table", "column", "type"},
    "drop_table": {"table"},
    "truncate_table": {"table"},
    "add_partition": {"table", "partition"},
    "drop_partition": {"table", "partition"},
    "truncate_partition": {"table", "partition"},
    "split_partition": {"table", "partition", "at", "into"},
    "merge_partitions": {"table", "partitions", "into"},
    "exchange_partition": {"table", "partition", "with"},
}
_OPTIONAL_KEYS = {"add_partition": {"values"}, "add_column": {"nullable"}}


def _ddl(kind: str, args: Any, what: str, common: dict[str, Any], sets: tuple[str, str]) -> Ddl:
    """A DDL step: ``create_table: {<a table as under tables>}``, ``drop_table: T`` /
    ``truncate_table: T`` (or ``{table: T}``), the ALTER TABLE kinds with ``table`` and ``column``
    (plus ``type`` / ``to``); each may give ``sql`` (the statement text to write)."""
    if isinstance(args, str) and kind in ("drop_table", "truncate_table"):
        args = {"table": args}
    args = dict(_mapping(args, f"{what}.{kind}"))
    sql = args.pop("sql", None)
    sql = None if sql is None else str(sql)
    if kind == "create_table":
        return Ddl(
            statement=kind, create=_table(args, 0, what=f"{what}.create_table", sets=sets), sql=sql, **common
        )
    required = _DDL_KEYS[kind]
    unknown = set(args) - required - _OPTIONAL_KEYS.get(kind, set()) - {"nullable"}
    missing = required - set(args)
    if unknown or missing:
        raise ScenarioError(f"{what}: {kind} takes {sorted(required)} (and sql), not {sorted(args)}")
    if "partition" in args or "partitions" in args:
        named = args.get("partitions", [args.get("partition")])
        into = args.get("into") or []
        return Ddl(
            statement=kind, table=str(args["table"]),
            partitions=tuple(str(n) for n in (named if isinstance(named, list) else [named])),
            into=tuple(str(n) for n in (into if isinstance(into, list) else [into])),
            values=args.get("values", args.get("at")), with_table=str(args.get("with") or ""),
            sql=sql, **common,
        )  # fmt: skip
    column = None
    if "type" in args:
        if kind == "add_column" and args.get("nullable", True) is not True:
            raise ScenarioError(f"{what}: add_column adds NULL-able columns only (no DEFAULT, ORA-01758)")
        column = ColumnSpec(name=str(args["column"]), type=parse_type(args["type"], *sets))
        if column.type.name == "XMLTYPE":
            raise ScenarioError(f"{what}: add_column of an XMLTYPE is not generated (declare it in tables)")
    elif "nullable" in args:
        raise ScenarioError(f"{what}: {kind} takes no nullable")
    return Ddl(
        statement=kind, table=str(args["table"]), column=column, column_name=str(args.get("column") or ""),
        new_name=str(args.get("to") or ""), sql=sql, **common,
    )  # fmt: skip


def _table_plain(t: TableSpec) -> dict[str, Any]:
    return (
        {
            "owner": t.owner,
            "name": t.name,
            "obj": t.obj,
            "dataobj": t.dataobj,
            "columns": [
                {"name": c.name, "type": str(c.type), "nullable": c.nullable}
                for c in t.columns
                if not c.hidden
            ],
            "primary_key": list(t.primary_key),
            "unique_keys": [list(k) for k in t.unique_keys],
        }
        | ({"securefile": t.securefile} if t.securefile else {})
        | ({"locator_pages": t.locator_pages} if t.locator_pages else {})
        | ({"storage": t.storage} if t.storage else {})
        | ({"partition_by": dump_partition_by(t.partition_by)} if t.partition_by else {})
        | ({"supplemental": t.supplemental} if t.supplemental else {})
        | ({"foreign_keys": [list(k) for k in t.foreign_keys]} if t.foreign_keys else {})
    )


def _ddl_plain(step: Ddl) -> dict[str, Any]:
    if step.statement == "create_table":
        assert step.create is not None
        body = {k: v for k, v in _table_plain(step.create).items() if v is not None}
    else:
        body = {"table": step.table}
        if step.column_name:
            body["column"] = step.column_name
        if step.column is not None:
            body["type"] = str(step.column.type)
        if step.new_name:
            body["to"] = step.new_name
        if step.partitions:
            key = "partitions" if step.statement == "merge_partitions" else "partition"
            body[key] = list(step.partitions) if key == "partitions" else step.partitions[0]
        if step.values is not None:
            body["at" if step.statement == "split_partition" else "values"] = _plain(step.values)
        if step.into:
            body["into"] = list(step.into) if step.statement == "split_partition" else step.into[0]
        if step.with_table:
            body["with"] = step.with_table
    if step.sql is not None:
        body["sql"] = step.sql
    return {step.statement: body}


# -- dumping ----------------------------------------------------------------------------------------


def _plain(value: Any) -> Any:
    """YAML-safe form of a scenario value (Decimal and Timestamp as text, bytes as hex)."""
    if isinstance(value, decimal.Decimal):
        return str(value)
    if isinstance(value, Timestamp):
        return str(value)
    if isinstance(value, bytes):
        return value.hex().upper()
    if isinstance(value, Mapping):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_plain(v) for v in value]
    return value


def _where_plain(p: Predicate) -> Any:
    if not p.terms and not p.rowids:
        return "all"
    out: dict[str, Any] = {c: (_plain(v) if op == "eq" else {op: _plain(v)}) for c, op, v in p.terms}
    if len(p.rowids) == 1:
        out["ROWID"] = p.rowids[0]
    elif p.rowids:
        out["ROWID"] = {"in": list(p.rowids)}
    return out


def dump_step(step: Step) -> Any:
    """The YAML form of one step (inverse of :func:`parse_step`)."""
    session = getattr(step, "session", "s1")
    if isinstance(step, Insert):
        body: Any = {"table": step.table, "rows": _plain(step.rows)}
        if step.array:
            body["array"] = True
        if step.lob_pieces != "after":
            body["lob_pieces"] = step.lob_pieces
        item: dict[str, Any] = {"insert": body}
    elif isinstance(step, DirectInsert):
        item = {"direct_insert": {"table": step.table, "rows": _plain(step.rows)}}
    elif isinstance(step, Update):
        item = {"update": {"table": step.table, "set": _plain(step.set), "where": _where_plain(step.where)}}
        if step.lob_pieces != "after":
            item["update"]["lob_pieces"] = step.lob_pieces
    elif isinstance(step, AppendLob):
        body = {"table": step.table, "column": step.column, "value": _plain(step.value)}
        body["where"] = _where_plain(step.where)
        if step.lob_pieces != "after":
            body["lob_pieces"] = step.lob_pieces
        item = {"append_lob": body}
    elif isinstance(step, LobWrite):
        body = {"table": step.table, "column": step.column}
        for name in _LOB_WRITES[f"lob_{step.kind}"]:
            body[name] = _plain(getattr(step, name))
        body["where"] = _where_plain(step.where)
        if step.lob_pieces != "after":
            body["lob_pieces"] = step.lob_pieces
        item = {f"lob_{step.kind}": body}
    elif isinstance(step, Delete):
        body = {"table": step.table, "where": _where_plain(step.where)}
        if step.array:
            body["array"] = True
        item = {"delete": body}
    elif isinstance(step, Commit | Rollback):
        item = {"commit" if isinstance(step, Commit) else "rollback": None}
    elif isinstance(step, Savepoint | RollbackTo):
        item = {"savepoint" if isinstance(step, Savepoint) else "rollback_to": step.name}
    elif isinstance(step, Switch):
        return {"switch": step.thread if step.thread is not None else "all"}
    elif isinstance(step, Ddl):
        item = _ddl_plain(step)
    else:
        return {"sleep": step.seconds}
    if session != "s1":
        item["session"] = session
    return item


def dump_scenario(scenario: Scenario, out: TextIO, *, steps: Iterable[Step] | None = None) -> None:
    """Write the resolved scenario (settings in full, table ids filled in by the caller)."""
    s = scenario.settings
    settings = {f.name: getattr(s, f.name) for f in dataclasses.fields(s) if f.name not in _DATABASE_KEYS}
    settings["noise"] = dataclasses.asdict(s.noise)
    doc: dict[str, Any] = {"name": scenario.name, "settings": settings}
    if (s.charset, s.national_charset) != _DEFAULT_SETS:
        doc["database"] = {"charset": s.charset, "national_charset": s.national_charset}
    if s.supplemental != "primary":
        doc.setdefault("database", {})["supplemental"] = s.supplemental
    if scenario.random is not None:
        doc["random"] = dict(scenario.random)
    doc["tables"] = [_table_plain(t) for t in scenario.tables]
    doc["sessions"] = [{"name": x.name, "thread": x.thread} for x in scenario.sessions]
    out.write(yaml.safe_dump(doc, sort_keys=False, allow_unicode=True))
    if steps is not None:
        out.write("steps:\n")
        for step in steps:
            out.write(yaml.safe_dump([dump_step(step)], sort_keys=False, allow_unicode=True, width=1 << 16))


#: the steps writing through a LOB locator and their arguments besides table, column and where
_LOB_WRITES = {
    "lob_write": ("offset", "value"),
    "lob_trim": ("length",),
    "lob_erase": ("offset", "amount"),
}


def _lob_write(kind: str, args: dict[str, Any], what: str, common: dict[str, str]) -> LobWrite:
    """``lob_write`` / ``lob_trim`` / ``lob_erase``: table, column, where and the call's arguments."""
    table = str(args.get("table") or "")
    column = str(args.get("column") or "")
    if not table or not column:
        raise ScenarioError(f"{what}: {kind} needs a table and a column")
    allowed = {"table", "column", "where", "lob_pieces", *_LOB_WRITES[kind]}
    unknown = sorted(set(args) - allowed)
    if unknown:
        raise ScenarioError(f"{what}: {kind} takes {sorted(allowed)}, not {unknown}")
    for name in _LOB_WRITES[kind]:
        if name not in args:
            raise ScenarioError(f"{what}: {kind} needs {name}")
    pieces = str(args.get("lob_pieces", "after"))
    if pieces not in ("before", "after"):
        raise ScenarioError(f"{what}: lob_pieces must be before or after, not {pieces!r}")
    return LobWrite(
        table=table, column=column, kind=kind.removeprefix("lob_"), where=_where(args.get("where"), what),
        lob_pieces=pieces, **{name: args[name] for name in _LOB_WRITES[kind]}, **common,
    )  # fmt: skip
