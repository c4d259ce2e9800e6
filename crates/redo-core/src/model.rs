//! The format model: what the reader produces, borrowing from the log's bytes (Python
//! `format/model.py`). Column values are `Option<&[u8]>` (`None` = SQL NULL); opcodes are
//! `(layer, code)` as Oracle writes them. Field names follow the Python model (and through it the
//! dump labels), so a dump line greps to both.

/// A column value: `None` for SQL NULL.
pub type Column<'a> = Option<&'a [u8]>;

/// Transaction id (dump `0x0004.00b.00000356`). `usn` is signed: a begin/commit vector of a block
/// class below 15 has USN -1 (Python `usn_of`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Xid {
    pub usn: i32,
    pub slot: u16,
    pub sqn: u32,
}

/// Undo block address (dump `0x00c000b2.01ee.0d`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Uba {
    pub block: u32,
    pub seq: u16,
    pub rec: u8,
}

/// Redo byte address of a record (dump `0x000044.00000005.0010`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Rba {
    pub seq: u32,
    pub block: u32,
    pub offset: u32,
}

impl std::fmt::Display for Rba {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "0x{:06x}.{:08x}.{:04x}", self.seq, self.block, self.offset)
    }
}

/// KDO op codes (`op & 0x1F`, redo-format §5.0.1).
pub mod kdo_op {
    pub const IUR: u8 = 1;
    pub const IRP: u8 = 2;
    pub const DRP: u8 = 3;
    pub const LKR: u8 = 4;
    pub const URP: u8 = 5;
    pub const ORP: u8 = 6;
    pub const CFA: u8 = 8;
    pub const QMI: u8 = 11;
    pub const QMD: u8 = 12;
    pub const DSC: u8 = 14;
    pub const LMN: u8 = 16;
}

/// Row flag byte `fb` (dump `--H-FL--`), §5.0.1.
pub mod row_flags {
    pub const L: u8 = 0x04;
    pub const F: u8 = 0x08;
    pub const H: u8 = 0x20;
}

/// ktub flag word (u16 @20), §5.0.1.
pub mod ktub_flags {
    pub const MULTI_BLOCK_HEAD: u16 = 0x0001;
    pub const MULTI_BLOCK_TAIL: u16 = 0x0002;
    pub const BEGIN_TRANSACTION: u16 = 0x0008;
    pub const MULTI_BLOCK_MID: u16 = 0x0100;
}

/// KTB redo (dump `KTB Redo`, `op: F xid: ... uba: ...`), §5.0.1.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct KtbRedo {
    pub op: u8,
    pub flg: u8,
    pub xid: Option<Xid>,
    pub uba: Option<Uba>,
    pub scn: Option<u64>,
    pub cleanout_scn: Option<u64>,
}

/// KDO op header (dump `KDO Op code: IRP ...`), §5.0.1. Op-specific fields are `None` when the op
/// does not have them.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct Kdo<'a> {
    pub op: u8,
    pub bdba: u32,
    pub hdba: u32,
    pub maxfr: u16,
    pub xtype: u8,
    pub kdom2: bool,
    pub rowdeps: bool,
    pub itli: u8,
    pub ispac: u8,
    pub slot: Option<u16>,
    pub tabn: u8,
    pub fb: Option<u8>,
    pub lb: Option<u8>,
    pub cc: Option<u8>,
    /// IRP/ORP size/delt (u16); URP signed size delta (i16)
    pub size_delt: Option<i32>,
    pub hrid: Option<(u32, u16)>,
    pub nrid: Option<(u32, u16)>,
    pub null_bitmap: &'a [u8],
    pub ncol: Option<u8>,
    pub nnew: Option<u8>,
    pub lock: Option<u8>,
    pub ckix: Option<u8>,
    pub flag: Option<u8>,
    pub slots: Vec<u16>,
}

impl Kdo<'_> {
    /// Bit `i % 8` of byte `i / 8` of the NULL bitmap (LSB first).
    #[inline]
    pub fn is_null(&self, i: usize) -> bool {
        self.null_bitmap.get(i >> 3).is_some_and(|b| b & (1 << (i & 7)) != 0)
    }
}

/// One row of an 11.11 QMI array insert (or a QMD undo, or a 19.1 table block).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct QmiRow<'a> {
    pub fb: u8,
    pub lb: u8,
    pub columns: Vec<Column<'a>>,
}

/// Supplemental-log block at the end of a 5.1 undo vector (§5.0.1, S1..S4).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Supplemental<'a> {
    pub op: u8,
    pub fb: u8,
    pub count: u16,
    pub objv: u16,
    pub start_before: u16,
    pub start_after: u16,
    pub bdba: Option<u32>,
    pub slot: Option<u16>,
    pub columns: Vec<(u16, Column<'a>)>,
}

/// OP 5.1 — undo record (dump `ktudb redo` / `ktubl redo` / `ktubu redo`), §5.1.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UndoRecord<'a> {
    pub xid: Xid,
    pub uba_seq: u16,
    pub uba_rec: u8,
    pub ktudb_flg: u16,
    pub obj: u32,
    pub dataobj: u32,
    pub tsn: u32,
    pub opc: (u8, u8),
    pub slt: u8,
    pub rci: u8,
    pub flg: u16,
    pub user: Option<u32>,
    pub ktb: Option<KtbRedo>,
    pub kdo: Option<Kdo<'a>>,
    pub columns: Vec<Column<'a>>,
    pub positions: Vec<u16>,
    pub qmi_rows: Vec<QmiRow<'a>>,
    pub rowdep_scn: Option<u64>,
    pub supplemental: Option<Supplemental<'a>>,
    pub raw_fields: Vec<&'a [u8]>,
}

/// OP 5.2 — transaction begin (dump `ktudh redo`), §5.2.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TransactionBegin {
    pub xid: Xid,
    pub uba: Uba,
    pub flg: u16,
    pub siz: u16,
    pub fbi: u8,
    pub parent_xid: Option<Xid>,
    pub con_uid: Option<u32>,
}

/// OP 5.4 — commit or rollback (dump `ktucm redo`), §5.3. Rollback = flg bit 0x04.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TransactionEnd {
    pub xid: Xid,
    pub srt: u16,
    pub sta: u32,
    pub flg: u8,
    pub uba: Option<Uba>,
    pub unix_time: Option<u32>,
}

/// OP 5.6 / OP 5.11 — partial rollback, §5.4: the transaction is (usn from CLS, ktub slot).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PartialRollback {
    pub usn: i32,
    pub slt: u8,
    pub obj: u32,
    pub dataobj: u32,
    pub opc: (u8, u8),
    pub flg: u16,
}

/// OP 11.x — redo row operation (dump `KDO Op code: ...`), §5.6.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RowOperation<'a> {
    pub ktb: Option<KtbRedo>,
    pub kdo: Kdo<'a>,
    pub columns: Vec<Column<'a>>,
    pub positions: Vec<u16>,
    pub qmi_rows: Vec<QmiRow<'a>>,
    pub rowdep_scn: Option<u64>,
}

/// OP 5.19 / OP 5.20 — session attributes of a transaction, §5.5.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct SessionInfo {
    pub session: u32,
    pub serial: u16,
    pub current_user: String,
    pub login_user: String,
    pub client_info: String,
    pub os_user: String,
    pub machine: String,
    pub terminal: String,
    pub process: String,
    pub program: String,
    pub transaction_name: String,
    pub flags: u16,
    pub flags2: u16,
    pub version: u32,
    pub audit_session_id: u32,
    pub client_id: String,
}

/// OP 24.1 — DDL (KRVDDL), §5.9.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Ddl {
    pub xid: Xid,
    pub ddl_type: u16,
    pub obj: Option<u32>,
    pub schema: String,
    pub text: String,
}

/// OP 19.1 — direct loader block (LOB page image, or a direct-path table block), §5.8.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DirectLoadBlock<'a> {
    pub dataobj: u32,
    pub lob_id: &'a [u8],
    pub page_no: u32,
    pub pdba: u32,
    pub data: &'a [u8],
    pub slots: Vec<u16>,
    pub rows: Vec<QmiRow<'a>>,
    pub itl_xids: Vec<Xid>,
}

/// kdli common part of a LOB vector (26.x field 2), §5.10.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct KdliCommon {
    pub op: u8,
    pub type_: u8,
    pub flg0: u8,
    pub flg1: u8,
    pub psiz: u16,
    pub poff: u16,
    pub dba: u32,
}

/// One kdli item (§5.10), by its code byte.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct KdliItem<'a> {
    pub code: u8,
    pub lob_id: &'a [u8],
    pub block: u32,
    pub slot: u16,
    pub offset: u16,
    pub size: u16,
    pub data: &'a [u8],
    pub xid: Option<Xid>,
    pub obj: u32,
    pub column: u16,
    pub raw: &'a [u8],
}

/// OP 26.2 — LOB redo (KDLIRREDO), §5.10.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LobChange<'a> {
    pub ktb: Option<KtbRedo>,
    pub common: KdliCommon,
    pub items: Vec<KdliItem<'a>>,
}

/// OP 26.6 — LOB page image (BIMG, direct LOB load; SecureFile pages), §5.10: kdli common, a kdli
/// item of at least 32 bytes (`head`: data object id @24, XID @16), a kdli item, the raw page when
/// the common op is BIMG, then a kdli item (`trailer`, usually suplog).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LobImage<'a> {
    pub common: KdliCommon,
    pub dataobj: u32,
    pub head: KdliItem<'a>,
    pub item: KdliItem<'a>,
    pub page: &'a [u8],
    pub trailer: Option<KdliItem<'a>>,
}

/// OP 11.17 — LLB, LogMiner LOB support (kept as observed in real records, low confidence).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LobSupport<'a> {
    pub kind: u8,
    pub lob_id: Option<&'a [u8]>,
    pub sizes: Vec<usize>,
}

/// The body of a change vector, by opcode (Python `OpBody`). `Opaque` vectors are classified by
/// layer, counted, never an error.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum OpBody<'a> {
    Undo(UndoRecord<'a>),
    Begin(TransactionBegin),
    End(TransactionEnd),
    PartialRollback(PartialRollback),
    Row(RowOperation<'a>),
    Session(SessionInfo),
    Ddl(Ddl),
    DirectLoad(DirectLoadBlock<'a>),
    Lob(LobChange<'a>),
    LobImage(LobImage<'a>),
    LobSupport(LobSupport<'a>),
    Opaque(&'static str),
}

/// A change vector (dump `CHANGE #n TYP:.. CLS:.. AFN:.. DBA:.. OBJ:.. SCN:.. SEQ:.. OP:l.c`), §4.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ChangeVector<'a> {
    pub index: u32,
    pub layer: u8,
    pub code: u8,
    pub block_class: u16,
    pub afn: u16,
    pub dba: u32,
    pub obj: Option<u32>,
    pub scn: u64,
    pub seq: u8,
    pub change_type: u8,
    pub con_id: u16,
    pub flg: u16,
    pub body: OpBody<'a>,
    pub fields: Vec<&'a [u8]>,
    pub offset: u32,
}

/// LWN header carried by a record with VLD 0x04 (dump `(LWN RBA: ... LEN: ... NST: ...`), §3.2.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LwnHeader {
    pub number: u16,
    pub nst: u16,
    pub length: u32,
    pub scn: u64,
    /// raw redo time (§3.5), checked
    pub time: u32,
}

/// A redo record (dump `REDO RECORD - Thread:1 RBA: ... LEN: ... VLD: ...`), §3.2. `time` is the
/// raw redo time of the LWN the record belongs to.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RedoRecord<'a> {
    pub thread: u16,
    pub rba: Rba,
    pub length: u32,
    pub vld: u8,
    pub scn: u64,
    pub subscn: u16,
    pub con_uid: u32,
    pub time: u32,
    pub lwn: Option<LwnHeader>,
    pub vectors: Vec<ChangeVector<'a>>,
}
