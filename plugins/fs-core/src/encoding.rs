//! Text encoding detection, streaming decoding to UTF-8, and re-encoding on write.

use std::io::{self, Read};

/// Bytes scanned for a NUL byte (binary detection) and for BOM-less UTF-16.
pub const BINARY_PEEK: usize = 8 * 1024;
/// Bytes sampled to choose between UTF-8 and GB18030.
pub const DETECT_SAMPLE: usize = 256 * 1024;

const UTF8_BOM: [u8; 3] = [0xEF, 0xBB, 0xBF];
const UTF16LE_BOM: [u8; 2] = [0xFF, 0xFE];
const UTF16BE_BOM: [u8; 2] = [0xFE, 0xFF];

/// A text encoding a file was found to use.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TextEncoding {
    /// Valid UTF-8 without a BOM.
    Utf8,
    /// UTF-8 starting with a byte-order mark.
    Utf8Bom,
    /// UTF-16 little-endian, with or without a BOM.
    Utf16Le { bom: bool },
    /// UTF-16 big-endian, with or without a BOM.
    Utf16Be { bom: bool },
    /// Not UTF-8 but valid GB18030 (Chinese legacy encoding, a superset of GBK).
    Gb18030,
    /// Neither valid UTF-8 nor GB18030: shown as UTF-8 with replacement characters.
    LossyUtf8,
}

impl TextEncoding {
    /// Length of the byte-order mark this encoding starts with.
    pub fn bom_len(self) -> usize {
        match self {
            TextEncoding::Utf8Bom => 3,
            TextEncoding::Utf16Le { bom: true } | TextEncoding::Utf16Be { bom: true } => 2,
            _ => 0,
        }
    }

    /// The `encoding_rs` decoder for encodings that are not UTF-8 already.
    fn decoder(self) -> Option<encoding_rs::Decoder> {
        match self {
            TextEncoding::Utf16Le { .. } => {
                Some(encoding_rs::UTF_16LE.new_decoder_without_bom_handling())
            }
            TextEncoding::Utf16Be { .. } => {
                Some(encoding_rs::UTF_16BE.new_decoder_without_bom_handling())
            }
            TextEncoding::Gb18030 => Some(encoding_rs::GB18030.new_decoder_without_bom_handling()),
            TextEncoding::Utf8 | TextEncoding::Utf8Bom | TextEncoding::LossyUtf8 => None,
        }
    }

    /// A short name for messages.
    pub fn label(self) -> &'static str {
        match self {
            TextEncoding::Utf8 => "UTF-8",
            TextEncoding::Utf8Bom => "UTF-8 with BOM",
            TextEncoding::Utf16Le { bom: true } => "UTF-16LE with BOM",
            TextEncoding::Utf16Le { bom: false } => "UTF-16LE",
            TextEncoding::Utf16Be { bom: true } => "UTF-16BE with BOM",
            TextEncoding::Utf16Be { bom: false } => "UTF-16BE",
            TextEncoding::Gb18030 => "GB18030",
            TextEncoding::LossyUtf8 => "UTF-8 (with invalid bytes)",
        }
    }
}

/// What the start of a file looks like.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Sniff {
    /// Text in this encoding.
    Text(TextEncoding),
    /// A NUL byte in the first [`BINARY_PEEK`] bytes and no sign of UTF-16.
    Binary,
}

/// Classify a file from its first bytes. `head` holds up to [`DETECT_SAMPLE`] bytes;
/// `complete` says whether it is the whole file (so a truncated multi-byte sequence at its end
/// is an error rather than the sample boundary).
///
/// Order matters: BOMs first, then BOM-less UTF-16 (whose ASCII characters contain NUL bytes),
/// then the NUL-byte binary check, then UTF-8 validity, then GB18030.
pub fn sniff(head: &[u8], complete: bool) -> Sniff {
    if head.starts_with(&UTF8_BOM) {
        return Sniff::Text(TextEncoding::Utf8Bom);
    }
    if head.starts_with(&UTF16LE_BOM) {
        return Sniff::Text(TextEncoding::Utf16Le { bom: true });
    }
    if head.starts_with(&UTF16BE_BOM) {
        return Sniff::Text(TextEncoding::Utf16Be { bom: true });
    }
    let peek = &head[..head.len().min(BINARY_PEEK)];
    if let Some(enc) = detect_utf16_without_bom(peek) {
        return Sniff::Text(enc);
    }
    if peek.contains(&0) {
        return Sniff::Binary;
    }
    match simdutf8::compat::from_utf8(head) {
        Ok(_) => return Sniff::Text(TextEncoding::Utf8),
        // The sample may end in the middle of a character.
        Err(e) if !complete && e.error_len().is_none() => return Sniff::Text(TextEncoding::Utf8),
        Err(_) => {}
    }
    if valid_gb18030(head, complete) {
        Sniff::Text(TextEncoding::Gb18030)
    } else {
        Sniff::Text(TextEncoding::LossyUtf8)
    }
}

/// BOM-less UTF-16 carrying mostly ASCII has a NUL in every other byte: odd offsets for
/// little-endian, even offsets for big-endian. Requires a strong skew (≥ 30 % of the code units
/// with a NUL on one side, ≤ 5 % on the other) so binary data with NULs everywhere is not taken
/// for text, and rejects samples that decode to U+0000 or to unpaired surrogates.
fn detect_utf16_without_bom(peek: &[u8]) -> Option<TextEncoding> {
    let n = peek.len() & !1;
    if n < 16 {
        return None;
    }
    let (mut even, mut odd) = (0usize, 0usize);
    for pair in peek[..n].chunks_exact(2) {
        if pair[0] == 0 {
            even += 1;
        }
        if pair[1] == 0 {
            odd += 1;
        }
    }
    let units = n / 2;
    let enc = if odd * 10 >= units * 3 && even * 20 <= units {
        TextEncoding::Utf16Le { bom: false }
    } else if even * 10 >= units * 3 && odd * 20 <= units {
        TextEncoding::Utf16Be { bom: false }
    } else {
        return None;
    };
    let little = matches!(enc, TextEncoding::Utf16Le { .. });
    let code_units = peek[..n].chunks_exact(2).map(|p| {
        if little {
            u16::from_le_bytes([p[0], p[1]])
        } else {
            u16::from_be_bytes([p[0], p[1]])
        }
    });
    // The peek may end between the halves of a surrogate pair: ignore a trailing lone high
    // surrogate.
    let mut pending_high = false;
    for unit in code_units {
        match unit {
            0 => return None,
            0xD800..=0xDBFF => {
                if pending_high {
                    return None;
                }
                pending_high = true;
            }
            0xDC00..=0xDFFF => {
                if !pending_high {
                    return None;
                }
                pending_high = false;
            }
            _ => {
                if pending_high {
                    return None;
                }
            }
        }
    }
    Some(enc)
}

/// Whether `sample` decodes as GB18030 without errors (a trailing incomplete sequence is
/// accepted when the sample is not the whole file).
fn valid_gb18030(sample: &[u8], complete: bool) -> bool {
    let mut decoder = encoding_rs::GB18030.new_decoder_without_bom_handling();
    let mut out = vec![0u8; 64 * 1024];
    let mut input = sample;
    loop {
        let (result, read, _) =
            decoder.decode_to_utf8_without_replacement(input, &mut out, complete);
        input = &input[read..];
        match result {
            encoding_rs::DecoderResult::InputEmpty => return true,
            encoding_rs::DecoderResult::OutputFull => {}
            encoding_rs::DecoderResult::Malformed(_, _) => return false,
        }
    }
}

/// Decode a whole file's bytes (already sniffed as `enc`) to a string.
/// Byte equality that stays fast inside wasm, where `==` on slices calls wasi-libc's
/// byte-at-a-time `memcmp`: 16 bytes per step, stopping at the first difference.
pub fn same_bytes(a: &[u8], b: &[u8]) -> bool {
    if a.len() != b.len() {
        return false;
    }
    let (wide_a, wide_b) = (a.chunks_exact(16), b.chunks_exact(16));
    let (tail_a, tail_b) = (wide_a.remainder(), wide_b.remainder());
    let word = |chunk: &[u8]| <[u8; 16]>::try_from(chunk).map(u128::from_ne_bytes).ok();
    wide_a.zip(wide_b).all(|(x, y)| word(x) == word(y))
        && tail_a.iter().zip(tail_b).all(|(x, y)| x == y)
}

pub fn decode_all(bytes: &[u8], enc: TextEncoding) -> String {
    let body = bytes.get(enc.bom_len()..).unwrap_or_default();
    match enc {
        TextEncoding::Utf8 | TextEncoding::Utf8Bom | TextEncoding::LossyUtf8 => {
            // Nearly every file is valid: check it vectorised before the byte-wise lossy path.
            match simdutf8::basic::from_utf8(body) {
                Ok(text) => text.to_owned(),
                Err(_) => String::from_utf8_lossy(body).into_owned(),
            }
        }
        TextEncoding::Utf16Le { .. } => encoding_rs::UTF_16LE
            .decode_without_bom_handling(body)
            .0
            .into_owned(),
        TextEncoding::Utf16Be { .. } => encoding_rs::UTF_16BE
            .decode_without_bom_handling(body)
            .0
            .into_owned(),
        TextEncoding::Gb18030 => encoding_rs::GB18030
            .decode_without_bom_handling(body)
            .0
            .into_owned(),
    }
}

/// Encode `text` for writing over a file that used `enc`: UTF-8 with BOM and UTF-16 (with its
/// BOM if it had one) are kept; everything else is written as plain UTF-8.
pub fn encode_for(text: &str, enc: Option<TextEncoding>) -> Vec<u8> {
    match enc {
        Some(TextEncoding::Utf8Bom) => {
            let mut out = Vec::with_capacity(text.len() + 3);
            out.extend_from_slice(&UTF8_BOM);
            out.extend_from_slice(text.as_bytes());
            out
        }
        Some(TextEncoding::Utf16Le { bom }) => {
            let mut out = Vec::with_capacity(text.len() * 2 + 2);
            if bom {
                out.extend_from_slice(&UTF16LE_BOM);
            }
            for unit in text.encode_utf16() {
                out.extend_from_slice(&unit.to_le_bytes());
            }
            out
        }
        Some(TextEncoding::Utf16Be { bom }) => {
            let mut out = Vec::with_capacity(text.len() * 2 + 2);
            if bom {
                out.extend_from_slice(&UTF16BE_BOM);
            }
            for unit in text.encode_utf16() {
                out.extend_from_slice(&unit.to_be_bytes());
            }
            out
        }
        _ => text.as_bytes().to_vec(),
    }
}

/// A reader yielding UTF-8: raw bytes for UTF-8 encodings (invalid sequences are left for the
/// line splitter to replace), decoded text otherwise. The BOM, if any, must already be skipped.
pub fn utf8_reader<'a, R: Read + 'a>(inner: R, enc: TextEncoding) -> Box<dyn Read + 'a> {
    match enc.decoder() {
        None => Box::new(inner),
        Some(decoder) => Box::new(DecodeReader::new(inner, decoder)),
    }
}

/// Streams bytes of another encoding out as UTF-8.
struct DecodeReader<R> {
    inner: R,
    decoder: encoding_rs::Decoder,
    input: Vec<u8>,
    in_start: usize,
    in_end: usize,
    eof: bool,
    finished: bool,
    output: Vec<u8>,
    out_start: usize,
    out_end: usize,
}

impl<R: Read> DecodeReader<R> {
    fn new(inner: R, decoder: encoding_rs::Decoder) -> Self {
        DecodeReader {
            inner,
            decoder,
            input: vec![0; 64 * 1024],
            in_start: 0,
            in_end: 0,
            eof: false,
            finished: false,
            // Room for any decoded chunk of the input buffer, plus replacement characters.
            output: vec![0; 64 * 1024 * 3 + 16],
            out_start: 0,
            out_end: 0,
        }
    }

    /// Decode more input into `output`; returns false once everything has been produced.
    fn refill(&mut self) -> io::Result<bool> {
        while self.out_start == self.out_end {
            if self.finished {
                return Ok(false);
            }
            if self.in_start == self.in_end && !self.eof {
                let n = self.inner.read(&mut self.input)?;
                self.in_start = 0;
                self.in_end = n;
                self.eof = n == 0;
            }
            let last = self.eof;
            let (result, read, written, _) = self.decoder.decode_to_utf8(
                &self.input[self.in_start..self.in_end],
                &mut self.output,
                last,
            );
            self.in_start += read;
            self.out_start = 0;
            self.out_end = written;
            if last && matches!(result, encoding_rs::CoderResult::InputEmpty) {
                self.finished = true;
            }
        }
        Ok(true)
    }
}

impl<R: Read> Read for DecodeReader<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        if buf.is_empty() || !self.refill()? {
            return Ok(0);
        }
        let n = buf.len().min(self.out_end - self.out_start);
        buf[..n].copy_from_slice(&self.output[self.out_start..self.out_start + n]);
        self.out_start += n;
        Ok(n)
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        #[test]
        fn agrees_with_slice_equality(a in proptest::collection::vec(any::<u8>(), 0..80),
                                      flip in any::<prop::sample::Index>(),
                                      cut in any::<bool>()) {
            let mut b = a.clone();
            if !b.is_empty() {
                let i = flip.index(b.len());
                b[i] ^= 1;
            }
            if cut {
                b.pop();
            }
            prop_assert_eq!(same_bytes(&a, &b), a == b);
            prop_assert!(same_bytes(&a, &a));
        }
    }

    fn utf16le(s: &str, bom: bool) -> Vec<u8> {
        encode_for(s, Some(TextEncoding::Utf16Le { bom }))
    }

    #[test]
    fn sniffs_plain_utf8_and_bom() {
        assert_eq!(sniff(b"hello\n", true), Sniff::Text(TextEncoding::Utf8));
        assert_eq!(
            sniff("héllo".as_bytes(), true),
            Sniff::Text(TextEncoding::Utf8)
        );
        assert_eq!(sniff(b"", true), Sniff::Text(TextEncoding::Utf8));
        assert_eq!(
            sniff(b"\xEF\xBB\xBFhi", true),
            Sniff::Text(TextEncoding::Utf8Bom)
        );
    }

    #[test]
    fn sniffs_utf16_with_and_without_bom() {
        let text = "hello, world\nsecond line\n";
        assert_eq!(
            sniff(&utf16le(text, true), true),
            Sniff::Text(TextEncoding::Utf16Le { bom: true })
        );
        assert_eq!(
            sniff(&utf16le(text, false), true),
            Sniff::Text(TextEncoding::Utf16Le { bom: false })
        );
        let be = encode_for(text, Some(TextEncoding::Utf16Be { bom: false }));
        assert_eq!(
            sniff(&be, true),
            Sniff::Text(TextEncoding::Utf16Be { bom: false })
        );
        let be_bom = encode_for(text, Some(TextEncoding::Utf16Be { bom: true }));
        assert_eq!(
            sniff(&be_bom, true),
            Sniff::Text(TextEncoding::Utf16Be { bom: true })
        );
    }

    #[test]
    fn binary_is_detected_but_not_confused_with_utf16() {
        assert_eq!(
            sniff(b"\x7FELF\x02\x01\x01\0\0\0\0\0\0\0\0\0\x03\0", true),
            Sniff::Binary
        );
        // NULs on both parities: binary.
        let mut data = vec![0u8; 64];
        data[10] = 5;
        assert_eq!(sniff(&data, true), Sniff::Binary);
        // A NUL past the peek window does not count.
        let mut late = vec![b'a'; BINARY_PEEK + 10];
        late[BINARY_PEEK + 5] = 0;
        assert_eq!(sniff(&late, true), Sniff::Text(TextEncoding::Utf8));
        // UTF-16-looking parity but with U+0000 code units: binary.
        let mut fake = utf16le("abcdefghijklmnop", false);
        fake.extend_from_slice(&[0, 0, 0, 0]);
        assert_eq!(sniff(&fake, true), Sniff::Binary);
    }

    #[test]
    fn sniffs_gb18030_and_lossy() {
        let (gb, _, _) = encoding_rs::GB18030.encode("你好，世界\n中文内容\n");
        assert_eq!(sniff(&gb, true), Sniff::Text(TextEncoding::Gb18030));
        // 0xFF is invalid in both UTF-8 and GB18030.
        assert_eq!(
            sniff(b"abc\xFFdef", true),
            Sniff::Text(TextEncoding::LossyUtf8)
        );
    }

    #[test]
    fn truncated_sample_tolerates_a_split_character() {
        let text = "é".repeat(10);
        let bytes = text.as_bytes();
        let cut = &bytes[..bytes.len() - 1];
        assert_eq!(sniff(cut, false), Sniff::Text(TextEncoding::Utf8));
        // As the whole file it is invalid UTF-8, and its last byte is no complete GB18030
        // sequence either.
        assert_eq!(sniff(cut, true), Sniff::Text(TextEncoding::LossyUtf8));
    }

    #[test]
    fn decode_reader_streams_large_utf16() {
        let text = "line ünïcode 😀\n".repeat(20_000);
        let bytes = utf16le(&text, false);
        let mut out = String::new();
        let mut reader = utf8_reader(&bytes[..], TextEncoding::Utf16Le { bom: false });
        reader.read_to_string(&mut out).unwrap();
        assert_eq!(out, text);
    }

    #[test]
    fn decode_all_and_encode_round_trip() {
        for enc in [
            TextEncoding::Utf8,
            TextEncoding::Utf8Bom,
            TextEncoding::Utf16Le { bom: true },
            TextEncoding::Utf16Le { bom: false },
            TextEncoding::Utf16Be { bom: true },
            TextEncoding::Utf16Be { bom: false },
        ] {
            let text = "a\r\nß 😀 中\n";
            let bytes = encode_for(text, Some(enc));
            assert_eq!(decode_all(&bytes, enc), text, "{enc:?}");
        }
        // GB18030 and lossy files are rewritten as UTF-8.
        assert_eq!(
            encode_for("中", Some(TextEncoding::Gb18030)),
            "中".as_bytes()
        );
        assert_eq!(encode_for("x", None), b"x");
    }
}
