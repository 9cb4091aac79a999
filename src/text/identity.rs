//! Usernames and email addresses: how they are checked, shown and compared.
//!
//! * The **display form** is what the user typed, trimmed and in Unicode NFC, so that the same
//!   name typed on two keyboards (precomposed `ü` or `u` + combining diaeresis) is stored alike.
//! * The **key** is what uniqueness and login look-ups compare: the canonical caseless form
//!   (Unicode §3.13, D145: NFD, full case folding, normalised again; stored as NFC). Full folding
//!   makes `straße` and `STRASSE`, `Ü` and `ü` one name; PostgreSQL's `lower()` does neither
//!   (it depends on the database's locale and only maps one letter to one letter).
//! * A username may not hold characters that cannot be seen (format and control characters,
//!   default-ignorable code points such as zero-width joiners and bidi controls) or spaces:
//!   they would let two accounts look the same.

use caseless::Caseless;
use unicode_normalization::UnicodeNormalization;
use unicode_properties::{GeneralCategory, UnicodeGeneralCategory};

/// The version of [`key`] stored with each account (`users.identity_keys_version`). Raise it
/// when the folding changes; accounts with an older version get their keys recomputed at
/// migration (`store::users::backfill_identity_keys`).
pub const KEYS_VERSION: i16 = 1;

pub const USERNAME_CHARS: std::ops::RangeInclusive<usize> = 3..=32;
pub const EMAIL_MAX_BYTES: usize = 254;

/// The form kept for display: trimmed, NFC.
pub fn display_form(text: &str) -> String {
    text.trim().nfc().collect()
}

/// The comparison key of a username or email address: the canonical caseless form in NFC.
pub fn key(text: &str) -> String {
    text.trim()
        .chars()
        .nfd()
        .default_case_fold()
        .nfd()
        .nfc()
        .collect()
}

/// The confusable skeleton of a username (Unicode TR39, UTS #39 section 4): what it looks
/// like, so that names that can be taken for one another have one skeleton (`аdmin` with a
/// Cyrillic `а`, `ａdmin` fullwidth, `admin`; `anna1` and `annal`). Usernames are unique by it
/// (besides their key). Folded before and after, so that it ignores letter case as the key
/// does (some prototypes are capitals). The separators a username may hold, `_` and `-`, are
/// one in it too (TR39 does not make them one, but at a glance, and in many fonts, `anna_b`
/// passes for `anna-b`, and `deleted_player-3` for a deleted account's `deleted-player-3`).
/// Changing it means recomputing the stored skeletons (a migration empties them, and
/// `store::users::backfill_username_skeletons` fills them again, the oldest account keeping a
/// shared one).
pub fn skeleton(name: &str) -> String {
    key(&unicode_security::skeleton(&key(name)).collect::<String>()).replace('_', "-")
}

/// Whether `name` looks like it begins with `prefix` (a reserved one), by skeleton.
pub fn looks_prefixed(name: &str, prefix: &str) -> bool {
    skeleton(name).starts_with(&skeleton(prefix))
}

/// Why a username or email address was refused, for a person.
#[derive(Debug, PartialEq, Eq)]
pub struct Refusal(pub String);

/// A code point and its name-ish description for messages: `U+200D`.
fn describe(c: char) -> String {
    format!("U+{:04X}", c as u32)
}

/// Default_Ignorable_Code_Point (Unicode 16, DerivedCoreProperties.txt): characters that are
/// rendered as nothing at all. Some are letters or marks by category (the Hangul fillers,
/// variation selectors), so the category alone does not catch them.
fn is_default_ignorable(c: char) -> bool {
    matches!(c as u32,
        0x00AD | 0x034F | 0x061C | 0x115F..=0x1160 | 0x17B4..=0x17B5 | 0x180B..=0x180F
        | 0x200B..=0x200F | 0x202A..=0x202E | 0x2060..=0x206F | 0x3164 | 0xFE00..=0xFE0F
        | 0xFEFF | 0xFFA0 | 0xFFF0..=0xFFF8 | 0x1BCA0..=0x1BCA3 | 0x1D173..=0x1D17A
        | 0xE0000..=0xE0FFF)
}

/// Characters no identity may hold: controls, format characters, invisible ones, private-use,
/// surrogates and unassigned code points.
fn invisible(c: char) -> Option<&'static str> {
    if is_default_ignorable(c) {
        return Some("an invisible character");
    }
    match c.general_category() {
        GeneralCategory::Control => Some("a control character"),
        GeneralCategory::Format => Some("an invisible formatting character"),
        GeneralCategory::PrivateUse => Some("a private-use character"),
        GeneralCategory::Surrogate | GeneralCategory::Unassigned => {
            Some("an unassigned code point")
        }
        GeneralCategory::LineSeparator | GeneralCategory::ParagraphSeparator => {
            Some("a line break")
        }
        _ => None,
    }
}

/// Whether `c` may be part of a username: a letter (of any script), a digit, a combining
/// mark, `_` or `-` (also where a chat message's `@username` ends).
pub fn username_char(c: char) -> bool {
    c == '_'
        || c == '-'
        || c.is_alphabetic()
        || matches!(
            c.general_category(),
            GeneralCategory::DecimalNumber
                | GeneralCategory::NonspacingMark
                | GeneralCategory::SpacingMark
                | GeneralCategory::EnclosingMark
        )
}

/// Checks a username and returns its display form.
///
/// 3 to 32 characters: letters (of any script, with their combining marks), digits, `_` and
/// `-`. The first refusal that applies is explained.
pub fn username(raw: &str) -> Result<String, Refusal> {
    let name = display_form(raw);
    for c in name.chars() {
        if let Some(what) = invisible(c) {
            return Err(Refusal(format!(
                "a username may not contain {what} ({}): names with characters that cannot be seen can pass for other names",
                describe(c)
            )));
        }
        if c.is_whitespace() {
            return Err(Refusal(format!(
                "a username may not contain spaces ({}); use '_' or '-'",
                describe(c)
            )));
        }
    }
    if let Some(c) = name.chars().find(|&c| !username_char(c)) {
        return Err(Refusal(format!(
            "a username has letters, digits, '_' and '-' only, not {c:?} ({})",
            describe(c)
        )));
    }
    if name.chars().next().is_some_and(|c| {
        matches!(
            c.general_category(),
            GeneralCategory::NonspacingMark
                | GeneralCategory::SpacingMark
                | GeneralCategory::EnclosingMark
        )
    }) {
        return Err(Refusal(
            "a username may not start with a combining mark".to_string(),
        ));
    }
    if !USERNAME_CHARS.contains(&name.chars().count()) {
        return Err(Refusal(format!(
            "a username has {} to {} characters",
            USERNAME_CHARS.start(),
            USERNAME_CHARS.end()
        )));
    }
    Ok(name)
}

/// Checks an email address and returns its display form. Only the shape is checked (one `@`
/// with something before it and a dotted domain after it); whether mail arrives is not.
pub fn email(raw: &str) -> Result<String, Refusal> {
    let email = display_form(raw);
    if let Some(c) = email.chars().find(|&c| invisible(c).is_some()) {
        return Err(Refusal(format!(
            "an email address may not contain {} ({})",
            invisible(c).unwrap_or("this character"),
            describe(c)
        )));
    }
    if email.chars().any(char::is_whitespace) {
        return Err(Refusal(
            "an email address may not contain spaces".to_string(),
        ));
    }
    if email.len() > EMAIL_MAX_BYTES {
        return Err(Refusal(format!(
            "an email address has at most {EMAIL_MAX_BYTES} bytes"
        )));
    }
    let shaped = email.split_once('@').is_some_and(|(local, domain)| {
        !local.is_empty() && domain.contains('.') && !domain.starts_with('.')
    });
    if !shaped {
        return Err(Refusal("this is not an email address".to_string()));
    }
    Ok(email)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_fold_case_fully_and_normalise() {
        assert_eq!(key("STRASSE"), key("straße"));
        assert_eq!(key("Ünal@Example.org"), key("ünal@example.org"));
        // NFD (u + U+0308) and NFC (ü) are one key, and the key is NFC.
        assert_eq!(key("u\u{308}nal"), key("\u{fc}nal"));
        assert_eq!(key("U\u{308}NAL"), "\u{fc}nal");
        assert_eq!(key("  Anna "), "anna");
        // Greek final sigma folds like sigma.
        assert_eq!(key("ΟΔΟΣ"), key("οδος"));
        assert_ne!(key("anna"), key("anne"));
    }

    #[test]
    fn lookalike_names_have_one_skeleton() {
        for (name, lookalike) in [
            ("admin", "\u{430}dmin"),         // Cyrillic а
            ("admin", "\u{FF41}dmin"),        // fullwidth ａ
            ("admin", "ADMIN"),               // letter case, as the key
            ("paypal", "p\u{430}yp\u{430}l"), // two Cyrillic а
            ("anna-1", "anna-l"),             // digit one and small L
            ("deleted-player-3", "\u{FF44}eleted-player-3"),
            ("deleted-player-3", "d\u{435}leted-player-3"), // Cyrillic е
        ] {
            assert_eq!(skeleton(name), skeleton(lookalike), "{lookalike:?}");
        }
        assert_ne!(skeleton("anna"), skeleton("anne"));
        assert_ne!(skeleton("Дмитрий"), skeleton("dmitrij"));
        assert!(looks_prefixed("\u{FF44}eleted-player-3", "deleted-player-"));
        assert!(looks_prefixed("DELETED-PLAYER-9", "deleted-player-"));
        assert!(!looks_prefixed("deleted_player", "deleted-player-"));
        // The separators are one: `_` passes for `-`.
        assert_eq!(skeleton("anna_b"), skeleton("anna-b"));
        assert!(looks_prefixed("deleted_player-891898", "deleted-player-"));
        assert!(looks_prefixed("Deleted_Player_7", "deleted-player-"));
    }

    #[test]
    fn display_forms_are_nfc_as_typed() {
        assert_eq!(display_form(" U\u{308}nal "), "\u{dc}nal");
        assert_eq!(username("Straße").unwrap(), "Straße");
    }

    #[test]
    fn usernames_allow_letters_of_any_script() {
        for name in [
            "anna",
            "straße",
            "Ünal",
            "Zoë_2",
            "Дмитрий",
            "山田太郎",
            "bert-99",
        ] {
            assert!(username(name).is_ok(), "{name}");
        }
        // NFD input is accepted and stored composed.
        assert_eq!(username("Zoe\u{308}").unwrap(), "Zo\u{eb}");
    }

    #[test]
    fn usernames_refuse_invisible_characters_and_say_why() {
        for (name, why) in [
            ("an\u{200D}na", "invisible"),
            ("an\u{200B}na", "invisible"),
            ("anna\u{202E}", "invisible"),
            ("an\u{2066}na", "invisible"),
            ("an\u{FE0F}na", "invisible"),
            ("\u{3164}anna", "invisible"),
            ("an\u{7}na", "control"),
            ("an\u{85}na", "control"),
            ("an na", "spaces"),
            ("an\u{A0}na", "spaces"),
            ("an\u{3000}na", "spaces"),
            ("an\u{2028}na", "line break"),
            ("an\u{E000}na", "private-use"),
        ] {
            let Refusal(message) = username(name).unwrap_err();
            assert!(message.contains(why), "{name:?}: {message}");
            assert!(message.contains("U+"), "{name:?}: {message}");
        }
        assert!(username("a").is_err());
        assert!(username(&"a".repeat(33)).is_err());
        assert!(username("anna!").is_err());
        // Digits, not other numbers that pass for them.
        assert!(username("anna²").is_err());
        assert!(username("anna٣").is_ok());
        assert!(username("\u{308}anna").is_err());
    }

    #[test]
    fn emails_are_shaped_and_visible() {
        assert_eq!(email(" Anna@Example.org ").unwrap(), "Anna@Example.org");
        assert!(email("ünal@beispiel.de").is_ok());
        for bad in [
            "not-an-email",
            "@example.org",
            "anna@example",
            "anna@.org",
            "an na@example.org",
            "an\u{200B}na@example.org",
        ] {
            assert!(email(bad).is_err(), "{bad}");
        }
    }
}
