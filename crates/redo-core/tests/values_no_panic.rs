//! Random bytes through `render_value` for every type code, charset and a few database time zones:
//! any outcome but a panic is fine, and an error is always a `ValueDecode` without a position. In
//! debug mode, so an arithmetic overflow would panic too.

use redo_core::values::{code, render_value, Charset, CharsetArg, ZoneArg};

struct XorShift(u64);

impl XorShift {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
}

#[test]
fn random_bytes_never_panic() {
    let mut rnd = XorShift(0x9E37_79B9_7F4A_7C15);
    let zones = [
        ZoneArg::Minutes(0),
        ZoneArg::Minutes(-1439),
        ZoneArg::Minutes(1439),
        ZoneArg::Minutes(i64::MIN),
        ZoneArg::Text("+05:30"),
        ZoneArg::Text("-0959"),
        ZoneArg::Text("+٠٥:٣٠"),
        ZoneArg::Text("ß"),
        ZoneArg::Text(""),
    ];
    let mut charsets: Vec<CharsetArg<'_>> = Charset::ALL.iter().map(|c| CharsetArg::Id(c.id())).collect();
    charsets.extend([CharsetArg::Name("AL32UTF8"), CharsetArg::Name(" utf8 "), CharsetArg::Name("ﬀ")]);
    charsets.push(CharsetArg::Id(i64::MAX));
    let mut codes = code::ALL.to_vec();
    codes.extend([0, -1, 58, i64::MAX]);
    let mut outcomes = [0usize; 2];
    for round in 0..40_000u32 {
        let len = (rnd.next() % 24) as usize;
        let mut data: Vec<u8> = (0..len).map(|_| rnd.next() as u8).collect();
        // half of the time near a valid value: the date bytes in range, the right length
        if round % 2 == 0 && len >= 7 {
            data[0] = 100 + (rnd.next() % 100) as u8;
            data[1] = 100 + (rnd.next() % 100) as u8;
            data[2] = 1 + (rnd.next() % 12) as u8;
            data[3] = 1 + (rnd.next() % 31) as u8;
            data[4] = 1 + (rnd.next() % 24) as u8;
            data[5] = 1 + (rnd.next() % 60) as u8;
            data[6] = 1 + (rnd.next() % 60) as u8;
        }
        for &type_code in &codes {
            let charset = charsets[(rnd.next() % charsets.len() as u64) as usize];
            let zone = zones[(rnd.next() % zones.len() as u64) as usize];
            match render_value(type_code, &data, charset, zone) {
                Ok(_) => outcomes[0] += 1,
                Err(e) => {
                    assert_eq!(e.kind(), "value");
                    assert_eq!(*e.position(), Default::default());
                    outcomes[1] += 1;
                }
            }
        }
    }
    assert!(outcomes[0] > 10_000 && outcomes[1] > 10_000, "{outcomes:?}");
}
