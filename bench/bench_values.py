"""Column values rendered to trail text: the Python codecs (``codecs.decode_value``) against the Rust
core (``native.render_value`` one call per value, ``native.render_values`` one call per list of a
type), on the same mix of values in one run. Values per CPU-second of the process.

    .venv/bin/python bench/bench_values.py [--values 200000] [--seed 16] [--seconds 3] [--dump FILE]

``--dump FILE`` also writes the mix for the core alone, without Python (``crates/redo-core/tests/
values_rate.rs``): ``cd crates && REDO_VALUES_MIX=FILE cargo test --release -p redo-core --test
values_rate -- --ignored --nocapture``. Each value: be16 type code, u8 charset name length, the
name, be32 data length, the data.

The mix: the generator's column types in about the proportions of its typed tables, each value
written by ``encode_value`` from a seeded random value: NUMBER (integers, decimals with a fraction,
negatives) 30%, VARCHAR2 in AL32UTF8 (ASCII and some accented text) 25%, CHAR 5%, DATE 10%,
TIMESTAMP 10%, TIMESTAMP WITH TIME ZONE 3%, BINARY_DOUBLE 5%, BINARY_FLOAT 2%, RAW 3%, CLOB data
in AL16UTF16 2%, INTERVAL DAY TO SECOND 2%, UROWID 3%. Every figure checks that both give the same
texts. Each measurement repeats until ``--seconds`` of CPU time have passed.
"""

from __future__ import annotations

import argparse
import datetime
import decimal
import random
import resource
import sys
from collections.abc import Callable
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from redo_lib.native import native  # noqa: E402
from redo_lib.values.codecs import decode_value, encode_value  # noqa: E402
from redo_lib.values.rowids import RowId  # noqa: E402

Value = tuple[int, bytes, str]

_WORDS = ["Jordan", "Sherwood", "Chemistry", "Media Studies", "café", "Ünïcödé", "OWNER1", "x" * 40]


def _mix(count: int, seed: int) -> list[Value]:
    rnd = random.Random(seed)
    base = datetime.datetime(2024, 1, 15, 10, 20, 30)
    makers: list[tuple[float, Callable[[], Value]]] = [
        (0.30, lambda: (2, encode_value(2, rnd.choice([rnd.randint(-(10**9), 10**9), decimal.Decimal(rnd.randint(-(10**8), 10**8)) / 100])), "AL32UTF8")),
        (0.25, lambda: (1, encode_value(1, " ".join(rnd.choices(_WORDS, k=rnd.randint(1, 4)))), "AL32UTF8")),
        (0.05, lambda: (96, encode_value(96, rnd.choice(_WORDS).ljust(12)), "AL32UTF8")),
        (0.10, lambda: (12, encode_value(12, base + datetime.timedelta(seconds=rnd.randint(-(10**9), 10**9))), "AL32UTF8")),
        (0.10, lambda: (180, encode_value(180, base + datetime.timedelta(microseconds=rnd.randint(-(10**15), 10**15))), "AL32UTF8")),
        (0.03, lambda: (181, encode_value(181, (base + datetime.timedelta(seconds=rnd.randint(0, 10**8))).replace(tzinfo=datetime.timezone(datetime.timedelta(minutes=rnd.randint(-600, 600))))), "AL32UTF8")),
        (0.05, lambda: (101, encode_value(101, rnd.uniform(-1e6, 1e6)), "AL32UTF8")),
        (0.02, lambda: (100, encode_value(100, rnd.uniform(-1e3, 1e3)), "AL32UTF8")),
        (0.03, lambda: (23, rnd.randbytes(rnd.randint(1, 16)), "AL32UTF8")),
        (0.02, lambda: (112, encode_value(112, " ".join(rnd.choices(_WORDS, k=20)), charset="AL32UTF8"), "AL32UTF8")),
        (0.02, lambda: (183, encode_value(183, datetime.timedelta(seconds=rnd.uniform(-(10**6), 10**6))), "AL32UTF8")),
        (0.03, lambda: (208, encode_value(208, RowId(dataobj=rnd.randint(0, 2**32 - 1), rfile=rnd.randint(0, 1023), block=rnd.randint(0, 2**22 - 1), slot=rnd.randint(0, 999))), "AL32UTF8")),
    ]  # fmt: skip
    weights = [w for w, _ in makers]
    return [rnd.choices(makers, weights)[0][1]() for _ in range(count)]


def _cpu() -> float:
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime


def _rate(run: Callable[[], object], count: int, seconds: float) -> float:
    """Values per CPU-second: ``run`` (which renders ``count`` values) repeated for ``seconds`` of CPU."""
    runs, start = 0, _cpu()
    while True:
        run()
        runs += 1
        spent = _cpu() - start
        if spent >= seconds:
            return runs * count / spent


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--values", type=int, default=200_000)
    parser.add_argument("--seed", type=int, default=16)
    parser.add_argument("--seconds", type=float, default=3.0)
    parser.add_argument("--dump", type=Path, help="write the mix here for the core alone (values_rate.rs)")
    args = parser.parse_args()
    values = _mix(args.values, args.seed)
    if args.dump:
        with args.dump.open("wb") as out:
            for code, data, charset in values:
                name = charset.encode()
                out.write(
                    code.to_bytes(2, "big") + bytes([len(name)]) + name + len(data).to_bytes(4, "big") + data
                )
    by_type: dict[tuple[int, str], list[bytes]] = {}
    for code, data, charset in values:
        by_type.setdefault((code, charset), []).append(data)
    size = sum(len(d) for _, d, _ in values)
    print(f"{len(values):,} values, {size / 1e6:.1f} MB of column bytes, {len(by_type)} types")

    def python() -> list[str]:
        return [decode_value(code, data, charset=charset) for code, data, charset in values]

    def rust_each() -> list[str]:
        return [native.render_value(code, data, charset) for code, data, charset in values]

    def rust_batch() -> list[list[str]]:
        return [native.render_values(code, datas, charset) for (code, charset), datas in by_type.items()]

    assert python() == rust_each()
    assert [t for texts in rust_batch() for t in texts] == [
        decode_value(code, d, charset=charset) for (code, charset), datas in by_type.items() for d in datas
    ]
    figures = {
        "python decode_value": _rate(python, len(values), args.seconds),
        "rust render_value (one call per value)": _rate(rust_each, len(values), args.seconds),
        "rust render_values (one call per type)": _rate(rust_batch, len(values), args.seconds),
    }
    slowest = figures["python decode_value"]
    for name, rate in figures.items():
        print(f"{name:42s} {rate / 1e6:6.2f} M values/CPU-s  ({rate / slowest:5.1f}x)")


if __name__ == "__main__":
    main()
