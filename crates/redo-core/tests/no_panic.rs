//! Bounded mutation fuzz of the reader in `cargo test` (the `cargo fuzz` target in `fuzz/` runs the
//! same body for as long as one likes): overwritten bytes, with the block checksums repaired half of
//! the time so the damage reaches the record, vector and op parsers, cut files and random block
//! ranges, under both policies. Any outcome is fine but a panic (or a hang: every walk is bounded).
//! Input: the real 23.6 logs of ../shared/realdata when present (skipped otherwise).

use std::path::PathBuf;

use redo_core::blocks::block_xor;
use redo_core::fuzzing::read_any;

fn realdata(name: &str) -> Option<Vec<u8>> {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../../shared/realdata/rophy-olr-example-free-23/redo")
        .join(name);
    std::fs::read(path).ok()
}

struct XorShift(u64);

impl XorShift {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
}

fn mutate(data: &[u8], rnd: &mut XorShift) -> Vec<u8> {
    let mut buf = data.to_vec();
    for _ in 0..1 + rnd.below(12) {
        let at = rnd.below(buf.len());
        buf[at] = rnd.next() as u8;
    }
    if rnd.below(2) == 0 {
        for block in buf.chunks_exact_mut(512).skip(1) {
            block[14] = 0;
            block[15] = 0;
            let x = block_xor(block);
            block[14] = (x & 0xFF) as u8;
            block[15] = (x >> 8) as u8;
        }
    }
    if rnd.below(5) == 0 {
        let keep = rnd.below(buf.len());
        buf.truncate(keep);
    }
    buf
}

#[test]
fn mutated_real_logs_never_panic() {
    let logs: Vec<Vec<u8>> =
        ["arch1_15_1224959854.dbf", "arch1_16_1224959854.dbf"].iter().filter_map(|n| realdata(n)).collect();
    if logs.is_empty() {
        eprintln!("real data not found: skipped");
        return;
    }
    let mut rnd = XorShift(0x9E37_79B9_7F4A_7C15);
    for i in 0..600 {
        let data = mutate(&logs[i % logs.len()], &mut rnd);
        let first = if rnd.below(2) == 0 { 2 } else { rnd.below(700) as u32 };
        let last = if rnd.below(2) == 0 { None } else { Some(first + 1 + rnd.below(700) as u32) };
        read_any(&data, first, last);
    }
}

#[test]
fn arbitrary_bytes_never_panic() {
    let mut rnd = XorShift(42);
    for size in [0usize, 1, 31, 32, 600, 1024, 1100, 4096, 9000] {
        for _ in 0..50 {
            let mut data: Vec<u8> = (0..size).map(|_| rnd.next() as u8).collect();
            if size >= 32 {
                data[0] = 0;
                data[1] = 0x22;
                data[20..24].copy_from_slice(&512u32.to_le_bytes());
                data[28..32].copy_from_slice(&[0x7d, 0x7c, 0x7b, 0x7a]);
            }
            read_any(&data, 2, None);
        }
    }
}
