//! Values per second of the core alone (no Python), on the mix `bench/bench_values.py --dump FILE`
//! writes; ignored unless asked for:
//! `REDO_VALUES_MIX=FILE cargo test --release -p redo-core --test values_rate -- --ignored --nocapture`.

use std::time::Instant;

use redo_core::values::{render_value_into, CharsetArg, ZoneArg};

fn read_mix(bytes: &[u8]) -> Vec<(i64, String, &[u8])> {
    let mut out = Vec::new();
    let mut at = 0;
    while at + 3 <= bytes.len() {
        let code = i64::from(u16::from_be_bytes([bytes[at], bytes[at + 1]]));
        let name_len = usize::from(bytes[at + 2]);
        let name = String::from_utf8_lossy(&bytes[at + 3..at + 3 + name_len]).into_owned();
        at += 3 + name_len;
        let len = u32::from_be_bytes([bytes[at], bytes[at + 1], bytes[at + 2], bytes[at + 3]]) as usize;
        at += 4;
        out.push((code, name, &bytes[at..at + len]));
        at += len;
    }
    out
}

/// CPU seconds of this process (user + system, /proc/self/stat in 1/100 s ticks); None off Linux.
fn cpu_seconds() -> Option<f64> {
    let stat = std::fs::read_to_string("/proc/self/stat").ok()?;
    let fields: Vec<&str> = stat.rsplit_once(')')?.1.split_whitespace().collect();
    let ticks: f64 = fields.get(11)?.parse::<f64>().ok()? + fields.get(12)?.parse::<f64>().ok()?;
    Some(ticks / 100.0)
}

#[test]
#[ignore = "a benchmark: needs REDO_VALUES_MIX and --release"]
fn values_per_second() {
    let path = std::env::var("REDO_VALUES_MIX").expect("REDO_VALUES_MIX=<file of bench_values.py --dump>");
    let bytes = std::fs::read(path).expect("the mix file");
    let mix = read_mix(&bytes);
    let mut out = String::new();
    let (mut rendered, mut text_bytes) = (0usize, 0usize);
    let (start, cpu_start) = (Instant::now(), cpu_seconds());
    while start.elapsed().as_secs_f64() < 3.0 {
        for (code, charset, data) in &mix {
            out.clear();
            render_value_into(*code, data, CharsetArg::Name(charset), ZoneArg::Minutes(0), &mut out)
                .expect("the mix is valid");
            text_bytes += out.len();
        }
        rendered += mix.len();
    }
    let wall = start.elapsed().as_secs_f64();
    let (seconds, clock) = match (cpu_start, cpu_seconds()) {
        (Some(a), Some(b)) if b > a => (b - a, "CPU"),
        _ => (wall, "wall"),
    };
    println!(
        "{} values x {} rounds: {:.2} M values/{clock}-s, {:.0} MB of text/{clock}-s",
        mix.len(),
        rendered / mix.len(),
        rendered as f64 / seconds / 1e6,
        text_bytes as f64 / seconds / 1e6
    );
}
