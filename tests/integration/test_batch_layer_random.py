"""The batch layer under random operations: uploads (in and out of order, partial, duplicate, from
another database), discovery runs, batch runs, re-runs, backfills of random ranges and kills
between stages, checked after every step against the scenario.

Real parts: a generated workload (binary archived logs, dictionary and the expected trail worked out
from the SQL the generator ran), a real S3 endpoint (moto_server), the real log catalog, discovery,
planning, backfill and re-run resolution (``redo_lib.discovery``), decode and assembly in one process
with the stages' hand-over between them: the Spark decode's task (``redo_lib.batches.decode_unit``)
stages each log's events in ``staging/events``, read back as the assemble tasks read them
(``redo_lib.exchange.bucket_events``, through ``redo_lib.storage.sources.open_parquet``) into the
single-process assembly (``redo_lib.pipeline.assemble_batches``, as ``decode_logs``, the reference
the Spark stages are checked against, runs it), with open transactions carried through the batch
folders' ``open/`` Parquet, and the publish stage's own rules: its refusal
(``spark_jobs.publish.refusal``), the changelog replacing the rows of this batch and of the logs it
covers, the publication token that makes a retry skip what a killed run committed, and the mirror
fold (``spark_jobs.mirror.fold_group``) over the batch's changes and the later ones it replays. What is not run here is Spark itself and the table formats: the few Spark
cases at the end of this file run the real stages (tests/spark/test_backfill.py).

Faults drawn: partial, duplicate and foreign uploads, kills between stages and a damaged staged
events file (truncated, or its end garbled) between decode and assemble: assemble fails with a
``StorageError`` naming the file (``report/failure.json``, nothing published) and the retry runs the
batch from decode again, as the DAG's retry of the stages task does.

After every step: the changelog holds every committed change of the scenario below the watermark
(the next SCN of the last log of the published prefix) exactly once, nothing else, and once no
killed run is left to retry the mirrors equal the scenario's tables at the watermark; logs of the
other database are never in a batch.
"""

from __future__ import annotations

import dataclasses
import json
import random
import shutil
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from redo_lib.batches import (
    UNIT_EXCHANGE,
    Manifest,
    decode_unit,
    load_manifest,
    plan_units,
    read_events,
    write_events,
)
from redo_lib.dictionary import load_dictionary
from redo_lib.discovery import Settings, discover_archive, plan_pending, report_batch, resolve_batch
from redo_lib.discovery.batches import clear_earlier_run, failure_line, read_failure
from redo_lib.errors import LogSetError, RedoError, StorageError
from redo_lib.exchange import bucket_events
from redo_lib.pipeline import assemble_batches, decode_logs, describe_logs
from redo_lib.storage.catalog import LogCatalog
from redo_lib.storage.s3 import s3_client
from redo_lib.synth.generate import generate
from redo_lib.synth.randomized import random_scenario
from redo_lib.trail.schema import commit_log_name, to_arrow, trail_schema
from spark_jobs import mirror
from spark_jobs.common import BatchDir, describe_failure, report_failure
from spark_jobs.publish import refusal

pytest_plugins = ["tests.fixtures.s3"]

# the default suite: 50 cases, about 4.5 minutes of the suite's 55 (150 took 13 of them, the suite's
# largest file; docs/operations.md); `-m slow` runs SLOW_CASES more, of 60 steps
CASES = 50
SLOW_CASES = 1500
STEPS = 24
MIN_DAMAGED = 30  # runs of the default cases failed on a damaged file, at least


@dataclass(frozen=True)
class Workload:
    logs: tuple[Path, ...]  # ours, by sequence
    bounds: tuple[tuple[int, int], ...]  # (first SCN, next SCN) of each of ours
    foreign: tuple[Path, ...]  # logs of another database (other DBID and incarnation)
    dictionary: Path
    expected: tuple[dict[str, Any], ...]  # the expected trail, commit order


def _single_thread(seed: int, steps: int, **settings: Any) -> Any:
    scenario = random_scenario(
        seed,
        steps=steps,
        compat="19c",
        block_size=512,
        big_endian=False,
        log_size=32 << 10,
        direct_load=False,
    )
    sessions = tuple(dataclasses.replace(s, thread=1) for s in scenario.sessions)
    return dataclasses.replace(
        scenario, sessions=sessions, settings=dataclasses.replace(scenario.settings, **settings)
    )


@pytest.fixture(scope="module")
def workload(tmp_path_factory: pytest.TempPathFactory) -> Workload:
    return make_workload(tmp_path_factory)


def make_workload(tmp_path_factory: pytest.TempPathFactory) -> Workload:
    ours = generate(_single_thread(11, 30), tmp_path_factory.mktemp("ours"))
    # another database: other DBID and incarnation, its SCNs below ours (so it would sort first)
    other = generate(
        _single_thread(12, 8, dbid=0x0BAD0002, db_name="OTHERDB", resetlogs_id=77, start_scn=500),
        tmp_path_factory.mktemp("other"),
    )
    refs = describe_logs([str(p) for p in ours.logs])
    expected = [json.loads(line) for line in ours.trail.read_text().splitlines() if line]
    return Workload(
        logs=tuple(Path(r.location) for r in refs),
        bounds=tuple((r.first_scn, r.next_scn or 0) for r in refs),
        foreign=tuple(sorted(other.logs)),
        dictionary=ours.dictionary,
        expected=tuple(expected),
    )


# -- the tables, kept in memory with the publish stage's rules --------------------------------------


def _key(image: dict[str, Any], names: list[str]) -> str:
    return json.dumps([image.get(n) for n in names], separators=(",", ":"))


def _change(row: dict[str, Any]) -> dict[str, Any] | None:
    """A changelog row as ``mirror.changes`` shapes it (None: no row change)."""
    if row["op"] not in ("INSERT", "UPDATE", "DELETE", "PK_UPDATE"):
        return None
    if row["op"] != "DELETE" and row["before_after"] != "A":
        return None
    image = {p["name"]: p["value"] for p in row["columns"]}
    before = {p["name"]: p["value"] for p in row["before"] or ()}
    names = list(row["key_columns"])
    return {
        "source_table": f"{row['owner']}.{row['table']}" if row["owner"] else row["table"],
        "key": _key(image, names),
        "old_key": _key(before, names) if row["op"] == "PK_UPDATE" else None,
        "op": row["op"], "trail_seq": row["trail_seq"], "columns": row["columns"], "before": row["before"],
        "key_columns": names, "rowid": row["rowid"], "commit_scn": row["commit_scn"], "batch_id": row["batch_id"],
    }  # fmt: skip


@dataclass
class Tables:
    changelog: list[dict[str, Any]] = field(default_factory=list)
    mirrors: dict[str, dict[str, dict[str, Any]]] = field(default_factory=dict)
    committed: dict[str, set[str]] = field(default_factory=dict)  # table -> publications
    logs: set[str] = field(default_factory=set)  # every log a changelog commit covered

    def has(self, table: str, publication: str) -> bool:
        return publication in self.committed.get(table, set())

    def commit_changelog(self, rows: list[dict[str, Any]], batch_id: str, logs: set[str], pub: str) -> None:
        kept = [r for r in self.changelog if r["batch_id"] != batch_id and r["commit_log"] not in logs]
        self.changelog = kept + rows
        self.logs |= logs
        self.committed.setdefault("changelog", set()).add(pub)

    def commit_mirrors(self, rows: list[dict[str, Any]], batch_id: str, logs: set[str], pub: str) -> None:
        changes = [c for c in map(_change, rows) if c is not None]
        if not changes:
            return
        floor = min(c["commit_scn"] for c in changes)
        later = [
            c
            for r in self.changelog
            if r["commit_scn"] >= floor and r["batch_id"] != batch_id and r["commit_log"] not in logs
            for c in [_change(r)]
            if c is not None
        ]
        keys = {(c["source_table"], k) for c in changes for k in (c["key"], c["old_key"]) if k}
        for move in sorted((c for c in later if c["op"] == "PK_UPDATE"), key=lambda c: c["commit_scn"]):
            if (move["source_table"], move["old_key"]) in keys:
                keys.add((move["source_table"], move["key"]))
        changes += [c for c in later if (c["source_table"], c["key"]) in keys or
                    (c["source_table"], c["old_key"]) in keys]  # fmt: skip
        for table in sorted({c["source_table"] for c in changes}):
            if self.has(table, pub):
                continue
            held = self.mirrors.setdefault(table, {})
            mine = [c for c in changes if c["source_table"] == table]
            touched = {k for c in mine for k in (c["key"], c["old_key"]) if k}
            existing = [
                {**mine[0], "key": k, "old_key": None, "op": "EXISTING", "trail_seq": -1, "commit_scn": None,
                 "columns": [{"name": n, "value": v} for n, v in held[k].items()], "before": None}
                for k in sorted(touched) if k in held
            ]  # fmt: skip
            folded = mirror.fold_group(pa.Table.from_pylist(existing + mine))
            for out in folded.to_pylist():
                if out["op"] == "D":
                    held.pop(out["key"], None)
                else:
                    held[out["key"]] = {p["name"]: p["value"] for p in out["columns"]}
            self.committed.setdefault(table, set()).add(pub)


# -- the oracle: the scenario's trail folded by plain rules ------------------------------------------


def expected_state(records: list[dict[str, Any]]) -> dict[str, dict[str, dict[str, Any]]]:
    tables: dict[str, dict[str, dict[str, Any]]] = {}
    for r in records:
        if r["op"] not in ("INSERT", "UPDATE", "DELETE", "PK_UPDATE") or r["before_after"] != (
            "B" if r["op"] == "DELETE" else "A"
        ):
            continue
        rows = tables.setdefault(f"{r['owner']}.{r['table']}", {})
        key = _key(r["columns"], r["key_columns"])
        if r["op"] == "INSERT":
            rows[key] = dict(r["columns"])
        elif r["op"] == "DELETE":
            rows.pop(key, None)
        elif r["op"] == "UPDATE":
            rows[key] = {**rows.get(key, {}), **r["columns"]}
        else:
            old = rows.pop(_key(r["before"], r["key_columns"]), {})
            rows[key] = {**old, **r["columns"]}
    return {t: rows for t, rows in tables.items() if rows}


def identity(row: dict[str, Any]) -> tuple[Any, ...]:
    columns = row["columns"]
    if isinstance(columns, list):
        columns = {p["name"]: p["value"] for p in columns}
    return (
        row["xid"],
        row["commit_scn"],
        row["op"],
        row["rowid"],
        row["rba"],
        json.dumps(columns, sort_keys=True),
    )


# -- one case ----------------------------------------------------------------------------------------


class Killed(Exception):
    """A stage process was killed (nothing after the kill point ran)."""


class Failed(Killed):
    """A stage failed with an error a retry may fix (exit 1, its ``report/failure.json`` says why):
    nothing after it ran, and the DAG's retry of the stages task runs the batch from decode again."""


@dataclass
class Case:
    rnd: random.Random
    work: Workload
    settings: Settings
    bucket: str
    tables: Tables = field(default_factory=Tables)
    uploaded: set[str] = field(default_factory=set)
    killed: dict[str, str] = field(default_factory=dict)  # batch id -> stage to resume at
    # where a run may be killed; "damage": a staged events file is damaged before assemble reads it
    kills: tuple[str, ...] = ("decode", "publish-changelog", "publish", "damage")
    log: list[str] = field(default_factory=list)
    damaged: int = 0  # runs whose assemble met a damaged file (and failed, naming it)

    # -- uploads ----------------------------------------------------------------------------------
    def put(self, key: str, data: bytes) -> None:
        s3_client().put_object(Bucket=self.bucket, Key=f"archive/{key}", Body=data)

    def upload(self) -> None:
        rnd, logs = self.rnd, self.work.logs
        missing = [p for p in logs if p.name not in self.uploaded]
        kind = rnd.choice(["next", "next", "any", "partial", "duplicate", "foreign"])
        if kind == "foreign":
            path = rnd.choice(self.work.foreign)
            self.put(f"{path.stem}_{rnd.randrange(9)}.arc", path.read_bytes())  # any name: never trusted
        elif kind == "duplicate" and self.uploaded:
            name = rnd.choice(sorted(self.uploaded))
            self.put(f"copy/{name}", (logs[0].parent / name).read_bytes())
        elif missing:
            path = missing[0] if kind in ("next", "partial") else rnd.choice(missing)
            data = path.read_bytes()
            if kind == "partial":
                self.put(path.name, data[: rnd.randrange(100, len(data))])  # completed by a later upload
                self.log.append(f"upload partial {path.name}")
                return
            self.put(path.name, data)
            self.uploaded.add(path.name)
        self.log.append(f"upload {kind}")

    def upload_all(self) -> None:
        for path in self.work.logs:
            self.put(path.name, path.read_bytes())
            self.uploaded.add(path.name)

    # -- the DAGs' tasks ----------------------------------------------------------------------------
    def discover(self) -> None:
        discover_archive(self.settings)
        try:
            planned = plan_pending(self.settings)
        except LogSetError as exc:  # a gap: nothing planned past it, said so
            planned = []
            if "set REDOTRAIL_DBID" in str(exc):  # two databases on the first run: the operator says
                assert self.settings.dbid is None, exc
                self.settings = dataclasses.replace(self.settings, dbid=self.dbid)
            else:
                assert "missing" in str(exc) or "SCN" in str(exc), exc
        self.log.append(f"discover: planned {planned}")

    def run(self, *, batch_id: str | None = None, seq: tuple[int, int] | None = None) -> None:
        try:
            if seq is None:
                resolved = resolve_batch(self.settings, batch_id=batch_id)
            else:
                resolved = resolve_batch(self.settings, seq_from=seq[0], seq_to=seq[1])
        except RedoError as exc:  # refused at once, with the reason
            self.log.append(f"run {batch_id or seq}: refused: {exc.message}")
            assert exc.message, exc
            return
        self.killed.pop(resolved["batch_id"], None)
        self.stages(resolved["batch_id"], resolved["batch_dir"], "decode")

    def stages(self, batch_id: str, batch_dir: str, start: str) -> None:
        order = ["decode", "validate", "publish"]
        kill = self.rnd.choice([None, None, None, *self.kills])
        try:
            for stage in order[order.index(start) :]:
                getattr(self, f"stage_{stage}")(batch_id, Path(batch_dir), kill)
        except Failed as exc:
            self.killed[batch_id] = "decode"
            self.log.append(f"run {batch_id}: failed: {exc}")
            return
        except Killed as exc:
            self.killed[batch_id] = str(exc)
            self.log.append(f"run {batch_id}: killed in {exc}")
            return
        with LogCatalog(self.settings.catalog_db) as catalog:
            status = catalog.get_batch(batch_id)
        result = report_batch(self.settings, batch_id)
        self.log.append(f"run {batch_id}: {result['status']} (was {status.status if status else None})")

    def retry(self) -> None:
        """A killed stage run again (Airflow's retry: the same manifest, the same publication)."""
        batch_id = self.rnd.choice(sorted(self.killed))
        stage = self.killed.pop(batch_id)
        self.log.append(f"retry {batch_id} at {stage}")
        with LogCatalog(self.settings.catalog_db) as catalog:
            batch = catalog.get_batch(batch_id)
        assert batch is not None
        self.stages(batch_id, batch.batch_dir, "publish" if stage.startswith("publish") else stage)

    def stage_decode(self, batch_id: str, folder: Path, kill: str | None) -> None:
        """decode, then assemble, in one process, state carried through the batch folders: decode
        stages each log's events (``decode_unit``, the Spark decode's task, one bucket:
        ``staging/events/<unit>.parquet``, what ``staging/units.json`` says of them), assemble reads
        them back as its tasks do (``bucket_events``: ``open_parquet``) into the reference assembly."""
        manifest = load_manifest(folder)
        shutil.rmtree(folder / "staging", ignore_errors=True)  # a rerun replaces the staged events
        units = [decode_unit(unit, str(folder), "raise", 1) for unit in plan_units(manifest)]
        staged = [{**u["unit"], **{k: u[k] for k in UNIT_EXCHANGE}} for u in units]
        damaged = self.damage(staged) if kill == "damage" else None
        clear_earlier_run(str(folder), "assemble")  # run_stage: an earlier attempt's failure.json
        try:
            self.assemble(batch_id, folder, manifest, staged)
        except RedoError as exc:
            if damaged is None:
                raise
            self.failed_on(damaged, folder, exc)
        assert damaged is None, f"assemble read the damaged {damaged} without an error"
        if kill == "decode":
            raise Killed("decode")

    def damage(self, staged: list[dict[str, Any]]) -> str | None:
        """Truncate one staged events file that assemble reads (one with events), or garble its end
        (the footer: its length and magic bytes). Returns its location (None: no events staged)."""
        files = [u["file"] for u in staged if u["groups"]]
        if not files:
            return None
        path = Path(self.rnd.choice(files))
        data = path.read_bytes()
        if self.rnd.random() < 0.5:
            cut = self.rnd.randrange(len(data))
            path.write_bytes(data[:cut])
            how = f"truncated to {cut} of {len(data)} bytes"
        else:
            n = self.rnd.randint(4, min(64, len(data)))
            junk = bytes(self.rnd.randrange(256) for _ in range(n))
            junk = junk[:-4] + (b"PAR0" if junk[-4:] == b"PAR1" else junk[-4:])
            path.write_bytes(data[:-n] + junk)
            how = f"last {n} of {len(data)} bytes garbled"
        self.log.append(f"damaged {path.name}: {how}")
        return str(path)

    def failed_on(self, damaged: str, folder: Path, exc: RedoError) -> None:
        """What the assemble stage does with the error (``spark_jobs.common.run_stage``), checked: a
        ``StorageError`` naming the damaged file, reported in ``report/failure.json`` as one a retry
        may fix, nothing published; the run stops (:class:`Failed`) and the batch waits for its retry."""
        assert isinstance(exc, StorageError), f"{type(exc).__name__}: {exc}"
        assert exc.position.file == damaged and damaged in str(exc), exc
        report_failure(folder, "assemble", **describe_failure(exc))
        failure = read_failure(str(folder))
        assert failure is not None and failure["retryable"] and failure["published"] == "nothing", failure
        line = failure_line(failure)
        assert line.startswith("assemble failed: ") and damaged in line, line
        assert not (folder / "VALIDATED").exists() and not (folder / "PUBLISHED").exists()
        self.damaged += 1
        raise Failed(line) from None

    def assemble(self, batch_id: str, folder: Path, manifest: Manifest, staged: list[dict[str, Any]]) -> None:
        carried = []
        if manifest.carried_in:
            for part in sorted(Path(manifest.carried_in).glob("*.parquet")):
                carried += list(read_events(part))
        result = assemble_batches(
            bucket_events(staged, [0]), load_dictionary(self.work.dictionary), carried=carried
        )
        rid = manifest.logs[0].resetlogs_id
        logs = [commit_log_name(t, s, rid) for t, s in result.commits]
        (folder / "trail").mkdir(parents=True, exist_ok=True)
        pq.write_table(
            to_arrow(result.trail, batch_id=batch_id, commit_logs=logs),
            folder / "trail" / "part-00000.parquet",
        )
        write_events(result.carried_out, folder / "open" / "part-00000.parquet")

    def stage_validate(self, batch_id: str, folder: Path, kill: str | None) -> None:
        BatchDir(folder).write_text("{}", "VALIDATED")  # the GE suite is the Spark cases' subject

    def stage_publish(self, batch_id: str, folder: Path, kill: str | None) -> None:
        batch = BatchDir(folder)
        manifest = json.loads((folder / "manifest.json").read_text())
        if refusal(batch, manifest):
            self.log.append(f"publish {batch_id}: refused: {refusal(batch, manifest)}")
            return
        publication = manifest["publication"]
        rows = pq.read_table(folder / "trail").to_pylist()
        logs = {commit_log_name(e["thread"], e["sequence"], e["resetlogs_id"]) for e in manifest["logs"]}
        if not self.tables.has("changelog", publication):
            self.tables.commit_changelog(rows, batch_id, logs, publication)
        if kill == "publish-changelog":
            raise Killed("publish-changelog")
        self.tables.commit_mirrors(rows, batch_id, logs, publication)
        if kill == "publish":
            raise Killed("publish")
        batch.write_json({"batch_id": batch_id}, "PUBLISHED")

    # -- the check --------------------------------------------------------------------------------
    def check(self) -> None:
        with LogCatalog(self.settings.catalog_db) as catalog:
            batched = {e.location for b in catalog.batches() for e in catalog.batch_logs(b.batch_id)}
            foreign = {e.location for e in catalog.logs() if e.dbid is not None and e.dbid != self.dbid}
        assert not batched & foreign, f"logs of another database in a batch: {sorted(batched & foreign)}"
        published = sorted(self.covered())
        # the changelog's logs: a prefix of the sequences (commits exist in most logs, not all)
        watermark = 0
        for seq, (_first, nxt) in enumerate(self.work.bounds, start=1):
            if published and seq <= published[-1]:
                watermark = nxt
        want = [r for r in self.work.expected if r["commit_scn"] < watermark]
        got = Counter(identity(r) for r in self.tables.changelog)
        dup = [k for k, n in got.items() if n > 1]
        assert not dup, f"changelog holds {len(dup)} changes twice: {dup[:2]}"
        assert set(got) == {identity(r) for r in want}, (
            f"changelog: {len(got)} rows, expected {len(want)} below SCN {watermark}"
        )
        if not self.killed and not self.half_published():  # a mirror holds no "not present": non-null values
            assert _non_null(self.tables.mirrors_view()) == _non_null(
                self.tables.expected_view(expected_state(want))
            )

    def half_published(self) -> list[str]:
        """Batches not published whose publication the changelog holds: a publish stopped after the
        changelog's commit whose retry was refused (its previous batch was being re-run); the mirrors
        wait for the batch's next run, as the pipeline does (later batches refuse to start)."""
        with LogCatalog(self.settings.catalog_db) as catalog:
            pending = [b for b in catalog.batches() if b.status.value != "published" and b.batch_dir]
        out = []
        for batch in pending:
            manifest = Path(batch.batch_dir) / "manifest.json"
            publication = json.loads(manifest.read_text()).get("publication") if manifest.exists() else None
            if publication and self.tables.has("changelog", publication):
                out.append(batch.batch_id)
        return out

    def covered(self) -> set[int]:
        """The sequences of the logs whose changes the changelog took (with commits or not)."""
        return {int(name.split("_")[1]) for name in self.tables.logs}

    @property
    def dbid(self) -> int:
        return describe_dbid(self.work.logs[0])


def _non_null(tables: dict[str, dict[str, dict[str, Any]]]) -> dict[str, dict[str, dict[str, Any]]]:
    return {
        t: {k: {c: v for c, v in row.items() if v is not None} for k, row in rows.items()}
        for t, rows in tables.items()
    }


def describe_dbid(path: Path) -> int:
    from redo_lib.pipeline import open_source, read_header

    return read_header(open_source(str(path))).dbid


def _mirrors_view(self: Tables) -> dict[str, dict[str, dict[str, Any]]]:
    return {t: dict(rows) for t, rows in self.mirrors.items() if rows}


def _expected_view(
    self: Tables, state: dict[str, dict[str, dict[str, Any]]]
) -> dict[str, dict[str, dict[str, Any]]]:
    """The expected state as ``mirrors_view`` shows it (here: the trail's text, as the model holds it)."""
    return state


Tables.mirrors_view = _mirrors_view  # type: ignore[attr-defined]
Tables.expected_view = _expected_view  # type: ignore[attr-defined]


def run_case(
    seed: int, work: Workload, root: Path, steps: int = STEPS, make: Callable[..., Case] = Case
) -> Case:
    rnd = random.Random(seed)
    bucket = f"case-{seed}"
    s3_client().create_bucket(Bucket=bucket)
    settings = Settings(
        archive_url=f"s3://{bucket}/archive/", work_dir=str(root / "work"), catalog_db=str(root / "logs.sqlite"),
        warehouse="unused", dictionary=str(work.dictionary), max_logs_per_batch=rnd.randint(1, 4),
        max_batches_per_run=rnd.randint(1, 3), dbid=describe_dbid(work.logs[0]) if rnd.random() < 0.3 else None,
    )  # fmt: skip
    case = make(rnd, work, settings, bucket)
    # the pipeline starts at the first log: the first discovery's lowest sequence is where the chain
    # of batches begins (docs/operations.md), so out-of-order uploads come after it
    case.put(work.logs[0].name, work.logs[0].read_bytes())
    case.uploaded.add(work.logs[0].name)
    n = len(work.logs)
    actions = [
        "upload",
        "upload",
        "upload",
        "discover",
        "discover",
        "run",
        "run",
        "rerun",
        "backfill",
        "retry",
    ]
    try:
        for _ in range(steps):
            action = rnd.choice(actions)
            if action == "upload":
                case.upload()
            elif action == "discover":
                case.discover()
            elif action in ("run", "rerun"):
                with LogCatalog(settings.catalog_db) as catalog:
                    batches = catalog.batches()
                if not batches:
                    continue
                waiting = [b.batch_id for b in batches if b.status.value in ("planned", "failed", "running")]
                pick = waiting[0] if action == "run" and waiting else rnd.choice(batches).batch_id
                case.run(batch_id=pick)
            elif action == "backfill":
                a = rnd.randint(1, n)
                case.run(seq=(a, rnd.randint(a, min(n, a + 5))))
            elif action == "retry" and case.killed:
                case.retry()
            case.check()
        # then everything arrives and is worked off: the whole scenario, exactly once
        case.upload_all()
        for _ in range(3 * n):
            while case.killed:
                case.retry()
            case.discover()
            with LogCatalog(settings.catalog_db) as catalog:
                waiting = [b.batch_id for b in catalog.batches() if b.status.value != "published"]
            if waiting:
                case.run(batch_id=waiting[0])
            elif len(case.covered()) == n:
                break
            case.check()
        case.check()
        assert {r["commit_log"] for r in case.tables.changelog} and len(case.tables.changelog) == len(
            work.expected
        )
    except Exception as exc:
        raise AssertionError(
            f"seed {seed}: {type(exc).__name__}: {exc}\nsteps:\n  " + "\n  ".join(case.log)
        ) from None
    return case


def _seeds(count: int, base: int = 0) -> Iterator[int]:
    return iter(range(base, base + count))


DRAWN: Counter[str] = Counter()  # what the default cases met: cases run, runs failed on a damaged file


@pytest.mark.parametrize("seed", list(_seeds(CASES)))
def test_random_batch_layer(seed: int, workload: Workload, s3_endpoint: str, tmp_path: Path) -> None:
    case = run_case(seed, workload, tmp_path)
    DRAWN.update(cases=1, damaged=case.damaged)


def test_the_default_cases_draw_damaged_files() -> None:
    """The default cases met damaged staged events files, each failing its run naming the file and
    worked off by the retry (run after them, in this session: skipped when only some of them ran)."""
    if DRAWN["cases"] != CASES:
        pytest.skip(f"{DRAWN['cases']} of the {CASES} default cases ran in this session")
    assert DRAWN["damaged"] >= MIN_DAMAGED, DRAWN


@pytest.mark.slow
@pytest.mark.parametrize("seed", list(_seeds(SLOW_CASES, base=10_000)))
def test_random_batch_layer_long(seed: int, workload: Workload, s3_endpoint: str, tmp_path: Path) -> None:
    run_case(seed, workload, tmp_path, steps=60)


def test_the_workload_is_what_the_oracle_expects(workload: Workload) -> None:
    """The oracle's fold of the whole expected trail is the generator's final table state, and the
    workload has what the cases need: several logs, a transaction open across a log switch."""
    tables = workload.dictionary.parent / "expected" / "tables"
    final = expected_state(list(workload.expected))
    for path in tables.glob("*.jsonl"):
        rows = [json.loads(line) for line in path.read_text().splitlines() if line]
        want = sorted(json.dumps(r, sort_keys=True) for r in rows)
        assert sorted(json.dumps(r, sort_keys=True) for r in final.get(path.stem, {}).values()) == want
    assert len(workload.logs) >= 6
    assert decode_logs([str(p) for p in workload.logs[:2]], workload.dictionary).carried_out


def test_trail_schema_names_the_commit_log() -> None:
    assert "commit_log" in trail_schema().names
