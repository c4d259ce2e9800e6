//! Trail records per second through the emitter of the core alone (no Python; the rows built as
//! record batches of the trail schema, one per 1,000 transactions), on the workload
//! `bench/bench_emit.py --dump DIR` writes (`DIR/events.arrow`: events in redo order with the logs'
//! size in its metadata; `DIR/dictionary.json`); ignored unless asked for:
//! `REDO_EMIT_DIR=DIR cargo test --release -p redo-core --test trail_rate -- --ignored --nocapture`.
//! The committed transactions are prepared by the core's table before each timed emit.

use std::time::Instant;

use arrow_ipc::reader::FileReader;
use redo_core::assembly::{TableOptions, TransactionTable};
use redo_core::trail::{Dictionary, EmitOptions, Emitter, TrailBuilder};

/// CPU seconds of this process (user + system, /proc/self/stat in 1/100 s ticks); None off Linux.
fn cpu_seconds() -> Option<f64> {
    let stat = std::fs::read_to_string("/proc/self/stat").ok()?;
    let fields: Vec<&str> = stat.rsplit_once(')')?.1.split_whitespace().collect();
    let ticks: f64 = fields.get(11)?.parse::<f64>().ok()? + fields.get(12)?.parse::<f64>().ok()?;
    Some(ticks / 100.0)
}

#[test]
#[ignore = "a benchmark: needs REDO_EMIT_DIR and --release"]
fn records_per_second() {
    let dir = std::path::PathBuf::from(
        std::env::var("REDO_EMIT_DIR").expect("REDO_EMIT_DIR=<dir of bench_emit.py --dump>"),
    );
    let reader =
        FileReader::try_new(std::fs::File::open(dir.join("events.arrow")).expect("the events file"), None)
            .expect("an IPC file");
    let log_bytes: f64 =
        reader.schema().metadata().get("log_bytes").and_then(|v| v.parse().ok()).expect("log_bytes metadata");
    let batches: Vec<_> = reader.map(|b| b.expect("a record batch")).collect();
    let json = std::fs::read_to_string(dir.join("dictionary.json")).expect("the dictionary");
    let (mut rounds, mut records, mut seconds) = (0usize, 0usize, 0.0);
    let start = Instant::now();
    while start.elapsed().as_secs_f64() < 6.0 {
        let options = TableOptions { memory_limit: 1_000_000, ..TableOptions::default() };
        let mut table = TransactionTable::new(options).expect("a table");
        let mut committed = Vec::new();
        for batch in &batches {
            committed.extend(table.feed_batch(batch).expect("the workload assembles"));
        }
        let (wall, cpu) = (Instant::now(), cpu_seconds());
        let mut emitter =
            Emitter::new(Some(Dictionary::from_json(&json).expect("the dictionary")), EmitOptions::default());
        let mut out = TrailBuilder::new();
        for chunk in committed.chunks(1000) {
            for txn in chunk {
                records += emitter.emit(txn, None, &mut out, Some("1_1")).expect("the trail");
            }
            out.finish().expect("a record batch");
        }
        seconds += match (cpu, cpu_seconds()) {
            (Some(a), Some(b)) if b > a => b - a,
            _ => wall.elapsed().as_secs_f64(),
        };
        rounds += 1;
    }
    println!(
        "{} trail records x {rounds} rounds: {:.2} M records/CPU-s, {:.0} MB of redo/CPU-s",
        records / rounds,
        records as f64 / seconds / 1e6,
        log_bytes * rounds as f64 / seconds / 1e6,
    );
}
