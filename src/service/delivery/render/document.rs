//! A tiny document model, rendered twice: as plain text and as HTML (sent together as
//! multipart/alternative). The catalogue's markup becomes its blocks ([`blocks`]).

use crate::words::catalogue::Piece;
use crate::words::language::Language;
use std::fmt::Write;

pub enum Span {
    Text(String),
    Strong(String),
    Link { label: String, url: String },
}

pub enum Block {
    Para(Vec<Span>),
    List(Vec<Vec<Span>>),
    /// A prominent link ("Open the game").
    Action {
        label: String,
        url: String,
    },
    /// Someone else's words, quoted as plain text (`> ` lines; a `<blockquote>` in HTML,
    /// escaped, line breaks kept).
    Quote(String),
    /// The small print at the end.
    Footer(Vec<Span>),
}

/// The spans of a paragraph's pieces (a slot or a button inside a paragraph is left out).
pub fn spans(pieces: Vec<Piece>) -> Vec<Span> {
    pieces
        .into_iter()
        .filter_map(|piece| match piece {
            Piece::Text(text) => Some(Span::Text(text)),
            Piece::Strong(text) => Some(Span::Strong(text)),
            Piece::Link { label, url } => Some(Span::Link { label, url }),
            Piece::Button { .. } | Piece::Slot(_) => None,
        })
        .collect()
}

/// The blocks of a message's paragraphs: a paragraph that is a button becomes the action,
/// one that is a slot what `slot` gives for its name.
pub fn blocks(paragraphs: Vec<Vec<Piece>>, slot: &mut dyn FnMut(&str) -> Vec<Block>) -> Vec<Block> {
    let mut out = Vec::new();
    for mut pieces in paragraphs {
        match pieces.as_mut_slice() {
            [Piece::Slot(name)] => out.extend(slot(name)),
            [Piece::Button { label, url }] => out.push(Block::Action {
                label: std::mem::take(label),
                url: std::mem::take(url),
            }),
            _ => out.push(Block::Para(spans(pieces))),
        }
    }
    out
}

pub fn escape_html(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

fn spans_text(spans: &[Span]) -> String {
    let mut out = String::new();
    for span in spans {
        match span {
            Span::Text(s) | Span::Strong(s) => out.push_str(s),
            Span::Link { label, url } if label == url => out.push_str(url),
            Span::Link { label, url } => {
                let _ = write!(out, "{label} <{url}>");
            }
        }
    }
    out
}

fn spans_html(spans: &[Span]) -> String {
    let mut out = String::new();
    for span in spans {
        match span {
            Span::Text(s) => out.push_str(&escape_html(s)),
            Span::Strong(s) => {
                let _ = write!(out, "<strong>{}</strong>", escape_html(s));
            }
            Span::Link { label, url } => {
                let _ = write!(
                    out,
                    "<a href=\"{}\">{}</a>",
                    escape_html(url),
                    escape_html(label)
                );
            }
        }
    }
    out
}

/// Wraps English words at 76 characters; a word longer than that (a link) keeps its own
/// line. Japanese is not wrapped: it has no spaces to break at (a break at the spaces around
/// a Latin word would cut a sentence in odd places), and mail clients wrap it as they show it.
pub fn wrap(text: &str, indent: &str, language: Language) -> String {
    let width = match language {
        Language::En => 76 - indent.len(),
        Language::Ja => usize::MAX,
    };
    let length = |s: &str| s.chars().count();
    let mut out = String::new();
    let mut line = String::new();
    for word in text.split(' ').filter(|w| !w.is_empty()) {
        if !line.is_empty() && length(&line) + 1 + length(word) > width {
            let _ = writeln!(out, "{indent}{line}");
            line.clear();
        }
        if !line.is_empty() {
            line.push(' ');
        }
        line.push_str(word);
    }
    if !line.is_empty() {
        let _ = writeln!(out, "{indent}{line}");
    }
    out
}

pub fn to_text(blocks: &[Block], language: Language) -> String {
    let mut out = String::new();
    for block in blocks {
        match block {
            Block::Para(spans) => out.push_str(&wrap(&spans_text(spans), "", language)),
            Block::List(items) => {
                for item in items {
                    let wrapped = wrap(&spans_text(item), "    ", language);
                    out.push_str("  - ");
                    out.push_str(wrapped.trim_start());
                }
            }
            Block::Action { label, url } => {
                let _ = writeln!(out, "{label}:\n{url}");
            }
            Block::Quote(text) => {
                for line in text.lines() {
                    let wrapped = wrap(line, "> ", language);
                    if wrapped.is_empty() {
                        out.push_str(">\n");
                    } else {
                        out.push_str(&wrapped);
                    }
                }
            }
            Block::Footer(spans) => {
                out.push_str("-- \n");
                out.push_str(&wrap(&spans_text(spans), "", language));
            }
        }
        out.push('\n');
    }
    out.trim_end().to_string() + "\n"
}

pub fn to_html(title: &str, blocks: &[Block], language: Language) -> String {
    let mut out = format!(
        "<!DOCTYPE html>\n<html lang=\"{}\"><head><meta charset=\"utf-8\"><title>{}</title></head>\n\
         <body style=\"font-family: sans-serif; line-height: 1.5; max-width: 40em; margin: 1em auto; color: #222;\">\n",
        language.as_str(),
        escape_html(title)
    );
    for block in blocks {
        match block {
            Block::Para(spans) => {
                let _ = writeln!(out, "<p>{}</p>", spans_html(spans));
            }
            Block::List(items) => {
                out.push_str("<ul>\n");
                for item in items {
                    let _ = writeln!(out, "<li>{}</li>", spans_html(item));
                }
                out.push_str("</ul>\n");
            }
            Block::Action { label, url } => {
                let _ = writeln!(
                    out,
                    "<p><a href=\"{}\" style=\"display: inline-block; padding: 0.5em 1em; background: #2b5797; color: #fff; text-decoration: none; border-radius: 4px;\">{}</a></p>",
                    escape_html(url),
                    escape_html(label)
                );
            }
            Block::Quote(text) => {
                let lines: Vec<String> = text.lines().map(escape_html).collect();
                let _ = writeln!(
                    out,
                    "<blockquote style=\"margin: 1em 0; padding: 0.5em 1em; border-left: 3px solid #ccc; white-space: pre-wrap;\">{}</blockquote>",
                    lines.join("<br>")
                );
            }
            Block::Footer(spans) => {
                let _ = writeln!(
                    out,
                    "<hr><p style=\"font-size: small; color: #666;\">{}</p>",
                    spans_html(spans)
                );
            }
        }
    }
    out.push_str("</body></html>\n");
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wrapping() {
        let wrapped = wrap(&"word ".repeat(40), "", Language::En);
        assert!(wrapped.lines().all(|l| l.len() <= 76));
        assert_eq!(wrapped.lines().count(), 3);
        // Counted in characters, not bytes: "München" fits as often as "Muenchen" would.
        let wrapped = wrap(&"München ".repeat(18), "", Language::En);
        assert_eq!(wrapped.lines().count(), 2, "{wrapped}");
        // Japanese is left for the mail client to wrap, Latin words in it or not.
        let sentence = "Kontor のアカウントのパスワード再設定が依頼されました。".repeat(4);
        assert_eq!(wrap(&sentence, "", Language::Ja), format!("{sentence}\n"));
    }
}
