//! What a person sees: one policy for every name and free text that others read (display
//! names, chat messages, tournament names, API token names, webhook descriptions, moderation
//! reasons). Usernames are stricter still (`identity::username`: no invisible character at
//! all).
//!
//! Characters that render as nothing can make two texts look alike, hide words from a reader
//! or a filter, or make a name look blank. So a text may not hold:
//!
//! * bidirectional controls (U+061C, U+200E–U+200F, U+202A–U+202E, U+2066–U+2069), which can
//!   make a text display as another;
//! * invisible characters with no job in running text: ZERO WIDTH SPACE (U+200B), WORD JOINER
//!   (U+2060) and the invisible operators and deprecated format characters after it (U+2061–
//!   U+206F), the BOM (U+FEFF), SOFT HYPHEN (U+00AD), MONGOLIAN VOWEL SEPARATOR (U+180E), the
//!   interlinear annotation characters (U+FFF9–U+FFFB), the Hangul fillers (U+115F, U+1160,
//!   U+3164, U+FFA0), COMBINING GRAPHEME JOINER (U+034F), the Khmer inherent vowels (U+17B4,
//!   U+17B5), the shorthand and musical format controls (U+1BCA0–U+1BCA3, U+1D173–U+1D17A),
//!   and the other default-ignorable code points (U+FFF0–U+FFF8, U+E0000–U+E0FFF);
//!
//! and it may hold the invisible characters that scripts and emoji need only where they do
//! that job:
//!
//! * ZERO WIDTH JOINER (U+200D) between two emoji (`👨‍💻`, after a skin tone or a variation
//!   selector too), or after a virama (Indic conjuncts);
//! * ZERO WIDTH NON-JOINER (U+200C) after a virama, or between two Arabic-script letters
//!   (Persian);
//! * a variation selector (U+FE00–U+FE0F, U+E0100–U+E01EF) right after a visible character;
//!   a Mongolian free variation selector (U+180B–U+180D, U+180F) right after a Mongolian
//!   letter;
//! * tag characters (U+E0020–U+E007F) only as an emoji tag sequence: after U+1F3F4 (the black
//!   flag), ending with CANCEL TAG (U+E007F) (`🏴󠁧󠁢󠁳󠁣󠁴󠁿`).
//!
//! (The contexts follow IDNA2008's CONTEXTJ rules for the joiners, RFC 5892 appendix A, and
//! Unicode's emoji sequences, UTS #51.) A text that must not be empty must also have something
//! to see: a text of only spaces, joiners, selectors or U+2800 (a blank Braille pattern) is
//! blank ([`is_blank`]).

use unicode_normalization::char::canonical_combining_class;
use unicode_properties::UnicodeEmoji;

/// A character a text may not hold where it is.
#[derive(Debug, PartialEq, Eq)]
pub struct Misplaced {
    pub c: char,
    /// What it is, for a message: "a bidirectional control", "an invisible character", …
    pub what: &'static str,
}

const VIRAMA: u8 = 9;
const ZWNJ: char = '\u{200C}';
const ZWJ: char = '\u{200D}';
const BLACK_FLAG: char = '\u{1F3F4}';
const CANCEL_TAG: char = '\u{E007F}';

/// Bidirectional formatting characters: they can make a text display as another.
pub fn is_bidi_control(c: char) -> bool {
    matches!(c as u32, 0x061C | 0x200E | 0x200F | 0x202A..=0x202E | 0x2066..=0x2069)
}

/// Invisible characters no text needs.
fn is_unwanted_invisible(c: char) -> bool {
    matches!(c as u32,
        0x00AD | 0x034F | 0x115F | 0x1160 | 0x17B4 | 0x17B5 | 0x180E | 0x200B | 0x2060..=0x206F
        | 0x3164 | 0xFEFF | 0xFFA0 | 0xFFF0..=0xFFFB | 0x1BCA0..=0x1BCA3 | 0x1D173..=0x1D17A
        | 0xE0000..=0xE001F | 0xE0080..=0xE00FF | 0xE01F0..=0xE0FFF)
}

fn is_variation_selector(c: char) -> bool {
    matches!(c as u32, 0xFE00..=0xFE0F | 0xE0100..=0xE01EF)
}

fn is_mongolian_selector(c: char) -> bool {
    matches!(c as u32, 0x180B..=0x180D | 0x180F)
}

fn is_tag(c: char) -> bool {
    matches!(c as u32, 0xE0020..=0xE007F)
}

fn is_skin_tone(c: char) -> bool {
    matches!(c as u32, 0x1F3FB..=0x1F3FF)
}

/// An emoji that may stand on either side of a joiner (not the ASCII keycap bases).
fn is_emoji(c: char) -> bool {
    !c.is_ascii() && c.is_emoji_char()
}

fn is_arabic_letter(c: char) -> bool {
    c.is_alphabetic()
        && matches!(c as u32, 0x0600..=0x06FF | 0x0750..=0x077F | 0x08A0..=0x08FF | 0xFB50..=0xFDFF | 0xFE70..=0xFEFF)
}

/// The character a joiner after it joins from: the last one before it that is not a
/// variation selector or skin tone (`❤️‍🔥`, `👩🏽‍💻`).
fn base_before(chars: &[char], at: usize) -> Option<char> {
    chars[..at]
        .iter()
        .rev()
        .find(|&&c| !is_variation_selector(c) && !is_skin_tone(c))
        .copied()
}

/// Whether `c` is invisible: it has a job (joining, selecting, tagging) but nothing to see.
fn is_invisible(c: char) -> bool {
    c == ZWJ
        || c == ZWNJ
        || is_variation_selector(c)
        || is_mongolian_selector(c)
        || is_tag(c)
        || is_bidi_control(c)
        || is_unwanted_invisible(c)
}

/// The first character of `text` that may not stand where it is, if any.
pub fn misplaced(text: &str) -> Option<Misplaced> {
    let chars: Vec<char> = text.chars().collect();
    // Inside an emoji tag sequence (after U+1F3F4, until CANCEL TAG).
    let mut in_tags = false;
    for (at, &c) in chars.iter().enumerate() {
        let before = at.checked_sub(1).map(|i| chars[i]);
        let after = chars.get(at + 1).copied();
        let bad = |what| Some(Misplaced { c, what });
        if is_bidi_control(c) {
            return bad("a bidirectional control");
        }
        if is_unwanted_invisible(c) {
            return bad("an invisible character");
        }
        if is_tag(c) {
            in_tags = in_tags || before == Some(BLACK_FLAG);
            if !in_tags || (c != CANCEL_TAG && after.is_none_or(|a| !is_tag(a))) {
                return bad("an invisible tag character outside an emoji flag");
            }
            if c == CANCEL_TAG {
                in_tags = false;
            }
            continue;
        }
        let after_virama = before.is_some_and(|b| canonical_combining_class(b) == VIRAMA);
        match c {
            ZWJ => {
                let joins_emoji =
                    base_before(&chars, at).is_some_and(is_emoji) && after.is_some_and(is_emoji);
                if !joins_emoji && !after_virama {
                    return bad("a zero width joiner outside an emoji or a conjunct");
                }
            }
            ZWNJ => {
                let between_arabic =
                    before.is_some_and(is_arabic_letter) && after.is_some_and(is_arabic_letter);
                if !between_arabic && !after_virama {
                    return bad("a zero width non-joiner outside the scripts that use it");
                }
            }
            c if is_variation_selector(c)
                && before.is_none_or(|b| b.is_whitespace() || is_invisible(b)) =>
            {
                return bad("a variation selector with nothing to select");
            }
            c if is_mongolian_selector(c)
                && before.is_none_or(|b| !matches!(b as u32, 0x1820..=0x18AA)) =>
            {
                return bad("a Mongolian variation selector outside Mongolian");
            }
            _ => {}
        }
    }
    None
}

/// Whether `text` shows nothing: only white space, invisible characters (joiners, selectors,
/// tags and the like) and U+2800 (a blank Braille pattern).
pub fn is_blank(text: &str) -> bool {
    text.chars()
        .all(|c| c.is_whitespace() || is_invisible(c) || c == '\u{2800}')
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn invisible_characters_without_a_job_are_refused_anywhere() {
        for c in [
            '\u{200B}',
            '\u{2060}',
            '\u{2062}',
            '\u{FEFF}',
            '\u{00AD}',
            '\u{180E}',
            '\u{FFF9}',
            '\u{FFFA}',
            '\u{FFFB}',
            '\u{115F}',
            '\u{1160}',
            '\u{3164}',
            '\u{FFA0}',
            '\u{034F}',
            '\u{17B4}',
            '\u{1BCA0}',
            '\u{1D173}',
            '\u{E0001}',
            '\u{202E}',
            '\u{2066}',
            '\u{061C}',
            '\u{200F}',
        ] {
            let text = format!("an{c}na");
            assert_eq!(misplaced(&text).map(|m| m.c), Some(c), "U+{:04X}", c as u32);
        }
        assert_eq!(misplaced("plain text, ü, 山田, Дмитрий"), None);
    }

    #[test]
    fn joiners_and_selectors_are_kept_where_scripts_and_emoji_need_them() {
        for fine in [
            "\u{1F468}\u{200D}\u{1F4BB}",                                       // 👨‍💻
            "\u{1F469}\u{1F3FD}\u{200D}\u{1F4BB}",                              // 👩🏽‍💻
            "\u{2764}\u{FE0F}\u{200D}\u{1F525}",                                // ❤️‍🔥
            "\u{1F3F3}\u{FE0F}\u{200D}\u{1F308}",                               // 🏳️‍🌈
            "\u{0915}\u{094D}\u{200D}\u{0937}", // क्‍ष: a Devanagari conjunct
            "\u{0645}\u{06CC}\u{200C}\u{062E}\u{0648}\u{0627}\u{0647}\u{0645}", // می‌خواهم
            "\u{0915}\u{094D}\u{200C}\u{0937}", // after a virama
            "\u{2764}\u{FE0F}",                 // ❤️
            "\u{845B}\u{E0100}",                // an ideographic variant
            "\u{1828}\u{180B}",                 // Mongolian with its selector
            "\u{1F3F4}\u{E0067}\u{E0062}\u{E0073}\u{E0063}\u{E0074}\u{E007F}", // 🏴 Scotland
            "1\u{FE0F}\u{20E3}",                // 1️⃣
        ] {
            assert_eq!(misplaced(fine), None, "{fine:?}");
        }
        for (bad, c) in [
            ("an\u{200D}na", '\u{200D}'),
            ("\u{200D}\u{1F4BB}", '\u{200D}'),
            ("\u{1F468}\u{200D}", '\u{200D}'),
            ("1\u{200D}2", '\u{200D}'),
            ("an\u{200C}na", '\u{200C}'),
            ("\u{FE0F}anna", '\u{FE0F}'),
            ("a \u{FE0F}", '\u{FE0F}'),
            ("a\u{FE0F}\u{FE0F}", '\u{FE0F}'),
            ("a\u{180B}", '\u{180B}'),
            ("anna\u{E0061}\u{E007F}", '\u{E0061}'),
            ("\u{1F3F4}\u{E0067}\u{E0062}", '\u{E0062}'),
            ("\u{E007F}", '\u{E007F}'),
        ] {
            assert_eq!(misplaced(bad).map(|m| m.c), Some(c), "{bad:?}");
        }
    }

    #[test]
    fn a_text_of_nothing_visible_is_blank() {
        for blank in [
            "",
            "   ",
            "\u{2800}",
            "\u{2800} \u{2800}",
            "\u{3000}\u{00A0}",
        ] {
            assert!(is_blank(blank), "{blank:?}");
        }
        for seen in ["a", "\u{1F468}\u{200D}\u{1F4BB}", ".", "\u{0301}"] {
            assert!(!is_blank(seen), "{seen:?}");
        }
    }
}
