//! Where two versions of a text part: how many bytes they share at their start and at
//! their end. The language server turns a client's buffer into one edit with them, and
//! the checker tells a kept parse of a function how today's text differs from it.
//!
//! Why here: both readers wrote their own copy of the same block-wise comparison; the
//! one place below both is this crate.

/// Bytes compared at a time before the first block that differs is walked byte by
/// byte: byte by byte throughout, a keystroke in a 3 MB buffer cost ~3 ms in the
/// server's diff alone (a block comparison is a `memcmp`).
const BLOCK: usize = 256;

/// How many leading bytes `a` and `b` share.
pub fn common_prefix(a: &[u8], b: &[u8]) -> usize {
    let n = a.len().min(b.len());
    let mut i = 0;
    while i + BLOCK <= n && a[i..i + BLOCK] == b[i..i + BLOCK] {
        i += BLOCK;
    }
    i + a[i..n]
        .iter()
        .zip(&b[i..n])
        .take_while(|(x, y)| x == y)
        .count()
}

/// How many trailing bytes `a` and `b` share.
pub fn common_suffix(a: &[u8], b: &[u8]) -> usize {
    let n = a.len().min(b.len());
    let (ea, eb) = (a.len(), b.len());
    let mut i = 0;
    while i + BLOCK <= n && a[ea - i - BLOCK..ea - i] == b[eb - i - BLOCK..eb - i] {
        i += BLOCK;
    }
    i + a[..ea - i]
        .iter()
        .rev()
        .zip(b[..eb - i].iter().rev())
        .take_while(|(x, y)| x == y)
        .count()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Across block edges and inside one, against a byte-by-byte count.
    #[test]
    fn shared_ends_are_counted_across_blocks() {
        let slow_prefix = |a: &[u8], b: &[u8]| a.iter().zip(b).take_while(|(x, y)| x == y).count();
        let slow_suffix = |a: &[u8], b: &[u8]| {
            a.iter()
                .rev()
                .zip(b.iter().rev())
                .take_while(|(x, y)| x == y)
                .count()
        };
        let base: Vec<u8> = (0..1000u32).map(|i| b'a' + (i % 26) as u8).collect();
        for at in [0, 1, 255, 256, 257, 511, 512, 999] {
            let mut other = base.clone();
            other[at] = b'#';
            for (a, b) in [
                (&base[..], &other[..]),
                (&base[..700], &other[..]),
                (&base[..], &base[..at]),
            ] {
                assert_eq!(
                    common_prefix(a, b),
                    slow_prefix(a, b),
                    "prefix, change at {at}"
                );
                assert_eq!(
                    common_suffix(a, b),
                    slow_suffix(a, b),
                    "suffix, change at {at}"
                );
            }
        }
        assert_eq!(common_prefix(b"", b"abc"), 0);
        assert_eq!(common_suffix(&base, &base), base.len());
    }
}
