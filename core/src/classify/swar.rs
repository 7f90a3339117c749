//! Word-at-a-time (SWAR) byte tests: eight bytes per step, no `unsafe`, no SIMD.

pub const LO: u64 = 0x0101_0101_0101_0101;
pub const HI: u64 = 0x8080_8080_8080_8080;

/// The high bit of each zero byte of `w` is set. Every zero byte is flagged, but a borrow may
/// also flag a byte just above a zero byte: the lowest flag is exact, "no flag" means "no zero
/// byte", and higher flags are candidates to check.
#[inline(always)]
pub fn has_zero(w: u64) -> u64 {
    w.wrapping_sub(LO) & !w & HI
}

/// The high bit of each byte of `w` that is `b`, as [`has_zero`].
#[inline(always)]
pub fn has_byte(w: u64, b: u8) -> u64 {
    has_zero(w ^ (LO * u64::from(b)))
}

/// The high bit of each ASCII capital letter of `w` (exact for every byte).
#[inline(always)]
pub fn has_upper(w: u64) -> u64 {
    let low7 = w & (LO * 0x7f);
    (LO * (127 + 0x5b)).wrapping_sub(low7) & !w & (low7 + LO * (127 - 0x40)) & HI
}

/// 8 bytes of `b` from `i` (which must leave 8).
#[inline(always)]
pub fn word(b: &[u8], i: usize) -> u64 {
    u64::from_le_bytes(b[i..i + 8].try_into().expect("8 bytes"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn flags(f: impl Fn(u8) -> bool, bytes: [u8; 8]) -> u64 {
        (0..8)
            .filter(|i| f(bytes[*i]))
            .map(|i| 0x80u64 << (8 * i))
            .sum()
    }

    /// Every byte value at every position, between neighbours of every kind.
    #[test]
    fn byte_tests_flag_what_they_say() {
        let fill = [
            0u8, 1, b'A', b'Z', b'@', b'[', b'a', 0x7f, 0x80, 0xc1, 0xda, 0xff, b'"',
        ];
        for b in 0..=255u8 {
            for pos in 0..8 {
                for &f in &fill {
                    let mut bytes = [f; 8];
                    bytes[pos] = b;
                    let w = u64::from_le_bytes(bytes);
                    assert_eq!(
                        has_upper(w),
                        flags(|c| c.is_ascii_uppercase(), bytes),
                        "{bytes:?}"
                    );
                    for target in [0u8, b'"', b':', b'#', b, f] {
                        let want = flags(|c| c == target, bytes);
                        let got = has_byte(w, target);
                        // Every match flagged, the lowest flag exact, extra flags only above it.
                        assert_eq!(got & want, want, "{bytes:?} {target}");
                        assert_eq!(got == 0, want == 0);
                        if want != 0 {
                            assert_eq!(got.trailing_zeros(), want.trailing_zeros());
                        }
                    }
                }
            }
        }
    }
}
