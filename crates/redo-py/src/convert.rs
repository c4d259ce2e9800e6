//! The reader's values as plain Python structures (dicts, tuples, bytes, ints) for the
//! differential tests against `redo_lib.format`: each dataclass of `format/model.py` becomes a dict
//! with its fields and `"__type__"` = the class name. Not the fast path (that is Arrow out, next).

use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict, PyList};
use pyo3::IntoPyObjectExt;
use redo_core::header::LogHeader;
use redo_core::model::*;
use redo_core::reader::CorruptRange;

type Obj<'py> = Bound<'py, PyAny>;

macro_rules! dict {
    ($py:expr, $ty:expr; $($key:literal => $value:expr),* $(,)?) => {{
        let d = PyDict::new($py);
        d.set_item("__type__", $ty)?;
        $( d.set_item($key, $value)?; )*
        Ok::<Obj, PyErr>(d.into_any())
    }};
}

fn bytes<'py>(py: Python<'py>, b: &[u8]) -> Obj<'py> {
    PyBytes::new(py, b).into_any()
}

fn opt_bytes<'py>(py: Python<'py>, b: Option<&[u8]>) -> PyResult<Obj<'py>> {
    match b {
        Some(b) => Ok(bytes(py, b)),
        None => Ok(py.None().into_bound(py)),
    }
}

fn columns<'py>(py: Python<'py>, cols: &[Column<'_>]) -> PyResult<Obj<'py>> {
    let items = cols.iter().map(|c| opt_bytes(py, *c)).collect::<PyResult<Vec<_>>>()?;
    Ok(PyList::new(py, items)?.into_any())
}

fn byte_list<'py>(py: Python<'py>, fields: &[&[u8]]) -> PyResult<Obj<'py>> {
    Ok(PyList::new(py, fields.iter().map(|f| bytes(py, f)))?.into_any())
}

fn xid(x: &Xid) -> (i32, u16, u32) {
    (x.usn, x.slot, x.sqn)
}

fn uba(u: &Uba) -> (u32, u16, u8) {
    (u.block, u.seq, u.rec)
}

fn ktb<'py>(py: Python<'py>, k: &Option<KtbRedo>) -> PyResult<Obj<'py>> {
    let Some(k) = k else { return Ok(py.None().into_bound(py)) };
    dict!(py, "KtbRedo";
        "op" => k.op, "flg" => k.flg, "xid" => k.xid.as_ref().map(xid), "uba" => k.uba.as_ref().map(uba),
        "scn" => k.scn, "cleanout_scn" => k.cleanout_scn)
}

fn kdo<'py>(py: Python<'py>, k: &Kdo<'_>) -> PyResult<Obj<'py>> {
    dict!(py, "Kdo";
        "op" => k.op, "bdba" => k.bdba, "hdba" => k.hdba, "maxfr" => k.maxfr, "xtype" => k.xtype,
        "kdom2" => k.kdom2, "rowdeps" => k.rowdeps, "itli" => k.itli, "ispac" => k.ispac, "slot" => k.slot,
        "tabn" => k.tabn, "fb" => k.fb, "lb" => k.lb, "cc" => k.cc, "size_delt" => k.size_delt,
        "hrid" => k.hrid, "nrid" => k.nrid, "null_bitmap" => bytes(py, k.null_bitmap), "ncol" => k.ncol,
        "nnew" => k.nnew, "lock" => k.lock, "ckix" => k.ckix, "flag" => k.flag, "slots" => k.slots.clone())
}

fn qmi_rows<'py>(py: Python<'py>, rows: &[QmiRow<'_>]) -> PyResult<Obj<'py>> {
    let items = rows
        .iter()
        .map(|r| dict!(py, "QmiRow"; "fb" => r.fb, "lb" => r.lb, "columns" => columns(py, &r.columns)?))
        .collect::<PyResult<Vec<_>>>()?;
    Ok(PyList::new(py, items)?.into_any())
}

fn supplemental<'py>(py: Python<'py>, s: &Option<Supplemental<'_>>) -> PyResult<Obj<'py>> {
    let Some(s) = s else { return Ok(py.None().into_bound(py)) };
    let cols = s
        .columns
        .iter()
        .map(|(c, v)| (*c, opt_bytes(py, *v)?).into_bound_py_any(py))
        .collect::<PyResult<Vec<_>>>()?;
    dict!(py, "Supplemental";
        "op" => s.op, "fb" => s.fb, "count" => s.count, "objv" => s.objv, "start_before" => s.start_before,
        "start_after" => s.start_after, "bdba" => s.bdba, "slot" => s.slot, "columns" => cols)
}

fn kdli_common<'py>(py: Python<'py>, c: &KdliCommon) -> PyResult<Obj<'py>> {
    dict!(py, "KdliCommon";
        "op" => c.op, "type" => c.type_, "flg0" => c.flg0, "flg1" => c.flg1, "psiz" => c.psiz,
        "poff" => c.poff, "dba" => c.dba)
}

fn kdli_item<'py>(py: Python<'py>, i: &KdliItem<'_>) -> PyResult<Obj<'py>> {
    dict!(py, "KdliItem";
        "code" => i.code, "lob_id" => bytes(py, i.lob_id), "block" => i.block, "slot" => i.slot,
        "offset" => i.offset, "size" => i.size, "data" => bytes(py, i.data),
        "xid" => i.xid.as_ref().map(xid), "obj" => i.obj, "column" => i.column, "raw" => bytes(py, i.raw))
}

fn body<'py>(py: Python<'py>, b: &OpBody<'_>) -> PyResult<Obj<'py>> {
    match b {
        OpBody::Undo(u) => dict!(py, "UndoRecord";
            "xid" => xid(&u.xid), "uba_seq" => u.uba_seq, "uba_rec" => u.uba_rec, "ktudb_flg" => u.ktudb_flg,
            "obj" => u.obj, "dataobj" => u.dataobj, "tsn" => u.tsn, "opc" => u.opc, "slt" => u.slt,
            "rci" => u.rci, "flg" => u.flg, "user" => u.user, "ktb" => ktb(py, &u.ktb)?,
            "kdo" => match &u.kdo { Some(k) => kdo(py, k)?, None => py.None().into_bound(py) },
            "columns" => columns(py, &u.columns)?, "positions" => u.positions.clone(),
            "qmi_rows" => qmi_rows(py, &u.qmi_rows)?, "rowdep_scn" => u.rowdep_scn,
            "supplemental" => supplemental(py, &u.supplemental)?, "raw_fields" => byte_list(py, &u.raw_fields)?),
        OpBody::Begin(t) => dict!(py, "TransactionBegin";
            "xid" => xid(&t.xid), "uba" => uba(&t.uba), "flg" => t.flg, "siz" => t.siz, "fbi" => t.fbi,
            "parent_xid" => t.parent_xid.as_ref().map(xid), "con_uid" => t.con_uid),
        OpBody::End(t) => dict!(py, "TransactionEnd";
            "xid" => xid(&t.xid), "srt" => t.srt, "sta" => t.sta, "flg" => t.flg,
            "uba" => t.uba.as_ref().map(uba), "unix_time" => t.unix_time),
        OpBody::PartialRollback(p) => dict!(py, "PartialRollback";
            "usn" => p.usn, "slt" => p.slt, "obj" => p.obj, "dataobj" => p.dataobj, "opc" => p.opc, "flg" => p.flg),
        OpBody::Row(r) => dict!(py, "RowOperation";
            "ktb" => ktb(py, &r.ktb)?, "kdo" => kdo(py, &r.kdo)?, "columns" => columns(py, &r.columns)?,
            "positions" => r.positions.clone(), "qmi_rows" => qmi_rows(py, &r.qmi_rows)?, "rowdep_scn" => r.rowdep_scn),
        OpBody::Session(s) => dict!(py, "SessionInfo";
            "session" => s.session, "serial" => s.serial, "current_user" => &s.current_user,
            "login_user" => &s.login_user, "client_info" => &s.client_info, "os_user" => &s.os_user,
            "machine" => &s.machine, "terminal" => &s.terminal, "process" => &s.process, "program" => &s.program,
            "transaction_name" => &s.transaction_name, "flags" => s.flags, "flags2" => s.flags2,
            "version" => s.version, "audit_session_id" => s.audit_session_id, "client_id" => &s.client_id),
        OpBody::Ddl(d) => dict!(py, "Ddl";
            "xid" => xid(&d.xid), "ddl_type" => d.ddl_type, "obj" => d.obj, "schema" => &d.schema, "text" => &d.text),
        OpBody::DirectLoad(d) => dict!(py, "DirectLoadBlock";
            "dataobj" => d.dataobj, "lob_id" => bytes(py, d.lob_id), "page_no" => d.page_no, "pdba" => d.pdba,
            "data" => bytes(py, d.data), "slots" => d.slots.clone(), "rows" => qmi_rows(py, &d.rows)?,
            "itl_xids" => d.itl_xids.iter().map(xid).collect::<Vec<_>>()),
        OpBody::Lob(l) => {
            let common = kdli_common(py, &l.common)?;
            let items = l.items.iter().map(|i| kdli_item(py, i)).collect::<PyResult<Vec<_>>>()?;
            dict!(py, "LobChange"; "ktb" => ktb(py, &l.ktb)?, "common" => common, "items" => items)
        }
        OpBody::LobImage(l) => dict!(py, "LobImage";
            "common" => kdli_common(py, &l.common)?, "dataobj" => l.dataobj, "head" => kdli_item(py, &l.head)?,
            "item" => kdli_item(py, &l.item)?, "page" => bytes(py, l.page),
            "trailer" => match &l.trailer { Some(t) => kdli_item(py, t)?, None => py.None().into_bound(py) }),
        OpBody::LobSupport(l) => dict!(py, "LobSupport";
            "kind" => l.kind, "lob_id" => opt_bytes(py, l.lob_id)?, "sizes" => l.sizes.clone()),
        OpBody::Opaque(category) => dict!(py, "Opaque"; "category" => *category),
    }
}

fn vector<'py>(py: Python<'py>, v: &ChangeVector<'_>) -> PyResult<Obj<'py>> {
    dict!(py, "ChangeVector";
        "index" => v.index, "layer" => v.layer, "code" => v.code, "block_class" => v.block_class,
        "afn" => v.afn, "dba" => v.dba, "obj" => v.obj, "scn" => v.scn, "seq" => v.seq,
        "change_type" => v.change_type, "con_id" => v.con_id, "flg" => v.flg, "body" => body(py, &v.body)?,
        "fields" => byte_list(py, &v.fields)?, "offset" => v.offset)
}

fn lwn<'py>(py: Python<'py>, l: &Option<LwnHeader>) -> PyResult<Obj<'py>> {
    let Some(l) = l else { return Ok(py.None().into_bound(py)) };
    dict!(py, "LwnHeader"; "number" => l.number, "nst" => l.nst, "length" => l.length, "scn" => l.scn, "time" => l.time)
}

/// A record as a dict (`time` and LWN `time` are raw redo times, redo-format §3.5).
pub fn record<'py>(py: Python<'py>, r: &RedoRecord<'_>) -> PyResult<Obj<'py>> {
    let vectors = r.vectors.iter().map(|v| vector(py, v)).collect::<PyResult<Vec<_>>>()?;
    dict!(py, "RedoRecord";
        "thread" => r.thread, "rba" => (r.rba.seq, r.rba.block, r.rba.offset), "length" => r.length,
        "vld" => r.vld, "scn" => r.scn, "subscn" => r.subscn, "con_uid" => r.con_uid, "time" => r.time,
        "lwn" => lwn(py, &r.lwn)?, "vectors" => vectors)
}

pub fn corrupt_range<'py>(py: Python<'py>, c: &CorruptRange) -> PyResult<Obj<'py>> {
    dict!(py, "CorruptRange";
        "file" => c.file.as_deref(), "sequence" => c.sequence, "start_block" => c.start_block,
        "start_offset" => c.start_offset, "end_block" => c.end_block, "end_offset" => c.end_offset, "kind" => c.kind)
}

/// The header as a dict (times raw, like records).
pub fn header<'py>(py: Python<'py>, h: &LogHeader) -> PyResult<Obj<'py>> {
    dict!(py, "LogHeader";
        "big_endian" => h.big_endian, "block_size" => h.block_size, "block_count" => h.block_count,
        "file_type" => h.file_type, "compat_version" => h.compat_version, "dbid" => h.dbid,
        "db_name" => &h.db_name, "control_seq" => h.control_seq, "file_size" => h.file_size,
        "file_number" => h.file_number, "activation_id" => h.activation_id, "description" => &h.description,
        "nab" => h.nab, "resetlogs_id" => h.resetlogs_id, "resetlogs_scn" => h.resetlogs_scn, "hws" => h.hws,
        "thread" => h.thread, "sequence" => h.sequence, "first_scn" => h.first_scn, "first_time" => h.first_time,
        "next_scn" => h.next_scn, "next_time" => h.next_time, "enabled_scn" => h.enabled_scn,
        "enabled_time" => h.enabled_time, "thread_closed_scn" => h.thread_closed_scn,
        "thread_closed_time" => h.thread_closed_time, "misc_flags" => h.misc_flags,
        "terminal_recovery_scn" => h.terminal_recovery_scn, "terminal_recovery_time" => h.terminal_recovery_time,
        "most_recent_scn" => h.most_recent_scn, "largest_lwn" => h.largest_lwn, "real_next_scn" => h.real_next_scn,
        "prev_resetlogs_scn" => h.prev_resetlogs_scn, "prev_resetlogs_id" => h.prev_resetlogs_id,
        "misc_flags2" => h.misc_flags2, "zero_blocks" => h.zero_blocks, "format_id" => h.format_id,
        "eot" => h.eot, "dis" => h.dis, "checksum" => h.checksum)
}
