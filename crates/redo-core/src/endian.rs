//! Endian-aware reads over byte slices, in the spirit of gimli's `Endianity`: one generic reader
//! serves little- and big-endian logs; the byte order is chosen once from the file header
//! (redo-format §1.3) and is a type parameter from there on, never tested per field.
//!
//! Every read is checked: a short slice is an `Err(Short)`, never a panic. Parsers check sizes
//! first (`need`, as the Python parsers do) so `Short` only guards against our own mistakes.

/// Byte order of a log's integers (`u16/u32` in file endianness, redo-format conventions).
pub trait Endianity: Copy + Default + Send + Sync + 'static {
    const BIG: bool;
    fn u16_of(bytes: [u8; 2]) -> u16;
    fn u32_of(bytes: [u8; 4]) -> u32;
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct LittleEndian;

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct BigEndian;

impl Endianity for LittleEndian {
    const BIG: bool = false;
    #[inline]
    fn u16_of(b: [u8; 2]) -> u16 {
        u16::from_le_bytes(b)
    }
    #[inline]
    fn u32_of(b: [u8; 4]) -> u32 {
        u32::from_le_bytes(b)
    }
}

impl Endianity for BigEndian {
    const BIG: bool = true;
    #[inline]
    fn u16_of(b: [u8; 2]) -> u16 {
        u16::from_be_bytes(b)
    }
    #[inline]
    fn u32_of(b: [u8; 4]) -> u32 {
        u32::from_be_bytes(b)
    }
}

/// A read past the end of a slice (turned into a `FormatError` by the caller).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Short {
    pub offset: usize,
    pub need: usize,
    pub have: usize,
}

/// A byte slice read in byte order `E` (gimli's `EndianSlice`). Copy, borrows, never allocates.
#[derive(Clone, Copy, Debug)]
pub struct EndianSlice<'a, E: Endianity> {
    pub bytes: &'a [u8],
    _e: E,
}

impl<'a, E: Endianity> EndianSlice<'a, E> {
    #[inline]
    pub fn new(bytes: &'a [u8]) -> Self {
        EndianSlice { bytes, _e: E::default() }
    }
    #[inline]
    pub fn len(&self) -> usize {
        self.bytes.len()
    }
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.bytes.is_empty()
    }
    #[inline]
    fn array<const N: usize>(&self, offset: usize) -> Result<[u8; N], Short> {
        offset
            .checked_add(N)
            .and_then(|end| self.bytes.get(offset..end))
            .and_then(|s| s.try_into().ok())
            .ok_or(Short { offset, need: N, have: self.bytes.len() })
    }
    #[inline]
    pub fn u8(&self, offset: usize) -> Result<u8, Short> {
        self.bytes.get(offset).copied().ok_or(Short { offset, need: 1, have: self.bytes.len() })
    }
    #[inline]
    pub fn u16(&self, offset: usize) -> Result<u16, Short> {
        self.array::<2>(offset).map(E::u16_of)
    }
    #[inline]
    pub fn i16(&self, offset: usize) -> Result<i16, Short> {
        self.u16(offset).map(|v| v as i16)
    }
    #[inline]
    pub fn u32(&self, offset: usize) -> Result<u32, Short> {
        self.array::<4>(offset).map(E::u32_of)
    }
    /// Always big-endian (`be16`/`be32` of the redo-format conventions: LOB locators, kdli items).
    #[inline]
    pub fn be16(&self, offset: usize) -> Result<u16, Short> {
        self.array::<2>(offset).map(u16::from_be_bytes)
    }
    #[inline]
    pub fn be32(&self, offset: usize) -> Result<u32, Short> {
        self.array::<4>(offset).map(u32::from_be_bytes)
    }
    /// `bytes[start..end]`, clamped like a Python slice (never fails).
    #[inline]
    pub fn slice(&self, start: usize, end: usize) -> &'a [u8] {
        let end = end.min(self.bytes.len());
        let start = start.min(end);
        &self.bytes[start..end]
    }
}
