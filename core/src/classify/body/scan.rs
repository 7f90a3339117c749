//! A hand-written reader for the usual provider error envelopes (OpenAI / Azure
//! `{"error":{"type","code","message",...}}`, Anthropic `{"type":"error","error":{...}}`, Gemini
//! `{"error":{"code":429,"status":...}}` and its one-element array, AWS `{"__type","message"}`,
//! Ollama `{"error":"..."}`, vLLM, Gemini safety blocks).
//!
//! It validates the whole body as JSON the way serde_json does and fills the same [`Envelope`]
//! the typed serde path fills, borrowing every string without escapes and skipping everything
//! else without building it. It is only ever *sure or silent*: on anything it does not read
//! exactly as the serde paths would, it returns `None` and they decide. It gives up on:
//!
//! - escaped object keys (of the envelope's own objects) and any `\u` surrogate escape;
//! - a known field given twice (the typed path rejects it and the `Value` path, last key wins,
//!   decides);
//! - a known field of an odd shape (`innererror`, `promptFeedback` or a candidate that is not an
//!   object or null, `candidates` that is not an array or null);
//! - a number in a field that is read that is not a plain non-negative integer fitting `u64`
//!   (serde_json reads those as `i64`/`f64`, and rejects out-of-range floats);
//! - a top-level array that is not exactly one object;
//! - nesting deeper than [`MAX_DEPTH`];
//! - any JSON syntax error (serde_json reports it; `parse` then answers `None` as before).

use std::borrow::Cow;

use super::typed::{Candidate, Envelope, ErrObj, ErrorField, Feedback, Inner, Scalar};
use crate::classify::swar::{has_byte, word, HI, LO};

/// Deeper bodies go to serde_json (whose own limit, 128, counts fewer levels than this does).
const MAX_DEPTH: u32 = 64;

/// Reads `body` (already trimmed at the start) into `env` (a default one); `None` when unsure
/// (`env` is then half-filled and must be thrown away).
pub(super) fn envelope<'a>(body: &'a str, env: &mut Envelope<'a>) -> Option<()> {
    let mut s = Scanner {
        src: body,
        b: body.as_bytes(),
        i: 0,
        depth: 0,
    };
    match s.peek()? {
        b'{' => s.envelope(env)?,
        b'[' => {
            s.i += 1;
            s.ws();
            if s.peek()? != b'{' {
                return None;
            }
            s.envelope(env)?;
            s.ws();
            s.eat(b']')?;
        }
        _ => return None,
    }
    s.ws();
    (s.i == s.b.len()).then_some(())
}

struct Scanner<'a> {
    src: &'a str,
    b: &'a [u8],
    i: usize,
    depth: u32,
}

/// Marks a known field as seen; a second one makes the scanner give up.
fn first_time(seen: &mut u32, bit: u32) -> Option<()> {
    if *seen & bit != 0 {
        return None;
    }
    *seen |= bit;
    Some(())
}

/// The high bit of each `"`, `\` and control byte of `w`: exact for the lowest one (borrows only
/// run upwards), so `trailing_zeros() / 8` is the first such byte.
#[inline(always)]
fn specials(w: u64) -> u64 {
    has_byte(w, b'"') | has_byte(w, b'\\') | (w.wrapping_sub(LO * 0x20) & !w & HI)
}

/// [`Scanner::special`] out of line: a tight loop, 16 bytes a turn, for long strings.
#[inline(never)]
fn special_from(b: &[u8], from: usize) -> Option<usize> {
    let rest = b.get(from..)?;
    let mut chunks = rest.chunks_exact(16);
    let mut at = from;
    for c in &mut chunks {
        let (w0, w1) = c.split_at(8);
        let lo = specials(u64::from_le_bytes(w0.try_into().expect("8 bytes")));
        let hi = specials(u64::from_le_bytes(w1.try_into().expect("8 bytes")));
        if lo | hi != 0 {
            let hit = if lo != 0 {
                lo.trailing_zeros()
            } else {
                64 + hi.trailing_zeros()
            };
            return Some(at + (hit / 8) as usize);
        }
        at += 16;
    }
    let tail = chunks.remainder();
    if tail.is_empty() {
        return None;
    }
    // The last (under 16) bytes: at most two words, the second overlapping the first.
    if tail.len() > 8 {
        let hit = specials(word(tail, 0));
        if hit != 0 {
            return Some(at + (hit.trailing_zeros() / 8) as usize);
        }
    }
    // The final 8 bytes of the tail (or the whole, zero-padded above, which only flags past
    // the end: checked below).
    let (w, base) = if tail.len() >= 8 {
        (word(tail, tail.len() - 8), tail.len() - 8)
    } else {
        let w = tail
            .iter()
            .rev()
            .fold(0u64, |w, c| (w << 8) | u64::from(*c));
        (w, 0)
    };
    let hit = specials(w);
    let i = base + (hit.trailing_zeros() / 8) as usize;
    (hit != 0 && i < tail.len()).then_some(at + i)
}

impl<'a> Scanner<'a> {
    #[inline]
    fn peek(&self) -> Option<u8> {
        self.b.get(self.i).copied()
    }

    #[inline]
    fn eat(&mut self, c: u8) -> Option<()> {
        if self.peek()? == c {
            self.i += 1;
            Some(())
        } else {
            None
        }
    }

    /// JSON whitespace (serde_json's: space, tab, line feed, carriage return).
    #[inline]
    fn ws(&mut self) {
        while let Some(b' ' | b'\n' | b'\r' | b'\t') = self.b.get(self.i) {
            self.i += 1;
        }
    }

    fn literal(&mut self, word: &[u8]) -> Option<()> {
        if self.b[self.i..].starts_with(word) {
            self.i += word.len();
            Some(())
        } else {
            None
        }
    }

    /// The index of the first `"`, `\` or control byte at or after `from`. The first word is
    /// looked at inline (most keys and codes end there), the rest out of line.
    #[inline(always)]
    fn special(&self, from: usize) -> Option<usize> {
        if from + 8 <= self.b.len() {
            let hit = specials(word(self.b, from));
            if hit != 0 {
                return Some(from + (hit.trailing_zeros() / 8) as usize);
            }
            return special_from(self.b, from + 8);
        }
        special_from(self.b, from)
    }

    /// A string whose opening quote was consumed: borrowed when it has no escapes.
    #[inline(always)]
    fn string(&mut self) -> Option<Cow<'a, str>> {
        let start = self.i;
        let end = self.special(start)?;
        match self.b[end] {
            b'"' => {
                self.i = end + 1;
                Some(Cow::Borrowed(&self.src[start..end]))
            }
            b'\\' => {
                let mut out = String::with_capacity(end - start + 16);
                out.push_str(&self.src[start..end]);
                self.i = end;
                self.string_rest(Some(&mut out))?;
                Some(Cow::Owned(out))
            }
            _ => None,
        }
    }

    /// Skips a string whose opening quote was consumed.
    fn skip_string(&mut self) -> Option<()> {
        self.string_rest(None)
    }

    /// The rest of a string from `self.i` (just after the opening quote, or at a backslash),
    /// decoded into `out` when given.
    fn string_rest(&mut self, mut out: Option<&mut String>) -> Option<()> {
        loop {
            let end = self.special(self.i)?;
            if let Some(o) = out.as_deref_mut() {
                o.push_str(&self.src[self.i..end]);
            }
            match self.b[end] {
                b'"' => {
                    self.i = end + 1;
                    return Some(());
                }
                b'\\' => {
                    self.i = end + 1;
                    let c = self.escape()?;
                    if let Some(o) = out.as_deref_mut() {
                        o.push(c);
                    }
                }
                _ => return None,
            }
        }
    }

    /// One escape after its backslash. Surrogates (even well-paired ones) are left to serde_json.
    fn escape(&mut self) -> Option<char> {
        let c = self.peek()?;
        self.i += 1;
        Some(match c {
            b'"' => '"',
            b'\\' => '\\',
            b'/' => '/',
            b'b' => '\x08',
            b'f' => '\x0c',
            b'n' => '\n',
            b'r' => '\r',
            b't' => '\t',
            b'u' => {
                let hex = self.b.get(self.i..self.i + 4)?;
                let mut n = 0u32;
                for h in hex {
                    n = n * 16 + char::from(*h).to_digit(16)?;
                }
                self.i += 4;
                // `from_u32` refuses exactly the surrogates.
                char::from_u32(n)?
            }
            _ => return None,
        })
    }

    /// An object key whose opening quote was consumed: `None` (give up) if it has escapes.
    #[inline(always)]
    fn key(&mut self) -> Option<&'a str> {
        let start = self.i;
        let end = self.special(start)?;
        if self.b[end] != b'"' {
            return None;
        }
        self.i = end + 1;
        Some(&self.src[start..end])
    }

    fn enter(&mut self) -> Option<()> {
        self.depth += 1;
        (self.depth <= MAX_DEPTH).then_some(())
    }

    /// At `closer`: steps over it and out of the container (true). Anywhere else: false.
    #[inline]
    fn closes(&mut self, closer: u8) -> Option<bool> {
        if self.peek()? != closer {
            return Some(false);
        }
        self.i += 1;
        self.depth -= 1;
        Some(true)
    }

    /// After an item of a container: the closer (true: done) or a comma before the next item
    /// (false); anything else is not JSON this scanner reads.
    #[inline]
    fn after_item(&mut self, closer: u8) -> Option<bool> {
        self.ws();
        if self.closes(closer)? {
            return Some(true);
        }
        self.eat(b',')?;
        self.ws();
        Some(false)
    }

    /// An object at `{`: `field` reads each value (whitespace skipped) given its key. Keys with
    /// escapes are skipped (`escaped_keys`) or make the scanner give up.
    fn object(
        &mut self,
        escaped_keys: bool,
        mut field: impl FnMut(&mut Self, Option<&'a str>) -> Option<()>,
    ) -> Option<()> {
        self.enter()?;
        self.i += 1;
        self.ws();
        if self.closes(b'}')? {
            return Some(());
        }
        loop {
            self.eat(b'"')?;
            let key = match self.key() {
                Some(k) => Some(k),
                None if escaped_keys => {
                    self.skip_string()?;
                    None
                }
                None => return None,
            };
            self.ws();
            self.eat(b':')?;
            self.ws();
            field(self, key)?;
            if self.after_item(b'}')? {
                return Some(());
            }
        }
    }

    /// An array at `[`: `item` reads each element (whitespace skipped).
    fn array(&mut self, mut item: impl FnMut(&mut Self) -> Option<()>) -> Option<()> {
        self.enter()?;
        self.i += 1;
        self.ws();
        if self.closes(b']')? {
            return Some(());
        }
        loop {
            item(self)?;
            if self.after_item(b']')? {
                return Some(());
            }
        }
    }

    /// Skips any value (validating it as serde_json's `IgnoredAny` does).
    fn skip_value(&mut self) -> Option<()> {
        match self.peek()? {
            b'"' => {
                self.i += 1;
                self.skip_string()
            }
            b'{' => self.object(true, |s, _| s.skip_value()),
            b'[' => self.array(Self::skip_value),
            b'-' | b'0'..=b'9' => self.skip_number(),
            b'n' => self.literal(b"null"),
            b't' => self.literal(b"true"),
            b'f' => self.literal(b"false"),
            _ => None,
        }
    }

    fn digits(&mut self) -> usize {
        let start = self.i;
        while let Some(b'0'..=b'9') = self.b.get(self.i) {
            self.i += 1;
        }
        self.i - start
    }

    /// A number's syntax: `-? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?`.
    fn skip_number(&mut self) -> Option<()> {
        if self.peek()? == b'-' {
            self.i += 1;
        }
        let first = self.peek()?;
        let n = self.digits();
        if n == 0 || (first == b'0' && n > 1) {
            return None;
        }
        if self.peek() == Some(b'.') {
            self.i += 1;
            if self.digits() == 0 {
                return None;
            }
        }
        if let Some(b'e' | b'E') = self.peek() {
            self.i += 1;
            if let Some(b'+' | b'-') = self.peek() {
                self.i += 1;
            }
            if self.digits() == 0 {
                return None;
            }
        }
        Some(())
    }

    /// A plain non-negative integer that fits `u64` (anything else: give up).
    fn uint(&mut self) -> Option<u64> {
        let start = self.i;
        let mut n: u64 = 0;
        while let Some(d @ b'0'..=b'9') = self.b.get(self.i).copied() {
            n = n.checked_mul(10)?.checked_add(u64::from(d - b'0'))?;
            self.i += 1;
        }
        if (self.b[start] == b'0' && self.i - start > 1)
            || matches!(self.peek(), Some(b'.' | b'e' | b'E'))
        {
            return None;
        }
        Some(n)
    }

    /// A field read as a [`Scalar`]: a string, a number, or anything else skipped.
    #[inline(always)]
    fn scalar(&mut self) -> Option<Scalar<'a>> {
        match self.peek()? {
            b'"' => {
                self.i += 1;
                self.string().map(Scalar::Str)
            }
            b'0'..=b'9' => self.uint().map(Scalar::Num),
            b'n' | b't' | b'f' | b'[' | b'{' => {
                self.skip_value()?;
                Some(Scalar::Other)
            }
            _ => None,
        }
    }

    /// An `Option<T>` field whose `T` is an object: `null` is `None`, other shapes give up.
    fn optional_object<T>(
        &mut self,
        read: impl FnOnce(&mut Self) -> Option<T>,
    ) -> Option<Option<T>> {
        match self.peek()? {
            b'n' => {
                self.literal(b"null")?;
                Some(None)
            }
            b'{' => read(self).map(Some),
            _ => None,
        }
    }

    fn envelope(&mut self, env: &mut Envelope<'a>) -> Option<()> {
        let mut seen = 0u32;
        self.object(false, |s, key| {
            match key? {
                "error" => {
                    first_time(&mut seen, 1)?;
                    s.error_field(&mut env.error)?;
                }
                "__type" => {
                    first_time(&mut seen, 2)?;
                    env.aws_type = s.scalar()?;
                }
                "code" => {
                    first_time(&mut seen, 4)?;
                    env.code = s.scalar()?;
                }
                "type" => {
                    first_time(&mut seen, 8)?;
                    env.kind = s.scalar()?;
                }
                "object" => {
                    first_time(&mut seen, 16)?;
                    env.object = s.scalar()?;
                }
                "message" => {
                    first_time(&mut seen, 32)?;
                    env.message = s.scalar()?;
                }
                "Message" => {
                    first_time(&mut seen, 64)?;
                    env.message_aws = s.scalar()?;
                }
                "promptFeedback" => {
                    first_time(&mut seen, 128)?;
                    env.prompt_feedback = s.optional_object(Self::feedback)?;
                }
                "candidates" => {
                    first_time(&mut seen, 256)?;
                    env.candidates = match s.peek()? {
                        b'n' => {
                            s.literal(b"null")?;
                            None
                        }
                        b'[' => {
                            let mut list = Vec::new();
                            s.array(|s| {
                                if s.peek()? != b'{' {
                                    return None;
                                }
                                list.push(s.candidate()?);
                                Some(())
                            })?;
                            Some(list)
                        }
                        _ => return None,
                    };
                }
                _ => s.skip_value()?,
            }
            Some(())
        })
    }

    /// `"error"`: an object, a string, or anything else (`null` is absent).
    fn error_field(&mut self, out: &mut Option<ErrorField<'a>>) -> Option<()> {
        *out = Some(match self.peek()? {
            b'{' => {
                // Filled in place: an `ErrObj` is large.
                let e = match out.insert(ErrorField::Obj(ErrObj::default())) {
                    ErrorField::Obj(e) => e,
                    _ => unreachable!(),
                };
                return self.error_object(e);
            }
            b'"' => {
                self.i += 1;
                ErrorField::Str(self.string()?)
            }
            b'n' => {
                self.literal(b"null")?;
                return Some(());
            }
            b'0'..=b'9' => {
                self.uint()?;
                ErrorField::Other
            }
            b't' | b'f' | b'[' => {
                self.skip_value()?;
                ErrorField::Other
            }
            _ => return None,
        });
        Some(())
    }

    fn error_object(&mut self, e: &mut ErrObj<'a>) -> Option<()> {
        let mut seen = 0u32;
        self.object(false, |s, key| {
            match key? {
                "innererror" => {
                    first_time(&mut seen, 1)?;
                    e.innererror = s.optional_object(Self::inner)?;
                }
                "code" => {
                    first_time(&mut seen, 2)?;
                    e.code = s.scalar()?;
                }
                "type" => {
                    first_time(&mut seen, 4)?;
                    e.kind = s.scalar()?;
                }
                "status" => {
                    first_time(&mut seen, 8)?;
                    e.status = s.scalar()?;
                }
                "message" => {
                    first_time(&mut seen, 16)?;
                    e.message = s.scalar()?;
                }
                _ => s.skip_value()?,
            }
            Some(())
        })
    }

    /// An object with one known scalar field (`innererror.code`, `blockReason`,
    /// `finishReason`).
    fn one_field(&mut self, name: &str) -> Option<Scalar<'a>> {
        let mut v = Scalar::Other;
        let mut seen = 0u32;
        self.object(false, |s, key| {
            if key? == name {
                first_time(&mut seen, 1)?;
                v = s.scalar()?;
            } else {
                s.skip_value()?;
            }
            Some(())
        })?;
        Some(v)
    }

    fn inner(&mut self) -> Option<Inner<'a>> {
        Some(Inner {
            code: self.one_field("code")?,
        })
    }

    fn feedback(&mut self) -> Option<Feedback<'a>> {
        Some(Feedback {
            block_reason: self.one_field("blockReason")?,
        })
    }

    fn candidate(&mut self) -> Option<Candidate<'a>> {
        Some(Candidate {
            finish_reason: self.one_field("finishReason")?,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn naive(b: &[u8], from: usize) -> Option<usize> {
        (from..b.len()).find(|i| matches!(b[*i], b'"' | b'\\') || b[*i] < 0x20)
    }

    /// The word-at-a-time search finds what a byte loop finds: every special byte at every
    /// position of every length, with and without other specials after it, from every start.
    #[test]
    fn special_bytes_are_found_where_a_byte_loop_finds_them() {
        for len in 0..48 {
            for special in [
                None,
                Some(b'"'),
                Some(b'\\'),
                Some(0u8),
                Some(0x1f),
                Some(b'\n'),
            ] {
                for at in 0..len.max(1) {
                    let mut b: Vec<u8> = (0..len).map(|i| b"ab\x7f\xc3\xa9 ~!"[i % 8]).collect();
                    if let Some(c) = special {
                        if at < len {
                            b[at] = c;
                            // A second special after the first must not hide it.
                            if at + 3 < len {
                                b[at + 3] = b'"';
                            }
                        }
                    }
                    for from in 0..=len {
                        let s = Scanner {
                            src: "",
                            b: &b,
                            i: 0,
                            depth: 0,
                        };
                        assert_eq!(s.special(from), naive(&b, from), "{b:?} from {from}");
                        assert_eq!(special_from(&b, from), naive(&b, from), "{b:?} from {from}");
                    }
                }
            }
        }
    }
}
