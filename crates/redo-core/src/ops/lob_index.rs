//! BasicFile LOB index entries (redo-format §5.7): the 10.2 (insert leaf row) and 10.8 (init leaf
//! block) changes of a LOB index segment, whose key names a LOB id and a page number and whose key
//! data lists the DBAs of the LOB's pages from that page on. Read from the vector's raw fields: an
//! index vector is a LOB index entry only when its key has the §5.7 shape (byte 0 = 10, LOB id
//! starting `00 00 00 01`, byte 11 = 4); any other index change stays ignored (counted).
//!
//! 10.18 (update key data: the LOB's size in pages and the bytes of its last page) carries no LOB id
//! in its fields (§5.7: field 2 names the row by its slot only), so it is not read: a locator resolved
//! only through the index (flags 0x04 clear: no size in the row) stays unresolved and counted. What
//! the entries resolve is a page-list locator whose page count exceeds the DBAs it lists: the other
//! pages by their page number (OLR: "rest of data in LOB index").

use super::lob::LOB_ID_PREFIX;

/// One LOB index entry: pages `page`, `page + 1`, ... of LOB `lob_id` are at `dbas`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LobIndexEntry<'a> {
    pub lob_id: &'a [u8],
    pub page: u32,
    /// the be32 DBA list as stored (zero DBAs: unused slots of a 10.8 key)
    pub dbas: &'a [u8],
}

/// byte 0 and byte 11 of a BasicFile LOB index key
const KEY_HEAD: u8 = 10;
const KEY_MID: u8 = 4;

fn be32(b: &[u8]) -> u32 {
    u32::from_be_bytes([b[0], b[1], b[2], b[3]])
}

/// The 16-byte key shape at `key[..16]`: (LOB id, page number).
fn key(key: &[u8]) -> Option<(&[u8], u32)> {
    let k = key.get(..16)?;
    (k[0] == KEY_HEAD && k[11] == KEY_MID && k[1..5] == LOB_ID_PREFIX).then(|| (&k[1..11], be32(&k[12..16])))
}

/// The LOB index entry of an index vector `10.code` (fields 1-based as in §5.7), `None` when it is
/// not one: 10.2 single-row insert (field 2 code byte 0; key field 3; key data field 4: be32 DBAs);
/// 10.8 with its 50-byte key data in field 4 (bytes 0, 1 = 1, 1; 8 DBAs at 2..34; the key at 34).
pub fn lob_index_entry<'a>(code: u8, fields: &[&'a [u8]]) -> Option<LobIndexEntry<'a>> {
    match code {
        2 => {
            let head = fields.get(1)?;
            if head.get(1) != Some(&0) {
                return None; // array inserts (code 0x20): not a LOB index shape we read
            }
            let (lob_id, page) = key(fields.get(2)?)?;
            let dbas = fields.get(3)?;
            (!dbas.is_empty() && dbas.len() % 4 == 0).then_some(LobIndexEntry { lob_id, page, dbas })
        }
        8 => {
            let data = fields.get(3)?;
            if data.len() < 50 || data[0] != 1 || data[1] != 1 {
                return None;
            }
            let (lob_id, page) = key(&data[34..])?;
            Some(LobIndexEntry { lob_id, page, dbas: &data[2..34] })
        }
        _ => None,
    }
}

/// The DBAs of an entry's list, page by page (a zero DBA ends a 10.8 key's list).
pub fn entry_dbas(list: &[u8]) -> impl Iterator<Item = u32> + '_ {
    list.chunks_exact(4).map(be32).take_while(|&d| d != 0)
}

#[cfg(test)]
mod tests {
    use super::*;

    const ID: &[u8; 10] = b"\0\0\0\x01\0\0\0\0\0\x08";

    fn key16(page: u32) -> Vec<u8> {
        let mut k = vec![KEY_HEAD];
        k.extend_from_slice(ID);
        k.push(KEY_MID);
        k.extend_from_slice(&page.to_be_bytes());
        k
    }

    #[test]
    fn insert_and_init_leaf_entries() {
        let dbas: Vec<u8> = [0x0180_0110u32, 0x0180_0111].iter().flat_map(|d| d.to_be_bytes()).collect();
        let k = key16(12);
        let fields: [&[u8]; 4] = [&[0; 24], &[1, 0, 0, 0, 30, 0], &k, &dbas];
        let e = lob_index_entry(2, &fields).unwrap();
        assert_eq!((e.lob_id, e.page), (&ID[..], 12));
        assert_eq!(entry_dbas(e.dbas).collect::<Vec<_>>(), [0x0180_0110, 0x0180_0111]);
        // an array insert, another key shape, a key data of no DBA list: not LOB index entries
        assert!(lob_index_entry(2, &[&[0; 24], &[1, 0x20, 0, 0], &k, &dbas]).is_none());
        let mut other = k.clone();
        other[11] = 5;
        assert!(lob_index_entry(2, &[&[0; 24], &[1, 0, 0, 0], &other, &dbas]).is_none());
        assert!(lob_index_entry(2, &[&[0; 24], &[1, 0, 0, 0], &k, &dbas[..6]]).is_none());
        assert!(lob_index_entry(5, &fields).is_none());
        // 10.8: 1, 1, eight DBAs (two used), the key at 34
        let mut data = vec![1, 1];
        data.extend_from_slice(&dbas);
        data.extend_from_slice(&[0; 24]);
        data.extend_from_slice(&key16(20));
        let e = lob_index_entry(8, &[&[], &[0; 8], &[0; 4], &data]).unwrap();
        assert_eq!((e.page, entry_dbas(e.dbas).count()), (20, 2));
        // every cut of either: no entry, no panic
        for n in 0..data.len() {
            assert!(lob_index_entry(8, &[&[], &[0; 8], &[0; 4], &data[..n]]).is_none());
        }
        for n in 0..k.len() {
            assert!(lob_index_entry(2, &[&[0; 24], &[1, 0, 0, 0], &k[..n], &dbas]).is_none());
        }
    }
}
