//! One transaction far larger than the change buffer's memory limits: its events spill to disk and
//! the process's resident memory does not grow with it, neither while it is fed nor while its
//! changes stream back at commit (docs/memory.md; issue 16's "bounded memory however large a
//! transaction grows"). One test in its own binary, so no other test shares the process.

use redo_core::assembly::{ChangeEvent, TableOptions, TransactionTable};
use redo_core::events::kind;

const PIECE: usize = 64 << 10;
const EVENTS: i64 = 2_000; // 128 MB of LOB data in one transaction

fn resident_mb() -> Option<f64> {
    // /proc/self/statm: size resident ... in pages (Linux; elsewhere the test only checks the output)
    let statm = std::fs::read_to_string("/proc/self/statm").ok()?;
    let pages: f64 = statm.split_whitespace().nth(1)?.parse().ok()?;
    Some(pages * 4096.0 / (1 << 20) as f64)
}

fn event(k: i64, n: i64) -> ChangeEvent {
    let mut e = ChangeEvent {
        kind: k,
        usn: 1,
        slot: 2,
        sqn: 3,
        thread: 1,
        seq: 1,
        block: n,
        scn: n,
        obj: 70,
        ..Default::default()
    };
    if k == kind::LOB {
        let fill = vec![(n % 251) as u8; PIECE];
        e.lob_data = e.push_bytes(&fill);
    }
    e
}

#[test]
fn a_huge_transaction_keeps_memory_bounded() {
    let dir = std::env::temp_dir();
    let options = TableOptions { memory_bytes: 4 << 20, spill_dir: Some(dir), ..Default::default() };
    let mut table = TransactionTable::new(options).unwrap();
    table.feed(event(kind::BEGIN, 0)).unwrap();
    let mut base = None;
    let mut peak: f64 = 0.0;
    for n in 1..=EVENTS {
        assert!(table.feed(event(kind::LOB, n)).unwrap().is_none());
        if n == 200 {
            base = resident_mb();
        }
        peak = peak.max(resident_mb().unwrap_or(0.0));
    }
    let txn = table.feed(event(kind::COMMIT, EVENTS + 1)).unwrap().unwrap();
    assert_eq!(txn.changes.len(), EVENTS as usize);
    assert!(txn.changes.spilled() > EVENTS as usize - 100);
    assert!(txn.changes.in_memory_bytes() <= (4 << 20) + PIECE + 4096);
    let (mut rows, mut bytes, mut n) = (0, 0, 0);
    for batch in txn.changes.into_batches(16) {
        let batch = batch.unwrap();
        for e in redo_core::assembly::events_of(&batch).unwrap() {
            n += 1;
            assert_eq!((e.scn, e.bytes(e.lob_data).first().copied()), (n, Some((n % 251) as u8)));
            bytes += e.bytes(e.lob_data).len();
        }
        rows += batch.num_rows();
        peak = peak.max(resident_mb().unwrap_or(0.0));
    }
    assert_eq!((rows, bytes), (EVENTS as usize, EVENTS as usize * PIECE));
    eprintln!("resident: {base:?} MB after 200 events, peak {peak:.1} MB");
    if let Some(base) = base {
        // 128 MB went through; memory holds about the byte limit, one chunk and one batch
        assert!(peak - base < 48.0, "resident memory grew from {base:.0} MB to {peak:.0} MB");
    }
}
