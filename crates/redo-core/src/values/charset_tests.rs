//! Byte-level tests of every character set in `tables::CHARSETS` against known bytes (the
//! characters' code points in the sets' standards: JIS X 0208, GB 2312 / GBK / GB 18030, Big5,
//! KS X 1001, ISO 8859, the Windows and KOI8 code pages), and of Oracle's documented deviations
//! from the WHATWG encodings (docs/charsets.md).

use super::tests::unhex;
use super::text::{render_text, Charset};
use super::CharsetArg;

fn text(name: &str, hex: &str) -> Result<String, String> {
    let mut out = String::new();
    render_text(&unhex(hex), CharsetArg::Name(name), &mut out)
        .map(|()| out)
        .map_err(|e| e.info().message.clone())
}

#[test]
fn every_set_decodes_known_bytes() {
    let known = [
        ("US7ASCII", "41 7e", "A~"),
        ("WE8ISO8859P1", "63 61 66 e9 80", "café\u{80}"),
        ("WE8ISO8859P15", "a4 a6 bd", "€Šœ"),
        ("EE8MSWIN1250", "a3 f3 64 9f", "Łódź"),
        ("CL8MSWIN1251", "c6 b8 eb f2 fb e9", "Жёлтый"),
        ("WE8MSWIN1252", "80 f1 93 94", "€ñ“”"),
        ("UTF8", "ed a0 bd ed b8 80", "😀"),
        ("AL32UTF8", "f0 9f 98 80", "😀"),
        ("AL16UTF16", "00 41 d8 3d de 00", "A😀"),
        ("EE8ISO8859P2", "a3 f3 64 bc 20 d5", "Łódź Ő"),
        ("SE8ISO8859P3", "a1 f8 20 ba", "Ħĝ ş"),
        ("NEE8ISO8859P4", "d3 ef b6", "Ķīļ"),
        ("CL8ISO8859P5", "bc de e1 da d2 d0", "Москва"),
        ("AR8ISO8859P6", "d3 e4 c7 e5", "سلام"),
        ("EL8ISO8859P7", "c1 e8 de ed e1", "Αθήνα"),
        ("IW8ISO8859P8", "f9 ec e5 ed", "שלום"),
        ("WE8ISO8859P9", "dd 73 74 61 6e 62 75 6c 20 f0", "İstanbul ğ"),
        ("NE8ISO8859P10", "af bb", "Ŋŧ"),
        ("BLT8ISO8859P13", "52 ee 67 61 20 fe", "Rīga ž"),
        ("CEL8ISO8859P14", "d0 fe 20 a2", "Ŵŷ ḃ"),
        ("TH8TISASCII", "c0 d2 c9 d2 e4 b7 c2", "ภาษาไทย"),
        ("VN8MSWIN1258", "56 69 fe", "Vi₫"),
        ("CL8KOI8U", "eb c9 a7 d7", "Київ"),
        ("RU8PC866", "8c a8 e0", "Мир"),
        ("EL8MSWIN1253", "c5 eb eb dc e4 e1", "Ελλάδα"),
        ("IW8MSWIN1255", "f2 e1 f8 e9 fa", "עברית"),
        ("TR8MSWIN1254", "54 fc 72 6b e7 65 20 fe", "Türkçe ş"),
        ("BLT8MSWIN1257", "4c 69 65 74 75 76 e0", "Lietuvą"),
        ("CL8KOI8R", "f0 d2 c9 d7 c5 d4", "Привет"),
        ("AR8MSWIN1256", "da d1 c8 ed", "عربي"),
        ("JA16EUC", "c6 fc cb dc b8 ec a5 ab a5 ca", "日本語カナ"),
        ("JA16SJIS", "93 fa 96 7b 8c ea 83 4a 83 69 b1", "日本語カナｱ"),
        ("JA16EUCTILDE", "c5 ec b5 fe", "東京"),
        ("JA16SJISTILDE", "93 8c 8b 9e", "東京"),
        ("KO16KSC5601", "c7 d1 b1 b9 be ee", "한국어"),
        ("KO16MSWIN949", "c7 d1 b1 db 8c 63", "한글똠"),
        ("ZHS16CGB231280", "d6 d0 ce c4", "中文"),
        ("ZHS16GBK", "d6 d0 ce c4 b7 b1 f3 77", "中文繁體"),
        ("ZHS32GB18030", "d6 d0 ce c4 94 39 fc 36", "中文😀"),
        ("ZHT16BIG5", "a4 a4 a4 e5 c1 63 c5 e9", "中文繁體"),
        ("ZHT16MSWIN950", "bb 4f c6 57", "臺灣"),
        ("ZHT16HKSCS", "ad bb b4 e4 95 a8", "香港𥚃"),
        ("ZHT16HKSCS31", "ad bb b4 e4", "香港"),
        ("AL16UTF16LE", "41 00 f1 00 3d d8 00 de", "Añ😀"),
    ];
    let listed: Vec<&str> = known.iter().map(|k| k.0).collect();
    for cs in Charset::ALL {
        assert!(listed.contains(&cs.name()), "{} has no known bytes", cs.name());
        assert_eq!(Charset::from_id(cs.id()), Some(cs));
    }
    assert_eq!(listed.len(), Charset::ALL.len());
    assert!(Charset::ALL.len() >= 40);
    for (name, hex, expected) in known {
        assert_eq!(text(name, hex).as_deref(), Ok(expected), "{name} {hex}");
        let id = Charset::from_name(name).unwrap().id();
        let mut out = String::new();
        render_text(&unhex(hex), CharsetArg::Id(id), &mut out).unwrap();
        assert_eq!(out, expected, "{name} by id {id}");
    }
}

#[test]
fn oracle_ids() {
    // NLS_CHARSET_ID of Oracle's documentation; OpenLogReplicator's character set map agrees
    for (id, name) in [
        (1, "US7ASCII"),
        (31, "WE8ISO8859P1"),
        (32, "EE8ISO8859P2"),
        (39, "WE8ISO8859P9"),
        (41, "TH8TISASCII"),
        (45, "VN8MSWIN1258"),
        (46, "WE8ISO8859P15"),
        (51, "CL8KOI8U"),
        (152, "RU8PC866"),
        (170, "EE8MSWIN1250"),
        (178, "WE8MSWIN1252"),
        (196, "CL8KOI8R"),
        (560, "AR8MSWIN1256"),
        (830, "JA16EUC"),
        (832, "JA16SJIS"),
        (840, "KO16KSC5601"),
        (846, "KO16MSWIN949"),
        (852, "ZHS16GBK"),
        (854, "ZHS32GB18030"),
        (865, "ZHT16BIG5"),
        (867, "ZHT16MSWIN950"),
        (868, "ZHT16HKSCS"),
        (871, "UTF8"),
        (873, "AL32UTF8"),
        (2000, "AL16UTF16"),
    ] {
        assert_eq!(Charset::from_id(id).map(Charset::name), Some(name));
    }
}

#[test]
fn oracle_deviations_from_whatwg() {
    for (name, hex, expected) in [
        // JIS row 1 cell 33: WAVE DASH in JA16SJIS / JA16EUC, FULLWIDTH TILDE in WHATWG and the TILDE sets
        ("JA16SJIS", "81 60", "\u{301C}"),
        ("JA16EUC", "a1 c1", "\u{301C}"),
        ("JA16SJISTILDE", "81 60", "\u{FF5E}"),
        ("JA16EUCTILDE", "a1 c1", "\u{FF5E}"),
        // the rest of row 1 is Microsoft's mapping in both (0x815F FULLWIDTH REVERSE SOLIDUS, ...)
        ("JA16SJIS", "81 5f 81 61 81 7c 81 91", "\u{FF3C}\u{2225}\u{FF0D}\u{FFE0}"),
        // GBK's euro is 0xA2E3; a GB18030 four-byte sequence in GB18030 only
        ("ZHS16GBK", "a2 e3", "€"),
        ("ZHS32GB18030", "81 30 81 30", "\u{80}"),
        // HKSCS in ZHT16HKSCS (WHATWG Big5 is Big5-HKSCS-2008: 0x8862 is two code points)
        ("ZHT16HKSCS", "87 40", "\u{43F0}"),
        ("ZHT16HKSCS", "88 62", "\u{CA}\u{304}"),
        ("ZHT16HKSCS", "f9 fe", "\u{FFED}"),
        ("ZHT16MSWIN950", "f9 fe", "\u{2593}"),
        // Windows-949's extended hangul
        ("KO16MSWIN949", "81 41", "\u{AC02}"),
        // KOI8-U of RFC 2319: box drawings at 0xAE / 0xBE (WHATWG's KOI8-RU: ў / Ў)
        ("CL8KOI8U", "ae be a6 b6", "\u{255D}\u{256C}іІ"),
        // ISO-8859-9 keeps the C1 controls; WHATWG reads it as windows-1254
        ("WE8ISO8859P9", "80 9f dd", "\u{80}\u{9F}İ"),
        ("TR8MSWIN1254", "80", "€"),
    ] {
        assert_eq!(text(name, hex).as_deref(), Ok(expected), "{name} {hex}");
    }
    for (name, hex, reason) in [
        // bytes WHATWG maps (to € or a C1 control) that Oracle's set does not define
        ("ZHS16GBK", "80", "illegal multibyte sequence"),
        ("ZHS16GBK", "81 30 81 30", "illegal multibyte sequence"),
        ("ZHS32GB18030", "80", "illegal multibyte sequence"),
        ("ZHT16BIG5", "87 40", "illegal multibyte sequence"),
        ("ZHT16BIG5", "88 62", "illegal multibyte sequence"),
        ("ZHT16MSWIN950", "87 40", "illegal multibyte sequence"),
        ("KO16KSC5601", "81 41", "illegal multibyte sequence"),
        ("ZHS16CGB231280", "81 40", "illegal multibyte sequence"),
        ("WE8MSWIN1252", "81", "character maps to <undefined>"),
        ("WE8MSWIN1252", "8d", "character maps to <undefined>"),
        ("EE8MSWIN1250", "83", "character maps to <undefined>"),
        ("CL8MSWIN1251", "98", "character maps to <undefined>"),
        ("TH8TISASCII", "81", "character maps to <undefined>"),
        ("VN8MSWIN1258", "8a", "character maps to <undefined>"),
        ("AR8ISO8859P6", "a1", "character maps to <undefined>"),
        ("SE8ISO8859P3", "a5", "character maps to <undefined>"),
        // multi-byte sets: a lead byte at the end, a bad trail byte
        ("JA16SJIS", "41 93", "incomplete multibyte sequence"),
        ("ZHS16GBK", "d6", "incomplete multibyte sequence"),
        ("JA16EUC", "c6 41", "illegal multibyte sequence"),
        ("AL16UTF16LE", "41", "truncated data"),
    ] {
        assert_eq!(text(name, hex), Err(format!("bytes are not valid {name}: {reason}")), "{hex}");
    }
}

#[test]
fn an_undecodable_value_carries_its_bytes_never_a_replacement() {
    let mut out = String::new();
    let e = render_text(&unhex("d6 d0 80"), CharsetArg::Id(852), &mut out).unwrap_err();
    assert_eq!(
        e.info().details,
        vec![("type", "VARCHAR2".into()), ("charset", "ZHS16GBK".into()), ("hex", "d6d080".into())]
    );
    assert!(!out.contains('\u{FFFD}'));
}

#[test]
fn clob_data_of_multibyte_sets_is_al16utf16() {
    for (arg, multi) in [
        (CharsetArg::Name("ZHS16GBK"), true),
        (CharsetArg::Id(832), true),
        (CharsetArg::Name("AL32UTF8"), true),
        (CharsetArg::Name("WE8MSWIN1252"), false),
        (CharsetArg::Id(2000), false),
        (CharsetArg::Name(" zhs16gbk "), false),
    ] {
        assert_eq!(arg.lob() == CharsetArg::Name("AL16UTF16"), multi, "{arg:?}");
    }
}
