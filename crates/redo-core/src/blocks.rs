//! The 16-byte block header and the block checksum (redo-format §2, §2.1). Mirrors
//! `format/blocks.py`'s `check_blocks`, one block at a time.

use crate::endian::{EndianSlice, Endianity};
use crate::error::{Error, Position};
use crate::layout::valid_block_type;

/// §2 @0: block signature of a redo block.
pub const REDO_BLOCK_SIGNATURE: u8 = 0x01;

/// XOR of all 16-bit words of `block` (little-endian view); 0 iff the §2.1 rule holds. The rule is
/// endianness-independent (even-offset and odd-offset bytes each XOR to zero).
pub fn block_xor(block: &[u8]) -> u16 {
    let mut x: u64 = 0;
    let mut words = block.chunks_exact(8);
    for w in &mut words {
        x ^= u64::from_le_bytes([w[0], w[1], w[2], w[3], w[4], w[5], w[6], w[7]]);
    }
    let mut tail = [0u8; 8];
    let rest = words.remainder();
    tail[..rest.len()].copy_from_slice(rest);
    x ^= u64::from_le_bytes(tail);
    x ^= x >> 32;
    x ^= x >> 16;
    (x & 0xFFFF) as u16
}

/// Does `block` satisfy §2.1 (XOR of all 16-bit words, checksum included, is 0)?
pub fn checksum_ok(block: &[u8]) -> bool {
    block_xor(block) == 0
}

/// Check one whole block against its place (§2): signature 0x01, file type valid for the block
/// size, block number = physical index `expected`, log sequence = `sequence`; then the §2.1
/// checksum. `None` when good. Errors carry sequence, block and offset (Python `check_blocks`).
pub fn check_block<E: Endianity>(
    block: &[u8],
    expected: u32,
    sequence: u32,
    checksums: bool,
) -> Option<Error> {
    let size = block.len();
    let h = EndianSlice::<E>::new(block);
    let (sig, typ) = (block[0], block[1]);
    let number = h.u32(4).unwrap_or(0);
    let seq = h.u32(8).unwrap_or(0);
    let problem = if sig != REDO_BLOCK_SIGNATURE {
        Some(format!("bad block signature 0x{sig:02x} (expected 0x01)"))
    } else if !valid_block_type(size as u32, typ) {
        Some(format!("bad block type 0x{typ:02x} for block size {size}"))
    } else if number != expected {
        Some(format!("block out of sequence: header says block {number}"))
    } else if seq != sequence {
        Some(format!("block belongs to log sequence {seq}, not {sequence}"))
    } else {
        None
    };
    let at = |offset| Position {
        sequence: Some(sequence),
        block: Some(expected),
        offset: Some(offset),
        file: None,
    };
    if let Some(problem) = problem {
        return Some(Error::block_header(problem, at(0)));
    }
    if checksums {
        let x = block_xor(block);
        if x != 0 {
            let stored = h.u16(14).unwrap_or(0);
            return Some(
                Error::checksum("block checksum mismatch", at(14))
                    .with_detail("stored", format!("0x{stored:04x}"))
                    .with_detail("xor", format!("0x{x:04x}")),
            );
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::endian::LittleEndian;

    fn block(number: u32, seq: u32) -> Vec<u8> {
        let mut b = vec![0u8; 512];
        b[0] = 1;
        b[1] = 0x22;
        b[4..8].copy_from_slice(&number.to_le_bytes());
        b[8..12].copy_from_slice(&seq.to_le_bytes());
        b[100] = 0xAB;
        let x = block_xor(&b);
        b[14] = (x & 0xFF) as u8;
        b[15] = (x >> 8) as u8;
        b
    }

    #[test]
    fn a_good_block_passes_and_each_fault_is_named() {
        let b = block(7, 3);
        assert!(check_block::<LittleEndian>(&b, 7, 3, true).is_none());
        let e = check_block::<LittleEndian>(&b, 8, 3, true).unwrap();
        assert_eq!(e.kind(), "block_header");
        assert_eq!(e.position().block, Some(8));
        let e = check_block::<LittleEndian>(&b, 7, 4, true).unwrap();
        assert!(e.info().message.contains("log sequence 3"));
        let mut bad = b.clone();
        bad[200] ^= 1;
        let e = check_block::<LittleEndian>(&bad, 7, 3, true).unwrap();
        assert_eq!((e.kind(), e.position().offset), ("checksum", Some(14)));
        assert!(check_block::<LittleEndian>(&bad, 7, 3, false).is_none());
    }
}
