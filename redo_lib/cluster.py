"""The cluster profile on one machine: ``./redotrail cluster up | down | status | env``.

What users deploy, brought up as separate processes that share no local disk
(shared/docs/deployment.md): PostgreSQL from Debian's packages (the Airflow metadata database
``airflow`` and Redotrail's ``redotrail``: log catalog and Iceberg JDBC catalog), ``moto_server`` as the
S3 endpoint (archive, batch folders and warehouse under ``s3://``), a standalone Spark master with two
workers (each its own process with its own work and local dirs), and Airflow's scheduler,
dag-processor and api-server with the LocalExecutor on PostgreSQL.

Everything lives under ``<data>/cluster/`` (``state.json`` names the processes, ports and the
environment a client needs: ``./redotrail cluster env`` prints it as ``export`` lines). Ports are
free ones of 127.0.0.1 chosen at ``up``. ``down`` stops every process (and PostgreSQL cleanly), keeping
the databases for the next ``up``; ``down --purge`` deletes the profile's files as well.

Layer "top": starts processes; imports only ``storage.local_s3`` (the moto launcher).
"""

from __future__ import annotations

import argparse
import hashlib
import importlib.util
import json
import os
import pwd
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from redo_lib.errors import RedoError
from redo_lib.storage.local_s3 import free_port

REPO = Path(__file__).resolve().parents[1]
PG_USER = "redotrail"  # bootstrap superuser of the throwaway server; trust authentication
DATABASES = ("airflow", "redotrail")
BUCKETS = ("redo-archive", "redotrail")


class ClusterError(RedoError):
    """A service of the cluster profile did not start (its log file is named)."""

    kind = "cluster"


@dataclass
class Process:
    name: str
    pid: int
    log: str


@dataclass
class Cluster:
    """The cluster profile under ``root`` (default ``<repo>/data/cluster``)."""

    root: Path
    ports: dict[str, int] = field(default_factory=dict)
    processes: list[Process] = field(default_factory=list)
    # the Popen objects of the processes this object started (reaped by down(); without them a
    # still-running child would be garbage-collected with a ResourceWarning)
    _children: list[subprocess.Popen[bytes]] = field(default_factory=list, repr=False)

    # -- state ----------------------------------------------------------------------------------
    @property
    def state_file(self) -> Path:
        return self.root / "state.json"

    @classmethod
    def load(cls, root: Path) -> Cluster:
        cluster = cls(root)
        if cluster.state_file.exists():
            doc = json.loads(cluster.state_file.read_text())
            cluster.ports = {k: int(v) for k, v in doc["ports"].items()}
            cluster.processes = [Process(**p) for p in doc["processes"]]
        return cluster

    def save(self) -> None:
        self.root.mkdir(parents=True, exist_ok=True)
        doc = {"ports": self.ports, "processes": [vars(p) for p in self.processes], "env": self.env()}
        self.state_file.write_text(json.dumps(doc, indent=2) + "\n")

    def running(self) -> list[Process]:
        return [p for p in self.processes if _alive(p.pid)]

    # -- what clients need --------------------------------------------------------------------------
    def env(self) -> dict[str, str]:
        """The environment of every Airflow and Spark process of the profile (and of a user's shell)."""
        p = self.ports
        pg = f"postgresql+psycopg://{PG_USER}@127.0.0.1:{p['postgres']}"
        s3 = f"http://127.0.0.1:{p['s3']}"
        # the caller's own REDOTRAIL_* settings (dictionary, batch sizes, ...) reach every process too
        passed = {
            k: v for k, v in os.environ.items() if k.startswith("REDOTRAIL_") and k != "REDOTRAIL_DATA_DIR"
        }
        return (
            passed
            | {
                "AWS_ENDPOINT_URL": s3,
                "AWS_ACCESS_KEY_ID": "redotrail",
                "AWS_SECRET_ACCESS_KEY": "redotrail",
                "AWS_DEFAULT_REGION": "us-east-1",
                "SPARK_LOCAL_IP": "127.0.0.1",
                "PYSPARK_PYTHON": sys.executable,
                # spark-submit and airflow of this environment, however the caller was started
                "PATH": os.pathsep.join([str(Path(sys.executable).parent), os.environ.get("PATH", "")]),
                "TZ": "UTC",
                "GX_ANALYTICS_ENABLED": "false",
                "REDOTRAIL_DATA_DIR": str(self.root),
                "REDOTRAIL_ARCHIVE_URL": "s3://redo-archive/archive/",
                "REDOTRAIL_WORK_DIR": "s3://redotrail/work",
                "REDOTRAIL_WAREHOUSE": "s3://redotrail/warehouse",
                "REDOTRAIL_CATALOG_DB": f"{pg}/redotrail",
                "REDOTRAIL_ICEBERG_CATALOG_URI": f"jdbc:postgresql://127.0.0.1:{p['postgres']}/redotrail?user={PG_USER}",
                "AIRFLOW_HOME": str(self.root / "airflow"),
                "AIRFLOW__CORE__DAGS_FOLDER": str(REPO / "dags"),
                "AIRFLOW__CORE__LOAD_EXAMPLES": "False",
                "AIRFLOW__CORE__EXECUTOR": "LocalExecutor",
                "AIRFLOW__CORE__PARALLELISM": "4",
                "AIRFLOW__DATABASE__SQL_ALCHEMY_CONN": f"{pg}/airflow",
                "AIRFLOW__DATABASE__SQL_ALCHEMY_CONN_ASYNC": f"{pg}/airflow",  # psycopg 3 is async too (no asyncpg)
                "AIRFLOW__API__HOST": "127.0.0.1",
                "AIRFLOW__API__PORT": str(p["airflow"]),
                "AIRFLOW__API__BASE_URL": f"http://127.0.0.1:{p['airflow']}",
                "AIRFLOW__CORE__EXECUTION_API_SERVER_URL": f"http://127.0.0.1:{p['airflow']}/execution/",
                "AIRFLOW__CORE__SIMPLE_AUTH_MANAGER_ALL_ADMINS": "True",  # a local profile: no login
                "AIRFLOW__CORE__DAGS_ARE_PAUSED_AT_CREATION": "True",
                "REDOTRAIL_DISCOVERY_SCHEDULE": os.environ.get("REDOTRAIL_DISCOVERY_SCHEDULE")
                or "*/5 * * * *",
                "AIRFLOW__LOGGING__LOGGING_LEVEL": "INFO",  # the task logs carry spark-submit's output
                "AIRFLOW_CONN_SPARK_DEFAULT": json.dumps(
                    {
                        "conn_type": "spark",
                        "host": f"spark://127.0.0.1:{p['spark']}",
                        "extra": {"deploy-mode": "client"},
                    }
                ),
            }
        )

    # -- up / down ----------------------------------------------------------------------------------
    def up(self, *, airflow: bool = True, progress: Callable[[str], None] = print) -> dict[str, str]:
        """Start every service that is not running; returns the client environment."""
        if self.running():
            raise ClusterError(
                f"the cluster profile under {self.root} is up already (./redotrail cluster down)"
            )
        self.root.mkdir(parents=True, exist_ok=True)
        self.ports = {n: free_port() for n in ("postgres", "s3", "spark", "spark_ui", "airflow")}
        self.processes = []
        try:
            progress(f"postgresql on 127.0.0.1:{self.ports['postgres']}")
            self._postgres()
            progress(f"moto_server (S3) on 127.0.0.1:{self.ports['s3']}")
            self._s3()
            progress(f"spark master spark://127.0.0.1:{self.ports['spark']} and two workers")
            self._spark()
            if airflow:
                progress(
                    f"airflow scheduler, dag-processor, api-server on http://127.0.0.1:{self.ports['airflow']}"
                )
                self._airflow()
        except BaseException:
            self.save()
            self.down(progress=lambda _: None)
            raise
        self.save()
        return self.env()

    def down(self, *, purge: bool = False, progress: Callable[[str], None] = print) -> None:
        """Stop every process of the profile at once, then PostgreSQL (a fast shutdown).

        PostgreSQL goes last: Airflow's services shut down through their database, and without it each
        waited out its SIGTERM grace (the profile's ``down`` took over two minutes).

        ``purge``: then delete ``root`` and PostgreSQL's folder, which is outside ``root`` when
        ``root`` is private to its owner (``pg_home``) and would otherwise outlive it in the temp
        folder (tests' clusters left 56 MB each there)."""
        alive = [proc for proc in reversed(self.processes) if _alive(proc.pid)]
        for proc in alive:
            progress(f"stopping {proc.name} (pid {proc.pid})")
        _stop([proc.pid for proc in alive])
        for child in self._children:
            child.wait(timeout=30)
        self._children = []
        self.processes = []
        pg = self.pg_home / "data"
        if (pg / "postmaster.pid").exists():
            _, pg_ctl = pg_binaries()
            subprocess.run([*run_as(), pg_ctl, "-D", str(pg), "-m", "fast", "-w", "stop"],
                           capture_output=True, timeout=60, check=False)  # fmt: skip
        if self.state_file.exists():
            self.state_file.unlink()
        if purge:
            for folder in (self.pg_home, self.root):
                progress(f"deleting {folder}")
                shutil.rmtree(folder, ignore_errors=True)

    # -- services -------------------------------------------------------------------------------------
    def _spawn(self, name: str, argv: Sequence[str], env: dict[str, str] | None = None) -> Process:
        logs = self.root / "logs"
        logs.mkdir(parents=True, exist_ok=True)
        log = logs / f"{name}.log"
        with log.open("ab") as out:
            proc = subprocess.Popen(
                list(argv), stdout=out, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                env={**os.environ, **(env or {})}, cwd=REPO, start_new_session=True,
            )  # fmt: skip
        self._children.append(proc)
        entry = Process(name, proc.pid, str(log))
        self.processes.append(entry)
        self.save()
        return entry

    @property
    def driver_dir(self) -> Path:
        """The local dir of the Spark drivers that Airflow's tasks start."""
        return self.root / "driver" / "local"

    def worker_dirs(self, n: int) -> tuple[Path, Path]:
        """Spark worker ``n``'s work dir (its executors' files) and local dir (their scratch files)."""
        return self.root / f"worker{n}" / "work", self.root / f"worker{n}" / "local"

    @property
    def pg_home(self) -> Path:
        """PostgreSQL's folder: ``<root>/postgres``, or, when its unprivileged user cannot reach
        ``root`` (a private temp folder of root's), one of its own named after ``root``."""
        home = self.root / "postgres"
        prefix = run_as()
        if not prefix or subprocess.run([*prefix, "test", "-x", str(self.root)], check=False).returncode == 0:
            return home
        digest = hashlib.sha1(str(self.root.resolve()).encode()).hexdigest()[:12]
        return Path(tempfile.gettempdir()) / f"redotrail-pg-{digest}"

    def _postgres(self) -> None:
        initdb, pg_ctl = pg_binaries()
        prefix = run_as()
        home = self.pg_home
        data = home / "data"
        if not (data / "PG_VERSION").exists():
            home.mkdir(parents=True, exist_ok=True)
            if prefix:
                user = prefix[2]
                shutil.chown(home, user=user, group=pwd.getpwnam(user).pw_gid)
            check([*prefix, initdb, "-D", str(data), "-U", PG_USER, "-A", "trust", "-E", "UTF8"], "initdb")
        options = f"-h 127.0.0.1 -p {self.ports['postgres']} -k {home}"
        log = home / "server.log"
        check(
            [*prefix, pg_ctl, "-D", str(data), "-l", str(log), "-o", options, "-w", "start"],
            "pg_ctl start",
            log,
        )
        import psycopg

        url = f"postgresql://{PG_USER}@127.0.0.1:{self.ports['postgres']}/postgres"
        with psycopg.connect(url, autocommit=True) as conn:
            for name in DATABASES:
                if conn.execute("SELECT 1 FROM pg_database WHERE datname = %s", (name,)).fetchone() is None:
                    conn.execute(f'CREATE DATABASE "{name}"')

    def _s3(self) -> None:
        exe = shutil.which("moto_server") or str(Path(sys.executable).with_name("moto_server"))
        self._spawn("moto_server", [exe, "-H", "127.0.0.1", "-p", str(self.ports["s3"])])
        url = f"http://127.0.0.1:{self.ports['s3']}"
        _wait(
            lambda: _http_ok(url + "/moto-api/"),
            30,
            f"moto_server on {url}",
            self.root / "logs/moto_server.log",
        )
        import boto3

        client = boto3.client("s3", endpoint_url=url, aws_access_key_id="redotrail",
                              aws_secret_access_key="redotrail", region_name="us-east-1")  # fmt: skip
        for bucket in BUCKETS:
            client.create_bucket(Bucket=bucket)

    def _spark(self) -> None:
        # where pip put Spark (bin/spark-class, jars/): located, not imported (redo_lib stays free of
        # pyspark)
        spec = importlib.util.find_spec("pyspark")
        if spec is None or spec.origin is None:
            raise ClusterError("pyspark is not installed in this environment (./redotrail setup)")
        home = Path(spec.origin).parent
        spark_class = str(home / "bin" / "spark-class")
        env = {"SPARK_HOME": str(home), "SPARK_LOCAL_IP": "127.0.0.1", "PYSPARK_PYTHON": sys.executable}
        master = f"spark://127.0.0.1:{self.ports['spark']}"
        self._spawn("spark-master", [spark_class, "org.apache.spark.deploy.master.Master", "--host", "127.0.0.1",
                                     "--port", str(self.ports["spark"]), "--webui-port", str(self.ports["spark_ui"])],
                    env)  # fmt: skip
        for n in (1, 2):  # separate processes, separate work and local dirs: no shared local disk
            work, local = self.worker_dirs(n)
            work.mkdir(parents=True, exist_ok=True)
            local.mkdir(parents=True, exist_ok=True)
            self._spawn(f"spark-worker{n}", [spark_class, "org.apache.spark.deploy.worker.Worker", "--host",
                                             "127.0.0.1", "--cores", "1", "--memory", "2g", "--work-dir", str(work),
                                             "--webui-port", str(free_port()), master],
                        {**env, **self.env(), "SPARK_LOCAL_DIRS": str(local)})  # fmt: skip
        ui = f"http://127.0.0.1:{self.ports['spark_ui']}/json/"
        _wait(lambda: _alive_workers(ui) >= 2, 90, f"two Spark workers registered at {master}",
              self.root / "logs/spark-master.log")  # fmt: skip

    def _airflow(self) -> None:
        # the Spark drivers of the Airflow tasks (client mode) keep their scratch files here, apart
        # from the workers' dirs (a test empties all of them between runs)
        self.driver_dir.mkdir(parents=True, exist_ok=True)
        env = {**self.env(), "SPARK_LOCAL_DIRS": str(self.driver_dir)}
        airflow = str(Path(sys.executable).with_name("airflow"))
        (self.root / "airflow").mkdir(parents=True, exist_ok=True)
        migrate = subprocess.run([airflow, "db", "migrate"], env={**os.environ, **env}, capture_output=True,
                                 text=True, cwd=REPO, check=False)  # fmt: skip
        if migrate.returncode != 0:
            raise ClusterError(f"airflow db migrate failed: {(migrate.stdout + migrate.stderr)[-2000:]}")
        for service in ("api-server", "scheduler", "dag-processor"):
            self._spawn(f"airflow-{service}", [airflow, service], env)
        url = f"http://127.0.0.1:{self.ports['airflow']}/api/v2/monitor/health"
        _wait(
            lambda: _http_ok(url),
            180,
            f"the Airflow api-server at {url}",
            self.root / "logs/airflow-api-server.log",
        )


# -- helpers ------------------------------------------------------------------------------------------


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except OSError:
        return False
    return True


def _stop(pids: Sequence[int], timeout: float = 20) -> None:
    """SIGTERM every process group, SIGKILL the ones left after ``timeout`` (one wait for all)."""
    signalled = []
    for pid in pids:
        try:
            os.killpg(pid, signal.SIGTERM)
            signalled.append(pid)
        except OSError:
            pass
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline and any(_alive(pid) for pid in signalled):
        time.sleep(0.2)
    for pid in signalled:
        if _alive(pid):
            try:
                os.killpg(pid, signal.SIGKILL)
            except OSError:
                pass


def pg_binaries() -> tuple[str, str]:
    initdb, pg_ctl = shutil.which("initdb"), shutil.which("pg_ctl")
    if not (initdb and pg_ctl):
        for bindir in sorted(Path("/usr/lib/postgresql").glob("*/bin"), key=lambda d: int(d.parent.name)):
            if (bindir / "initdb").exists():
                initdb, pg_ctl = str(bindir / "initdb"), str(bindir / "pg_ctl")
    if not (initdb and pg_ctl):
        raise ClusterError("PostgreSQL is not installed (initdb, pg_ctl): apt-get install postgresql")
    return initdb, pg_ctl


def run_as() -> list[str]:
    """PostgreSQL refuses to run as root: as root, run it as the ``postgres`` (or ``nobody``) user."""
    if os.geteuid() != 0:
        return []
    for user in ("postgres", "nobody"):
        try:
            pwd.getpwnam(user)
        except KeyError:
            continue
        return ["runuser", "-u", user, "--"]
    raise ClusterError("running as root, and no 'postgres' or 'nobody' user exists to run PostgreSQL")


def check(argv: list[str], what: str, log: Path | None = None) -> None:
    done = subprocess.run(argv, capture_output=True, text=True, timeout=120, check=False)
    if done.returncode != 0:
        tail = log.read_text(errors="replace")[-2000:] if log is not None and log.exists() else ""
        raise ClusterError(f"{what} failed (exit {done.returncode}): {done.stdout}{done.stderr}{tail}")


def _http_ok(url: str) -> bool:
    try:
        with urllib.request.urlopen(url, timeout=2) as response:
            return bool(200 <= response.status < 300)
    except OSError:
        return False


def _alive_workers(url: str) -> int:
    try:
        with urllib.request.urlopen(url, timeout=2) as response:
            doc: dict[str, Any] = json.load(response)
    except (OSError, ValueError):
        return 0
    return sum(1 for w in doc.get("workers", ()) if w.get("state") == "ALIVE")


def _wait(ready: Callable[[], bool], timeout: float, what: str, log: Path) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if ready():
            return
        time.sleep(0.5)
    tail = log.read_text(errors="replace")[-2000:] if log.exists() else "(no log)"
    raise ClusterError(f"{what} not up within {timeout:.0f} s; log {log}:\n{tail}")


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="redotrail cluster", description=__doc__.splitlines()[0])
    parser.add_argument("command", choices=("up", "down", "status", "env"))
    parser.add_argument(
        "--root", type=Path, default=Path(os.environ.get("REDOTRAIL_DATA_DIR") or REPO / "data") / "cluster"
    )
    parser.add_argument("--no-airflow", action="store_true", help="up: PostgreSQL, S3 and Spark only")
    parser.add_argument(
        "--purge",
        action="store_true",
        help="down: also delete the profile's databases, logs and workers' dirs",
    )
    args = parser.parse_args(argv)
    cluster = Cluster.load(args.root)
    try:
        if args.command == "up":
            env = cluster.up(airflow=not args.no_airflow)
            print(
                f"cluster profile up; ./redotrail cluster env prints its environment ({cluster.state_file})"
            )
            print(
                f"Airflow: {env['AIRFLOW__API__BASE_URL']}  Spark: {json.loads(env['AIRFLOW_CONN_SPARK_DEFAULT'])['host']}"
            )
        elif args.command == "down":
            cluster.down(purge=args.purge)
            print("cluster profile down" + (f"; {args.root} deleted" if args.purge else ""))
        elif args.command == "status":
            for proc in cluster.processes:
                print(f"{proc.name:20} pid {proc.pid:<8} {'up' if _alive(proc.pid) else 'DOWN'}  {proc.log}")
            if not cluster.processes:
                print("cluster profile is down")
        else:
            if not cluster.processes:
                print("cluster profile is down", file=sys.stderr)
                return 1
            for key, value in cluster.env().items():
                print(f"export {key}={_quote(value)}")
    except RedoError as exc:
        print(f"redotrail cluster {args.command}: {exc}", file=sys.stderr)
        return 1
    return 0


def _quote(value: str) -> str:
    return "'" + value.replace("'", "'\\''") + "'"


if __name__ == "__main__":
    sys.exit(main())
