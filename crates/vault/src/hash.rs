//! FNV-1a: stable fingerprints of file contents (journal, compare-and-swap, duplicates).

/// A fingerprint of file contents: 64-bit FNV-1a as 16 lower-case hex digits. The same on
/// every run and platform, so it can be stored (journals, indexes) and compared later. Not a
/// cryptographic hash: it tells whether contents changed, not whether someone forged them.
pub fn fingerprint(bytes: &[u8]) -> String {
    format!("{:016x}", fnv1a(FNV_OFFSET, bytes))
}

/// The FNV-1a start value; feeding pieces one after another to [`fnv1a`] hashes their
/// concatenation.
pub const FNV_OFFSET: u64 = 0xcbf2_9ce4_8422_2325;

/// 64-bit FNV-1a, continued from `h`.
pub fn fnv1a(mut h: u64, bytes: &[u8]) -> u64 {
    for &b in bytes {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
    h
}
