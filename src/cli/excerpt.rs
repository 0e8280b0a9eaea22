//! A window of a source line around a finding, for human output.
//!
//! Two findings on a 5 MB one-line (minified) file once printed 21 MB: the whole line,
//! twice, and a caret line padded to the column. A terminal line holds a screen's width,
//! so a long line is shown as the part around the finding with `…` where it is cut, and
//! the caret is placed in that window.

/// How many characters of source a window shows: the terminal's width (`COLUMNS` when
/// set) minus room for the gutter, and 100 otherwise (what a wide terminal holds).
pub fn width() -> usize {
    let cols = std::env::var("COLUMNS")
        .ok()
        .and_then(|c| c.trim().parse::<usize>().ok())
        .filter(|&c| c >= 40)
        .unwrap_or(110);
    cols.saturating_sub(10).clamp(30, 400)
}

/// A window of one line: the text shown and where the caret goes in it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Window {
    /// The shown text, with `…` where the line was cut.
    pub text: String,
    /// Characters before the caret in `text`.
    pub caret_at: usize,
    /// How many carets (at least 1).
    pub carets: usize,
}

/// The window of `line` (no line ending) around the characters `[col, end_col)`
/// (0-based, in characters; `end_col` past the line means to its end), at most
/// `width` characters of source plus the two `…`. A line that fits is shown whole.
pub fn window(line: &str, col: usize, end_col: usize, width: usize) -> Window {
    let chars: Vec<char> = line.chars().collect();
    let n = chars.len();
    let col = col.min(n);
    let end = end_col.clamp(col, n);
    let span = (end - col).max(1);
    if n <= width {
        return Window {
            text: line.to_string(),
            caret_at: col,
            carets: span,
        };
    }
    // The finding's start always shows; what is left of the width is shared by the
    // context before it and the span (then the context after it).
    let carets = span.min(width.saturating_sub(width / 3).max(1));
    let before = (width - carets) / 2;
    let mut start = col.saturating_sub(before);
    let stop = (start + width).min(n);
    if stop - start < width {
        start = stop.saturating_sub(width);
    }
    let mut text = String::new();
    let mut caret_at = col - start;
    if start > 0 {
        text.push('…');
        caret_at += 1;
    }
    text.extend(&chars[start..stop]);
    if stop < n {
        text.push('…');
    }
    Window {
        text,
        caret_at,
        carets: carets.min(stop - col).max(1),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_short_line_is_whole() {
        let w = window("layout.tableCellEnd();", 7, 19, 80);
        assert_eq!(w.text, "layout.tableCellEnd();");
        assert_eq!((w.caret_at, w.carets), (7, 12));
    }

    #[test]
    fn a_long_line_is_cut_around_the_finding() {
        let line = format!(
            "{}layout.tableCellEnd();{}",
            "x".repeat(5000),
            "y".repeat(5000)
        );
        let w = window(&line, 5007, 5019, 60);
        assert!(
            w.text.starts_with('…') && w.text.ends_with('…'),
            "{}",
            w.text
        );
        assert!(w.text.chars().count() <= 62);
        let shown: String = w.text.chars().skip(w.caret_at).take(w.carets).collect();
        assert_eq!(shown, "tableCellEnd");
    }

    #[test]
    fn the_ends_of_a_long_line_cut_one_side_only() {
        let line = format!("bad{}", "x".repeat(1000));
        let w = window(&line, 0, 3, 50);
        assert!(!w.text.starts_with('…') && w.text.ends_with('…'));
        assert_eq!((w.caret_at, w.carets), (0, 3));
        let line = format!("{}bad", "x".repeat(1000));
        let w = window(&line, 1000, 1003, 50);
        assert!(w.text.starts_with('…') && !w.text.ends_with('…'));
        let shown: String = w.text.chars().skip(w.caret_at).take(w.carets).collect();
        assert_eq!(shown, "bad");
    }

    #[test]
    fn a_span_wider_than_the_window_is_cut_too() {
        let line = "z".repeat(10_000);
        let w = window(&line, 10, 9000, 60);
        assert!(w.text.chars().count() <= 62);
        assert!(w.caret_at + w.carets <= w.text.chars().count());
    }
}
