//! Events per second through the transaction table of the core alone (no Python, no Arrow out: the
//! committed changes read as events, as the emitter in Rust will read them), on the workload
//! `bench/bench_assembly.py --dump FILE` writes (an Arrow IPC file of events in redo order, with the
//! logs' size in its metadata); ignored unless asked for:
//! `REDO_ASSEMBLY_EVENTS=FILE cargo test --release -p redo-core --test assembly_rate -- --ignored --nocapture`.

use std::time::Instant;

use arrow_ipc::reader::FileReader;
use redo_core::assembly::{TableOptions, TransactionTable};

/// CPU seconds of this process (user + system, /proc/self/stat in 1/100 s ticks); None off Linux.
fn cpu_seconds() -> Option<f64> {
    let stat = std::fs::read_to_string("/proc/self/stat").ok()?;
    let fields: Vec<&str> = stat.rsplit_once(')')?.1.split_whitespace().collect();
    let ticks: f64 = fields.get(11)?.parse::<f64>().ok()? + fields.get(12)?.parse::<f64>().ok()?;
    Some(ticks / 100.0)
}

#[test]
#[ignore = "a benchmark: needs REDO_ASSEMBLY_EVENTS and --release"]
fn events_per_second() {
    let path = std::env::var("REDO_ASSEMBLY_EVENTS")
        .expect("REDO_ASSEMBLY_EVENTS=<file of bench_assembly.py --dump>");
    let reader =
        FileReader::try_new(std::fs::File::open(path).expect("the events file"), None).expect("an IPC file");
    let log_bytes: f64 =
        reader.schema().metadata().get("log_bytes").and_then(|v| v.parse().ok()).expect("log_bytes metadata");
    let batches: Vec<_> = reader.map(|b| b.expect("a record batch")).collect();
    let events: usize = batches.iter().map(|b| b.num_rows()).sum();
    let (mut rounds, mut changes) = (0usize, 0usize);
    let (start, cpu_start) = (Instant::now(), cpu_seconds());
    while start.elapsed().as_secs_f64() < 3.0 {
        let mut table = TransactionTable::new(TableOptions::default()).expect("a table");
        for batch in &batches {
            for txn in table.feed_batch(batch).expect("the workload assembles") {
                txn.changes
                    .for_each(|_| {
                        changes += 1;
                        Ok(())
                    })
                    .expect("the changes read back");
            }
        }
        table.carry_out(8192).expect("the open transactions carried out");
        rounds += 1;
    }
    let wall = start.elapsed().as_secs_f64();
    let (seconds, clock) = match (cpu_start, cpu_seconds()) {
        (Some(a), Some(b)) if b > a => (b - a, "CPU"),
        _ => (wall, "wall"),
    };
    println!(
        "{events} events x {rounds} rounds ({} committed changes each): {:.2} M events/{clock}-s, {:.0} MB of redo/{clock}-s",
        changes / rounds,
        (events * rounds) as f64 / seconds / 1e6,
        log_bytes * rounds as f64 / seconds / 1e6,
    );
}
