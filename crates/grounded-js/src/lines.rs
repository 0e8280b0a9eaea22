//! Byte offsets to lines and columns, and back.

use std::borrow::Cow;

/// Line starts of a text, for offset → (line, column) conversion.
#[derive(Debug, Clone)]
pub struct LineIndex<'a> {
    text: &'a str,
    starts: Cow<'a, [usize]>,
}

impl<'a> LineIndex<'a> {
    /// Indexes `text`.
    pub fn new(text: &'a str) -> LineIndex<'a> {
        let mut starts = vec![0];
        starts.extend(text.match_indices('\n').map(|(i, _)| i + 1));
        LineIndex {
            text,
            starts: Cow::Owned(starts),
        }
    }

    /// Indexes `text` with line starts the caller kept up to date across edits (see
    /// [`LineIndex::starts`]), instead of scanning the whole text again: an editor's
    /// keystroke should not cost a pass over a 10,000-line file. They must be what
    /// [`LineIndex::new`] would find (checked in debug builds).
    pub fn from_starts(text: &'a str, starts: Vec<usize>) -> LineIndex<'a> {
        debug_assert_eq!(starts, LineIndex::new(text).starts());
        LineIndex {
            text,
            starts: Cow::Owned(starts),
        }
    }

    /// [`LineIndex::from_starts`] borrowing line starts kept elsewhere.
    ///
    /// Why: the JSON report indexed a file once and then copied its line starts for
    /// every finding with a fix, a whole-file copy per finding (issue 48).
    pub fn from_kept(text: &'a str, starts: &'a [usize]) -> LineIndex<'a> {
        debug_assert_eq!(starts, LineIndex::new(text).starts());
        LineIndex {
            text,
            starts: Cow::Borrowed(starts),
        }
    }

    /// The byte offsets where lines start (the first is 0).
    pub fn starts(&self) -> &[usize] {
        &self.starts
    }

    /// Its line starts, given back (to be kept across edits with [`splice_starts`]).
    pub fn into_starts(self) -> Vec<usize> {
        self.starts.into_owned()
    }

    /// 0-based line of a byte offset.
    pub fn line0(&self, offset: usize) -> usize {
        match self.starts.binary_search(&offset) {
            Ok(l) => l,
            Err(l) => l - 1,
        }
    }

    /// Byte offset of the start of 0-based line `line` (clamped to the text's end).
    pub fn line_start(&self, line: usize) -> usize {
        self.starts.get(line).copied().unwrap_or(self.text.len())
    }

    /// Number of lines.
    pub fn len(&self) -> usize {
        self.starts.len()
    }

    /// Whether the text is empty.
    pub fn is_empty(&self) -> bool {
        self.text.is_empty()
    }

    /// 1-based line and 1-based character column of a byte offset, as an editor shows
    /// the file: a leading byte-order mark (a text that did not come through
    /// `grounded_textfile`, such as the agent's raw reads) is no column of line 1.
    pub fn line_col(&self, offset: usize) -> (usize, usize) {
        let offset = offset.min(self.text.len());
        let l = self.line0(offset);
        let mut start = self.starts[l];
        if l == 0 && self.text.starts_with(grounded_textfile::BOM) {
            start = grounded_textfile::BOM.len_utf8().min(offset);
        }
        let col = self
            .text
            .get(start..offset)
            .map(|s| s.chars().count())
            .unwrap_or(offset - start);
        (l + 1, col + 1)
    }

    /// 0-based line and UTF-16 column of a byte offset (the language server's unit).
    pub fn line_col_utf16(&self, offset: usize) -> (u32, u32) {
        let offset = offset.min(self.text.len());
        let l = self.line0(offset);
        let start = self.starts[l];
        let col: usize = self
            .text
            .get(start..offset)
            .map(|s| s.encode_utf16().count())
            .unwrap_or(0);
        (l as u32, col as u32)
    }

    /// Byte offset of a 0-based line and UTF-16 column; clamped to the line's end.
    pub fn offset_utf16(&self, line: u32, col: u32) -> usize {
        let Some(&start) = self.starts.get(line as usize) else {
            return self.text.len();
        };
        let end = self
            .starts
            .get(line as usize + 1)
            .copied()
            .unwrap_or(self.text.len());
        let mut units = 0u32;
        for (i, ch) in self.text[start..end].char_indices() {
            if units >= col || ch == '\n' {
                return start + i;
            }
            units += ch.len_utf16() as u32;
        }
        end
    }
}

/// Keeps line starts (as [`LineIndex::starts`] gives them) up to date across the edit
/// that replaced bytes `start..end` by `new`: those of removed line breaks go, later
/// ones move, new ones come. An edit costs the lines after it, not a scan of the text.
pub fn splice_starts(starts: &mut Vec<usize>, start: usize, end: usize, new: &str) {
    let delta = new.len() as isize - (end - start) as isize;
    let lo = starts.partition_point(|&x| x <= start);
    let hi = starts.partition_point(|&x| x <= end);
    for x in &mut starts[hi..] {
        *x = (*x as isize + delta) as usize;
    }
    starts.splice(lo..hi, new.match_indices('\n').map(|(i, _)| start + i + 1));
}

/// [`LineIndex::offset_utf16`] without building the index: one pass to the line, no
/// allocation. For one position in a large text (a request on a 7.8 MB buffer built
/// an index of 340,000 lines, 8 ms, to read one position).
pub fn offset_utf16(text: &str, line: u32, col: u32) -> usize {
    let start = match line {
        0 => 0,
        l => match text.match_indices('\n').nth(l as usize - 1) {
            Some((i, _)) => i + 1,
            None => return text.len(),
        },
    };
    let end = text[start..]
        .find('\n')
        .map_or(text.len(), |i| start + i + 1);
    let mut units = 0u32;
    for (i, ch) in text[start..end].char_indices() {
        if units >= col || ch == '\n' {
            return start + i;
        }
        units += ch.len_utf16() as u32;
    }
    end
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_position_is_read_as_the_index_reads_it() {
        for text in ["", "a", "a\n", "ab\ncd\n\nx", "é😀x\ny\n", "\n\n\n"] {
            let idx = LineIndex::new(text);
            for line in 0..6 {
                for col in 0..6 {
                    assert_eq!(
                        offset_utf16(text, line, col),
                        idx.offset_utf16(line, col),
                        "{text:?} {line}:{col}"
                    );
                }
            }
        }
    }

    #[test]
    fn positions() {
        let t = "ab\né😀x\n";
        let i = LineIndex::new(t);
        assert_eq!(i.line_col(0), (1, 1));
        assert_eq!(i.line_col(3), (2, 1));
        let x = t.find('x').unwrap();
        assert_eq!(i.line_col(x), (2, 3));
        assert_eq!(i.line_col_utf16(x), (1, 3));
        assert_eq!(i.offset_utf16(1, 3), x);
    }

    #[test]
    fn a_leading_byte_order_mark_is_no_column() {
        let t = "\u{feff}ab\n\u{feff}c\n";
        let i = LineIndex::new(t);
        assert_eq!(i.line_col(3), (1, 1));
        assert_eq!(i.line_col(4), (1, 2));
        assert_eq!(i.line_col(0), (1, 1));
        // Only the text's first character: elsewhere U+FEFF is a character.
        assert_eq!(i.line_col(t.find('c').unwrap()), (2, 2));
        // The server's unit counts what the client sent, mark included.
        assert_eq!(i.line_col_utf16(4), (0, 2));
    }
}
