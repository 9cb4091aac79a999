//! Rules for text from clients that do not depend on how it arrived: which characters no
//! text may hold, how a JSON document or a query string is searched for them, what a short
//! one-line field (a name) may be, and what any text others read may hold ([`visible`]: one
//! policy for invisible characters). The HTTP layer (`http::text`) applies them to every body
//! and query; the services use [`line`] for the names they are given and [`visible`] for the
//! free text (chat).

pub mod identity;
pub mod visible;

pub use visible::is_bidi_control;

use serde_json::Value;
use std::ops::RangeInclusive;

/// Why a piece of text was refused, and where it was.
#[derive(Debug, PartialEq, Eq)]
pub struct TextError {
    /// The field: `username`, `options.edition`, `scopes[1]`, or `body` for the body itself.
    pub field: String,
    pub detail: String,
}

/// The first character text may not hold anywhere, with its description.
fn forbidden_char(text: &str) -> Option<(char, &'static str)> {
    text.chars().find_map(|c| match c {
        '\0' => Some((c, "a NUL character")),
        '\t' | '\n' | '\r' => None,
        c if c.is_control() => Some((c, "a control character")),
        _ => None,
    })
}

/// Checks one string of field `field`.
pub fn check_str(field: &str, text: &str) -> Result<(), TextError> {
    match forbidden_char(text) {
        None => Ok(()),
        Some((c, what)) => Err(TextError {
            field: field.to_string(),
            detail: format!(
                "{field} contains {what} (U+{:04X}); text may not contain control characters",
                c as u32
            ),
        }),
    }
}

/// Checks every string and key in a parsed JSON document.
pub fn check_json(value: &Value) -> Result<(), TextError> {
    let mut path = String::new();
    walk(value, &mut path)
}

fn field_name(path: &str) -> &str {
    if path.is_empty() { "body" } else { path }
}

fn walk(value: &Value, path: &mut String) -> Result<(), TextError> {
    match value {
        Value::String(text) => check_str(field_name(path), text),
        Value::Array(items) => {
            for (index, item) in items.iter().enumerate() {
                let len = path.len();
                path.push_str(&format!("[{index}]"));
                walk(item, path)?;
                path.truncate(len);
            }
            Ok(())
        }
        Value::Object(members) => {
            for (key, item) in members {
                if let Some((c, what)) = forbidden_char(key) {
                    let field = field_name(path).to_string();
                    return Err(TextError {
                        detail: format!(
                            "a member name in {field} contains {what} (U+{:04X}); text may not contain control characters",
                            c as u32
                        ),
                        field,
                    });
                }
                let len = path.len();
                if !path.is_empty() {
                    path.push('.');
                }
                path.push_str(key);
                walk(item, path)?;
                path.truncate(len);
            }
            Ok(())
        }
        Value::Null | Value::Bool(_) | Value::Number(_) => Ok(()),
    }
}

/// Decodes one `application/x-www-form-urlencoded` component; `None` if it is not UTF-8.
fn decode_component(raw: &str) -> Option<String> {
    let bytes = raw.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'+' => out.push(b' '),
            b'%' if i + 2 < bytes.len() => {
                match (hex_digit(bytes[i + 1]), hex_digit(bytes[i + 2])) {
                    (Some(high), Some(low)) => {
                        out.push(high << 4 | low);
                        i += 2;
                    }
                    _ => out.push(b'%'),
                }
            }
            byte => out.push(byte),
        }
        i += 1;
    }
    String::from_utf8(out).ok()
}

fn hex_digit(byte: u8) -> Option<u8> {
    (byte as char).to_digit(16).map(|d| d as u8)
}

/// Checks every name and value of a query string.
pub fn check_query(query: &str) -> Result<(), TextError> {
    for pair in query.split('&').filter(|p| !p.is_empty()) {
        let (raw_name, raw_value) = pair.split_once('=').unwrap_or((pair, ""));
        let Some(name) = decode_component(raw_name) else {
            return Err(TextError {
                field: raw_name.to_string(),
                detail: "a query parameter's name is not valid UTF-8".to_string(),
            });
        };
        check_str(&name, &name).map_err(|e| TextError {
            detail: format!("a query parameter's name: {}", e.detail),
            ..e
        })?;
        let Some(value) = decode_component(raw_value) else {
            return Err(TextError {
                detail: format!("{name} is not valid UTF-8"),
                field: name,
            });
        };
        check_str(&name, &value)?;
    }
    Ok(())
}

/// A short one-line field (a name): trimmed; `chars` characters; no tabs or line breaks, and
/// only the invisible characters [`visible`] allows where it allows them (zero-width joiners
/// in emoji, say; usernames are stricter, see `identity`); not blank when it may not be empty.
/// Returns the trimmed text; a refusal is answered as `invalid_field` naming `field`.
pub fn line<'a>(
    field: &str,
    text: &'a str,
    chars: RangeInclusive<usize>,
) -> Result<&'a str, TextError> {
    let invalid = |detail: String| TextError {
        field: field.to_string(),
        detail,
    };
    check_str(field, text)?;
    let text = text.trim();
    if let Some(c) = text
        .chars()
        .find(|&c| c.is_control() || matches!(c, '\u{2028}' | '\u{2029}'))
    {
        return Err(invalid(format!(
            "{field} is one line of visible text; U+{:04X} is not allowed",
            c as u32
        )));
    }
    if let Some(misplaced) = visible::misplaced(text) {
        return Err(invalid(format!(
            "{field} is one line of visible text; U+{:04X} ({}) is not allowed",
            misplaced.c as u32, misplaced.what
        )));
    }
    if *chars.start() > 0 && !text.is_empty() && visible::is_blank(text) {
        return Err(invalid(format!(
            "{field} has nothing visible in it; write some letters, digits or signs"
        )));
    }
    let count = text.chars().count();
    if !chars.contains(&count) {
        return Err(invalid(format!(
            "{field} has {} to {} characters, not {count}",
            chars.start(),
            chars.end()
        )));
    }
    Ok(text)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn nul_and_control_characters_are_found_with_their_field() {
        let field = |v: Value| check_json(&v).unwrap_err().field;
        assert_eq!(field(json!({"username": "an\u{0}na"})), "username");
        assert_eq!(
            field(json!({"options": {"edition": "20\u{0}16"}})),
            "options.edition"
        );
        assert_eq!(
            field(json!({"scopes": ["game:read", "x\u{7}"]})),
            "scopes[1]"
        );
        assert_eq!(field(json!({"a": [{"b": "\u{1b}[31m"}]})), "a[0].b");
        assert_eq!(field(json!({"options": {"k\u{0}": 1}})), "options");
        assert_eq!(field(json!("\u{0}")), "body");
        assert_eq!(field(json!({"name": "x\u{85}"})), "name");
        let detail = check_json(&json!({"username": "a\u{0}"}))
            .unwrap_err()
            .detail;
        assert!(
            detail.contains("NUL") && detail.contains("username"),
            "{detail}"
        );
        // Tabs and line breaks are text; everything else here is fine too.
        assert_eq!(
            check_json(&json!({"a": "line\nbreak\ttab\r", "b": ["ü", 1, null, true], "c": {}})),
            Ok(())
        );
    }

    #[test]
    fn query_strings_are_decoded_and_checked() {
        assert_eq!(
            check_query("view=open&kind=steel-driver&cursor=a%2Bb+c"),
            Ok(())
        );
        assert_eq!(check_query(""), Ok(()));
        assert_eq!(check_query("kind=x%00").unwrap_err().field, "kind");
        assert_eq!(check_query("a=1&status=%0B").unwrap_err().field, "status");
        assert_eq!(check_query("token=%FF%FE").unwrap_err().field, "token");
        assert!(check_query("x%00=1").is_err());
        // A stray percent sign is kept as it is.
        assert_eq!(check_query("a=100%&b=%4"), Ok(()));
        assert_eq!(decode_component("%C3%BC+x%"), Some("ü x%".to_string()));
    }

    #[test]
    fn one_line_fields_are_trimmed_visible_and_bounded() {
        assert_eq!(line("name", "  my bot ", 1..=100).unwrap(), "my bot");
        assert!(line("name", "   ", 1..=100).is_err());
        assert!(line("name", "a\nb", 1..=100).is_err());
        assert!(line("name", "a\u{202E}b", 1..=100).is_err());
        assert!(line("name", "a\u{2028}b", 1..=100).is_err());
        // An emoji sequence with a zero-width joiner is a fine name.
        assert!(line("name", "bot \u{1F468}\u{200D}\u{1F4BB}", 1..=100).is_ok());
        assert!(line("name", "a\u{0}b", 1..=100).is_err());
        // Invisible characters without a job, and names with nothing to see.
        for hidden in [
            "an\u{200B}na",
            "an\u{200D}na",
            "\u{FEFF}anna",
            "an\u{AD}na",
            "an\u{E0041}na",
        ] {
            assert!(line("name", hidden, 1..=100).is_err(), "{hidden:?}");
        }
        for blank in [
            "\u{3164}",
            "\u{2800}\u{2800}",
            "\u{200B}\u{200B}",
            "\u{115F}",
        ] {
            let error = line("name", blank, 1..=100).unwrap_err();
            assert_eq!(error.field, "name");
        }
        assert!(
            line("name", "\u{2800}", 1..=100)
                .unwrap_err()
                .detail
                .contains("nothing visible")
        );
        assert!(line("name", &"x".repeat(101), 1..=100).is_err());
    }
}
