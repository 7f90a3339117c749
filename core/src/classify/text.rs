//! Whole-word phrase matching over lower-cased text.

use std::sync::OnceLock;

use aho_corasick::AhoCorasick;

use super::swar::{has_byte, word};
use crate::category::Category;

/// A phrase table compiled into one automaton: one pass over the text finds every phrase; the
/// earliest row of the table that matches on word boundaries wins.
pub struct PhraseSet {
    ac: AhoCorasick,
    rows: &'static [(&'static str, Category)],
}

impl PhraseSet {
    pub fn new(rows: &'static [(&'static str, Category)]) -> Self {
        let ac = AhoCorasick::new(rows.iter().map(|(p, _)| p)).expect("phrase table compiles");
        PhraseSet { ac, rows }
    }

    /// The category of the highest-priority phrase present in `hay` (lower-case).
    pub fn first(&self, hay: &str) -> Option<Category> {
        let h = hay.as_bytes();
        let mut best: Option<usize> = None;
        for m in self.ac.find_overlapping_iter(hay) {
            let row = m.pattern().as_usize();
            if best.is_some_and(|b| b <= row) {
                continue;
            }
            let p = self.rows[row].0.as_bytes();
            let left_ok = !is_word(p[0]) || m.start() == 0 || !is_word(h[m.start() - 1]);
            let right_ok = !is_word(p[p.len() - 1]) || m.end() == h.len() || !is_word(h[m.end()]);
            if left_ok && right_ok {
                best = Some(row);
            }
        }
        best.map(|b| self.rows[b].1)
    }
}

/// The compiled permanent and transient phrase tables.
pub fn permanent() -> &'static PhraseSet {
    static S: OnceLock<PhraseSet> = OnceLock::new();
    S.get_or_init(|| PhraseSet::new(super::tables::PERMANENT_PHRASES))
}

pub fn transient() -> &'static PhraseSet {
    static S: OnceLock<PhraseSet> = OnceLock::new();
    S.get_or_init(|| PhraseSet::new(super::tables::TRANSIENT_PHRASES))
}

/// A byte that continues a word: letters, digits and `_` (so `max_tokens` is one word).
fn is_word(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_'
}

/// `hay[from..].find(needle)`, as an index into `hay`. Classification searches short texts for
/// short needles, where building `str::find`'s two-way searcher (~250 instructions) costs more
/// than the search: a word-at-a-time scan for the needle's first byte does those; long texts
/// keep the linear-time searcher.
fn find_at(hay: &str, needle: &str, from: usize) -> Option<usize> {
    const SHORT: usize = 256;
    let h = &hay.as_bytes()[from..];
    let n = needle.as_bytes();
    if h.len() > SHORT {
        return hay[from..].find(needle).map(|p| from + p);
    }
    let Some(&first) = n.first() else {
        return Some(from); // as `find` answers an empty needle
    };
    let last = h.len().checked_sub(n.len())?; // the last possible start
                                              // A match of a whole (valid UTF-8) needle starts on a char boundary, as `find`'s do.
    let at = |p: usize| p <= last && &h[p..p + n.len()] == n;
    let mut i = 0;
    while i + 8 <= h.len() && i <= last {
        // Every `first` byte is flagged (and maybe a byte above one): each flag is checked.
        let mut flags = has_byte(word(h, i), first);
        while flags != 0 {
            let p = i + (flags.trailing_zeros() / 8) as usize;
            if at(p) {
                return Some(from + p);
            }
            flags &= flags - 1;
        }
        i += 8;
    }
    (i..=last)
        .find(|&p| h[p] == first && at(p))
        .map(|p| from + p)
}

/// Whether `phrase` (lower-case) occurs in `hay` (lower-case) with word boundaries on both sides.
/// Boundaries are only required where the phrase itself begins or ends with a word character,
/// so "without `tool_result`" matches before a dot.
pub fn contains_phrase(hay: &str, phrase: &str) -> bool {
    let h = hay.as_bytes();
    let p = phrase.as_bytes();
    if p.is_empty() || p.len() > h.len() {
        return false;
    }
    let need_left = is_word(p[0]);
    let need_right = is_word(p[p.len() - 1]);
    let mut from = 0;
    while let Some(start) = find_at(hay, phrase, from) {
        let end = start + p.len();
        let left_ok = !need_left || start == 0 || !is_word(h[start - 1]);
        let right_ok = !need_right || end == h.len() || !is_word(h[end]);
        if left_ok && right_ok {
            return true;
        }
        // Advance by one char boundary past `start`.
        from = start + hay[start..].chars().next().map_or(1, char::len_utf8);
        if from >= hay.len() {
            break;
        }
    }
    false
}

/// Finds an HTTP status (400-599) introduced by one of `introducers` ("error code: 429",
/// "HTTP 503", "status=502"). Bare numbers are ignored.
pub fn status_in_text(hay: &str, introducers: &[&str]) -> Option<u16> {
    let h = hay.as_bytes();
    for intro in introducers {
        let mut from = 0;
        while let Some(start) = find_at(hay, intro, from) {
            let end = start + intro.len();
            from = end;
            if start > 0 && is_word(h[start - 1]) {
                continue;
            }
            if end < h.len() && is_word(h[end]) {
                continue;
            }
            // Skip separators: spaces, ':', '=', '"', '\''.
            let mut i = end;
            while i < h.len() && matches!(h[i], b' ' | b':' | b'=' | b'"' | b'\'') && i - end < 4 {
                i += 1;
            }
            if i + 3 <= h.len()
                && h[i..i + 3].iter().all(u8::is_ascii_digit)
                && (i + 3 == h.len() || !is_word(h[i + 3]))
            {
                let n = (h[i] - b'0') as u16 * 100
                    + (h[i + 1] - b'0') as u16 * 10
                    + (h[i + 2] - b'0') as u16;
                if (400..=599).contains(&n) {
                    return Some(n);
                }
            }
        }
    }
    None
}

/// Lower-cases ASCII, bounded: huge bodies are only scanned in their first `limit` bytes.
pub fn lower_bounded(s: &str, limit: usize) -> String {
    let mut end = s.len().min(limit);
    while !s.is_char_boundary(end) {
        end -= 1;
    }
    s[..end].to_ascii_lowercase()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn phrases_match_whole_words_only() {
        assert!(contains_phrase(
            "connection refused by peer",
            "connection refused"
        ));
        assert!(!contains_phrase("we connected fine", "connection"));
        assert!(!contains_phrase("max_tokens 1500", "500"));
        assert!(contains_phrase("error: timeout.", "timeout"));
        assert!(!contains_phrase("read_timeout_ms", "timeout"));
        assert!(contains_phrase(
            "ids were found without `tool_result` blocks",
            "without `tool_result`"
        ));
    }

    #[test]
    fn phrase_sets_agree_with_the_slow_scan() {
        use crate::classify::tables::PERMANENT_PHRASES;
        for hay in [
            "invalid api key for connection",
            "tool_use ids were found without `tool_result` blocks",
            "prompt is too long",
            "we connected",
            "billing_details",
            "nothing",
        ] {
            let slow = PERMANENT_PHRASES
                .iter()
                .find(|(p, _)| contains_phrase(hay, p))
                .map(|(_, c)| *c);
            assert_eq!(permanent().first(hay), slow, "{hay}");
        }
    }

    /// The short-text search finds what `str::find` finds, at every offset, in ASCII and
    /// multi-byte text, below and above the length where it hands over to `str::find`.
    #[test]
    fn find_at_agrees_with_str_find() {
        let needles = [
            "",
            "a",
            "ab",
            "aab",
            "status",
            "http/1.1",
            "é",
            "éa",
            "overloaded",
            "zz",
            "abcdefghijk",
        ];
        let mut hays = vec![String::new(), "a".into(), "ab".into(), "é".into()];
        for len in [7, 8, 9, 15, 16, 17, 31, 63, 255, 256, 257, 300] {
            let text: String = "aab éab status http/1.1 overloaded abcdefghij abcdefghijk "
                .chars()
                .cycle()
                .take(len)
                .collect();
            hays.push(text.clone());
            hays.push(text.replace('a', "é"));
            hays.push("x".repeat(len.saturating_sub(2)) + "ab");
        }
        for hay in &hays {
            for needle in needles {
                for from in (0..=hay.len()).filter(|i| hay.is_char_boundary(*i)) {
                    assert_eq!(
                        find_at(hay, needle, from),
                        hay[from..].find(needle).map(|p| from + p),
                        "{needle:?} in {hay:?} from {from}"
                    );
                }
            }
        }
    }

    #[test]
    fn status_needs_an_introducer() {
        assert_eq!(
            status_in_text("error code: 429 - {...}", &["error code"]),
            Some(429)
        );
        assert_eq!(
            status_in_text("max_tokens: 1500", &["error code", "code"]),
            None
        );
        assert_eq!(
            status_in_text("http 503 service unavailable", &["http"]),
            Some(503)
        );
        assert_eq!(status_in_text("status 5000", &["status"]), None);
        assert_eq!(status_in_text("status 200", &["status"]), None);
    }
}
