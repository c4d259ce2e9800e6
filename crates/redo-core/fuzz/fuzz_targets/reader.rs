//! `cargo +nightly fuzz run reader`: any bytes as a log, a block range from the first 8 bytes.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|input: &[u8]| {
    if input.len() < 8 {
        return;
    }
    let first = u32::from_le_bytes([input[0], input[1], input[2], input[3]]) % 4096;
    let span = u32::from_le_bytes([input[4], input[5], input[6], input[7]]);
    let last = if span == 0 { None } else { Some(first.saturating_add(span % 4096)) };
    redo_core::fuzzing::read_any(&input[8..], first, last);
});
