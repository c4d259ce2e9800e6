//! The Oracle character sets the core decodes: Oracle id (`NLS_CHARSET_ID`), Oracle name, and how
//! the bytes decode ([`Kind`]). Every set `encoding_rs` has is decoded by it (the WHATWG Encoding
//! Standard's tables); a few sets are done by hand because WHATWG has no such encoding (ASCII,
//! Latin-1, CESU-8, UTF-16), and Oracle's deviations from WHATWG are small overrides ([`Rule`]),
//! written down in `docs/charsets.md` and tested byte by byte in `text.rs`.
//!
//! The ids are Oracle's (`SELECT NLS_CHARSET_ID('JA16SJIS') FROM DUAL` = 832; the same numbers as
//! OpenLogReplicator's character set map and OLR checkpoints' `charset-id`).

use encoding_rs::{
    Encoding, BIG5, EUC_JP, EUC_KR, GB18030, GBK, IBM866, ISO_8859_10, ISO_8859_13, ISO_8859_14, ISO_8859_15,
    ISO_8859_2, ISO_8859_3, ISO_8859_4, ISO_8859_5, ISO_8859_6, ISO_8859_7, ISO_8859_8, KOI8_R, KOI8_U,
    SHIFT_JIS, WINDOWS_1250, WINDOWS_1251, WINDOWS_1252, WINDOWS_1253, WINDOWS_1254, WINDOWS_1255,
    WINDOWS_1256, WINDOWS_1257, WINDOWS_1258, WINDOWS_874,
};

/// How a character set's bytes become text.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// US7ASCII: a byte above 0x7F is an error.
    Ascii,
    /// WE8ISO8859P1: every byte is the code point of the same number (WHATWG reads the label
    /// ISO-8859-1 as windows-1252, which Oracle does not).
    Latin1,
    /// AL32UTF8.
    Utf8,
    /// UTF8: CESU-8 (a character above U+FFFF as two 3-byte surrogates); 4-byte UTF-8 accepted.
    Cesu8,
    /// AL16UTF16: UTF-16 big-endian on every platform.
    Utf16Be,
    /// AL16UTF16LE.
    Utf16Le,
    /// One byte per character through a WHATWG encoding, with Oracle's rule.
    Single(&'static Encoding, Rule),
    /// Varying-width multi-byte through a WHATWG encoding, with Oracle's rule. CLOB data of these
    /// sets is stored as AL16UTF16 (docs/lobs.md).
    Multi(&'static Encoding, Rule),
}

/// Where Oracle's set deviates from the WHATWG encoding that decodes it (docs/charsets.md).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Rule {
    /// No deviation.
    Same,
    /// Windows code pages: the bytes WHATWG maps to a C1 control (0x81 of windows-1252, ...)
    /// are undefined in Oracle's (and Microsoft's, and Python's) table: an error.
    WindowsUndefined,
    /// WE8ISO8859P9: WHATWG reads ISO-8859-9 as windows-1254; bytes 0x80-0x9F are the C1
    /// controls in ISO-8859-9.
    IsoC1,
    /// CL8KOI8U: KOI8-U of RFC 2319, where 0xAE and 0xBE are box drawings (U+255D, U+256C);
    /// WHATWG's KOI8-U is KOI8-RU, with ў / Ў there.
    Koi8U,
    /// JA16SJIS / JA16EUC: JIS row 1 cell 33 (0x8160 / 0xA1C1) is U+301C WAVE DASH; WHATWG (and
    /// Oracle's JA16SJISTILDE / JA16EUCTILDE) map it to U+FF5E FULLWIDTH TILDE.
    WaveDash,
    /// ZHS16GBK: the single byte 0x80 is undefined (WHATWG: U+20AC) and there are no 4-byte
    /// sequences (WHATWG's GBK decoder is gb18030's).
    Gbk,
    /// ZHS32GB18030: the single byte 0x80 is undefined (WHATWG: U+20AC).
    Gb18030,
    /// KO16KSC5601 / ZHS16CGB231280: the EUC form of a 94x94 set, both bytes of a pair in
    /// 0xA1-0xFE (WHATWG's EUC-KR is Windows-949, its GBK a superset of GB2312).
    Euc94,
    /// ZHT16BIG5: lead bytes 0xA1-0xF9 only (WHATWG's Big5 is Big5-HKSCS, whose lead bytes
    /// 0x81-0xA0 are HKSCS additions).
    Big5,
    /// ZHT16MSWIN950: Big5 lead bytes 0xA1-0xF9 and Microsoft's 0xF9FE (U+2593; WHATWG: U+FFED).
    Windows950,
}

/// One row of the table.
#[derive(Debug)]
pub struct Def {
    pub id: i64,
    pub name: &'static str,
    pub kind: Kind,
}

const fn def(id: i64, name: &'static str, kind: Kind) -> Def {
    Def { id, name, kind }
}

use Kind::{Multi, Single};
use Rule::{Big5, Euc94, Gb18030, Gbk, IsoC1, Koi8U, Same, WaveDash, Windows950, WindowsUndefined};

/// Every character set, by Oracle id. The first nine are the ones the core read before
/// encoding_rs (same order as before).
pub static CHARSETS: [Def; 44] = [
    def(1, "US7ASCII", Kind::Ascii),
    def(31, "WE8ISO8859P1", Kind::Latin1),
    def(46, "WE8ISO8859P15", Single(ISO_8859_15, Same)),
    def(170, "EE8MSWIN1250", Single(WINDOWS_1250, WindowsUndefined)),
    def(171, "CL8MSWIN1251", Single(WINDOWS_1251, WindowsUndefined)),
    def(178, "WE8MSWIN1252", Single(WINDOWS_1252, WindowsUndefined)),
    def(871, "UTF8", Kind::Cesu8),
    def(873, "AL32UTF8", Kind::Utf8),
    def(2000, "AL16UTF16", Kind::Utf16Be),
    // ISO 8859 parts
    def(32, "EE8ISO8859P2", Single(ISO_8859_2, Same)),
    def(33, "SE8ISO8859P3", Single(ISO_8859_3, Same)),
    def(34, "NEE8ISO8859P4", Single(ISO_8859_4, Same)),
    def(35, "CL8ISO8859P5", Single(ISO_8859_5, Same)),
    def(36, "AR8ISO8859P6", Single(ISO_8859_6, Same)),
    def(37, "EL8ISO8859P7", Single(ISO_8859_7, Same)),
    def(38, "IW8ISO8859P8", Single(ISO_8859_8, Same)),
    def(39, "WE8ISO8859P9", Single(WINDOWS_1254, IsoC1)),
    def(40, "NE8ISO8859P10", Single(ISO_8859_10, Same)),
    def(47, "BLT8ISO8859P13", Single(ISO_8859_13, Same)),
    def(48, "CEL8ISO8859P14", Single(ISO_8859_14, Same)),
    // other single-byte sets
    def(41, "TH8TISASCII", Single(WINDOWS_874, WindowsUndefined)),
    def(45, "VN8MSWIN1258", Single(WINDOWS_1258, WindowsUndefined)),
    def(51, "CL8KOI8U", Single(KOI8_U, Koi8U)),
    def(152, "RU8PC866", Single(IBM866, Same)),
    def(174, "EL8MSWIN1253", Single(WINDOWS_1253, WindowsUndefined)),
    def(175, "IW8MSWIN1255", Single(WINDOWS_1255, WindowsUndefined)),
    def(177, "TR8MSWIN1254", Single(WINDOWS_1254, WindowsUndefined)),
    def(179, "BLT8MSWIN1257", Single(WINDOWS_1257, WindowsUndefined)),
    def(196, "CL8KOI8R", Single(KOI8_R, Same)),
    def(560, "AR8MSWIN1256", Single(WINDOWS_1256, WindowsUndefined)),
    // Japanese
    def(830, "JA16EUC", Multi(EUC_JP, WaveDash)),
    def(832, "JA16SJIS", Multi(SHIFT_JIS, WaveDash)),
    def(837, "JA16EUCTILDE", Multi(EUC_JP, Same)),
    def(838, "JA16SJISTILDE", Multi(SHIFT_JIS, Same)),
    // Korean
    def(840, "KO16KSC5601", Multi(EUC_KR, Euc94)),
    def(846, "KO16MSWIN949", Multi(EUC_KR, Same)),
    // Simplified Chinese
    def(850, "ZHS16CGB231280", Multi(GBK, Euc94)),
    def(852, "ZHS16GBK", Multi(GBK, Gbk)),
    def(854, "ZHS32GB18030", Multi(GB18030, Gb18030)),
    // Traditional Chinese
    def(865, "ZHT16BIG5", Multi(BIG5, Big5)),
    def(867, "ZHT16MSWIN950", Multi(BIG5, Windows950)),
    def(868, "ZHT16HKSCS", Multi(BIG5, Same)),
    def(992, "ZHT16HKSCS31", Multi(BIG5, Same)),
    // more Unicode forms
    def(2002, "AL16UTF16LE", Kind::Utf16Le),
];
