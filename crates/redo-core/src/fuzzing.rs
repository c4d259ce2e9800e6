//! The body of the fuzz targets (`fuzz/fuzz_targets/reader.rs`, and `tests/no_panic.rs` in
//! `cargo test`): read any bytes as a log, any block range, under both policies. Any outcome is
//! fine but a panic or a walk that does not end.

use crate::{parse_log_header, BigEndian, Endianity, LittleEndian, Policy, RecordReader, Step};

fn walk<E: Endianity>(data: &[u8], first: u32, last: Option<u32>, policy: Policy) -> usize {
    let Ok(header) = parse_log_header(&data[..data.len().min(crate::HEADER_PROBE_SIZE)], Some("fuzz")) else {
        return 0;
    };
    let mut reader = RecordReader::<E>::new(data, &header, first, last, policy, Some("fuzz"));
    let mut n = 0;
    // every step consumes at least 4 bytes or one block: a bound far above any real walk
    for _ in 0..(data.len() + 16) {
        match reader.step() {
            Ok(Step::Record(r)) => {
                n += r.vectors.len() + 1;
                crate::events::for_each_event(&r, |e| n += e.before.len() + e.after.len() + e.rows.len());
            }
            Ok(Step::Skipped) => {}
            Ok(Step::End | Step::NeedData) | Err(_) => return n,
        }
    }
    panic!("the walk did not end within {} steps", data.len() + 16);
}

/// Read `data` as a log from `first` to `last` under both policies; returns the records and
/// vectors seen (so the work is not optimized away).
pub fn read_any(data: &[u8], first: u32, last: Option<u32>) -> usize {
    let big = data.len() > 31 && data[28..32] == crate::header::MAGIC_BE;
    [Policy::Raise, Policy::Skip]
        .into_iter()
        .map(|policy| {
            if big {
                walk::<BigEndian>(data, first, last, policy)
            } else {
                walk::<LittleEndian>(data, first, last, policy)
            }
        })
        .sum()
}
