//! The message catalogue: every sentence the server writes for a person, in Project Fluent's
//! syntax, one folder per language (`src/words/<language>/*.ftl`, the same files and the same
//! messages in each), compiled into the binary.
//!
//! A message is asked for by its key (`notice-your_turn.subject`: a message and, after the
//! dot, an attribute) with its variables ([`Args`]). Three kinds of variable:
//! - **text** a person wrote or the data holds (a name, a chat message, a formatted date, a
//!   link): never read as markup and never chosen on — the catalogue only places it;
//! - **numbers**, which plural and ordinal selectors choose on (`{ $moves -> [one] … }`);
//! - **choices**, one of a few fixed words the code picks (`forfeit`, `yes`); an absent
//!   optional value is the choice `none`, so a message says the plainer sentence.
//!
//! Messages may carry a little markup, turned into a document by [`paragraphs`]: paragraphs
//! are separated by a blank line; `<b>…</b>` is emphasis; `<a {$url}>label</a>` a link;
//! `<button {$url}>label</button>` (a paragraph of its own) the mail's prominent link; a
//! paragraph that is only `<name/>` is a slot the code fills (a list, a quotation). A single
//! line break inside a paragraph is a space.
//!
//! Rendering never fails: a key the catalogue lacks gives the English message, else the key
//! itself, and is logged; in this crate's unit tests it panics, so a test that renders a text
//! finds it. The tests below check that both languages have the same messages with the same
//! variables, and that every key the code names exists.

use super::language::Language;
use fluent_bundle::concurrent::FluentBundle;
use fluent_bundle::{FluentArgs, FluentResource, FluentValue};
use std::sync::LazyLock;

/// One catalogue file of each language: its name and text.
type Files = &'static [(&'static str, &'static str)];

/// The catalogue files of `language` (each path written out: the image's build checks what
/// the crate reads while compiling). Adding a language: a folder of the same files, its arm
/// here and its [`Language`] variant.
fn files(language: Language) -> Files {
    match language {
        Language::En => &[
            ("common", include_str!("en/common.ftl")),
            ("notices", include_str!("en/notices.ftl")),
            ("tournaments", include_str!("en/tournaments.ftl")),
            ("account", include_str!("en/account.ftl")),
            ("digest", include_str!("en/digest.ftl")),
            ("elsewhere", include_str!("en/elsewhere.ftl")),
        ],
        Language::Ja => &[
            ("common", include_str!("ja/common.ftl")),
            ("notices", include_str!("ja/notices.ftl")),
            ("tournaments", include_str!("ja/tournaments.ftl")),
            ("account", include_str!("ja/account.ftl")),
            ("digest", include_str!("ja/digest.ftl")),
            ("elsewhere", include_str!("ja/elsewhere.ftl")),
        ],
    }
}

type Bundle = FluentBundle<FluentResource>;

static BUNDLES: LazyLock<Vec<(Language, Bundle)>> = LazyLock::new(|| {
    Language::ALL
        .into_iter()
        .map(|language| (language, bundle(language)))
        .collect()
});

fn bundle(language: Language) -> Bundle {
    let id = language
        .as_str()
        .parse()
        .expect("a language's code is a language identifier");
    let mut bundle = FluentBundle::new_concurrent(vec![id]);
    // No Unicode isolation marks around placed values: mail and feeds are plain text.
    bundle.set_use_isolating(false);
    if let Err(error) = bundle.add_builtins() {
        report(format_args!(
            "{language:?}: the catalogue's functions: {error:?}"
        ));
    }
    for (name, text) in files(language) {
        // A file with a mistake still gives the messages that parse (the tests allow none).
        let resource =
            FluentResource::try_new(text.to_string()).unwrap_or_else(|(resource, errors)| {
                report(format_args!(
                    "{language:?} {name}.ftl does not parse: {errors:?}"
                ));
                resource
            });
        if let Err(errors) = bundle.add_resource(resource) {
            report(format_args!("{language:?} {name}.ftl: {errors:?}"));
        }
    }
    bundle
}

fn report(what: std::fmt::Arguments) {
    tracing::error!("words: {what}");
    #[cfg(test)]
    panic!("words: {what}");
}

/// A variable of a message.
#[derive(Clone, Debug)]
enum Arg {
    Text(String),
    Number(i64),
    Choice(&'static str),
}

/// The variables of a message, by name.
#[derive(Clone, Debug, Default)]
pub struct Args(Vec<(&'static str, Arg)>);

/// The choice an absent optional value is.
pub const NONE: &str = "none";

impl Args {
    pub fn new() -> Self {
        Self::default()
    }

    fn with(mut self, name: &'static str, arg: Arg) -> Self {
        self.0.retain(|(n, _)| *n != name);
        self.0.push((name, arg));
        self
    }

    /// Text placed as it is (a name, a date in words, a link).
    pub fn text(self, name: &'static str, value: impl Into<String>) -> Self {
        self.with(name, Arg::Text(value.into()))
    }

    pub fn number(self, name: &'static str, value: i64) -> Self {
        self.with(name, Arg::Number(value))
    }

    /// One of the few words a message chooses on.
    pub fn choice(self, name: &'static str, value: &'static str) -> Self {
        self.with(name, Arg::Choice(value))
    }

    /// `yes` or `no`.
    pub fn flag(self, name: &'static str, value: bool) -> Self {
        self.choice(name, if value { "yes" } else { "no" })
    }

    /// Text, or the choice `none` when there is none.
    pub fn maybe_text(self, name: &'static str, value: Option<impl Into<String>>) -> Self {
        match value {
            Some(value) => self.text(name, value),
            None => self.choice(name, NONE),
        }
    }

    /// A number, or the choice `none` when there is none.
    pub fn maybe_number(self, name: &'static str, value: Option<i64>) -> Self {
        match value {
            Some(value) => self.number(name, value),
            None => self.choice(name, NONE),
        }
    }

    /// The Fluent arguments, texts as placeholders ([`mark`]) to be put in after formatting.
    fn fluent(&self) -> (FluentArgs<'static>, Vec<&str>) {
        let mut args = FluentArgs::new();
        let mut texts = Vec::new();
        for (name, arg) in &self.0 {
            let value: FluentValue = match arg {
                Arg::Text(text) => {
                    texts.push(text.as_str());
                    FluentValue::from(mark(texts.len() - 1))
                }
                Arg::Number(n) => FluentValue::from(*n),
                Arg::Choice(choice) => FluentValue::from(*choice),
            };
            args.set(*name, value);
        }
        (args, texts)
    }
}

/// Text values stand in the formatted message as `U+E000 index U+E001` (private-use
/// characters no catalogue holds), so that no text can steer a selector or be read as markup:
/// they are put in only after the message's markup is read.
const OPEN: char = '\u{e000}';
const CLOSE: char = '\u{e001}';

fn mark(index: usize) -> String {
    format!("{OPEN}{index}{CLOSE}")
}

/// `text` with its placeholders replaced by the texts they stand for.
fn fill(text: &str, texts: &[&str]) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(start) = rest.find(OPEN) {
        out.push_str(&rest[..start]);
        let after = &rest[start + OPEN.len_utf8()..];
        match after.find(CLOSE).and_then(|end| {
            let index: usize = after[..end].parse().ok()?;
            Some((texts.get(index)?, end))
        }) {
            Some((value, end)) => {
                out.push_str(value);
                rest = &after[end + CLOSE.len_utf8()..];
            }
            None => {
                rest = after;
            }
        }
    }
    out.push_str(rest);
    out
}

/// The message `key` (`message` or `message.attribute`) formatted, placeholders still in.
fn format(language: Language, key: &str, args: &FluentArgs) -> String {
    let (id, attribute) = match key.split_once('.') {
        Some((id, attribute)) => (id, Some(attribute)),
        None => (key, None),
    };
    let found = |language: Language| {
        let (_, bundle) = BUNDLES.iter().find(|(l, _)| *l == language)?;
        let message = bundle.get_message(id)?;
        let pattern = match attribute {
            Some(attribute) => message.get_attribute(attribute)?.value(),
            None => message.value()?,
        };
        let mut errors = Vec::new();
        let text = bundle.format_pattern(pattern, Some(args), &mut errors);
        if !errors.is_empty() {
            report(format_args!("{language:?} {key}: {errors:?}"));
        }
        Some(text.into_owned())
    };
    found(language)
        .or_else(|| {
            report(format_args!("{language:?} has no message {key}"));
            found(Language::En)
        })
        .unwrap_or_else(|| key.to_string())
}

/// A plain message (a subject, a line, a phrase to place in another message).
pub fn say(language: Language, key: &str, args: &Args) -> String {
    let (fluent, texts) = args.fluent();
    fill(&format(language, key, &fluent), &texts)
}

/// A piece of a paragraph.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Piece {
    Text(String),
    Strong(String),
    Link {
        label: String,
        url: String,
    },
    /// The prominent link of a mail (`<button {$url}>label</button>`).
    Button {
        label: String,
        url: String,
    },
    /// A place the code fills (`<standings/>`).
    Slot(String),
}

/// A message with markup, as paragraphs of pieces (empty paragraphs left out).
pub fn paragraphs(language: Language, key: &str, args: &Args) -> Vec<Vec<Piece>> {
    let (fluent, texts) = args.fluent();
    let formatted = format(language, key, &fluent).replace("\r\n", "\n");
    formatted
        .split("\n\n")
        .map(|paragraph| paragraph.trim().replace('\n', " "))
        .filter(|paragraph| !paragraph.is_empty())
        .map(|paragraph| pieces(&paragraph, &texts))
        .collect()
}

/// The markup of one paragraph read; texts put in.
fn pieces(paragraph: &str, texts: &[&str]) -> Vec<Piece> {
    if let Some(name) = paragraph
        .strip_prefix('<')
        .and_then(|p| p.strip_suffix("/>"))
        .filter(|name| name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_'))
    {
        return vec![Piece::Slot(name.to_string())];
    }
    let mut out = Vec::new();
    let mut plain = String::new();
    let mut rest = paragraph;
    while !rest.is_empty() {
        if let Some((piece, after)) = tag(rest, texts) {
            if !plain.is_empty() {
                out.push(Piece::Text(fill(&plain, texts)));
                plain.clear();
            }
            out.push(piece);
            rest = after;
        } else {
            let mut chars = rest.chars();
            plain.extend(chars.next());
            rest = chars.as_str();
        }
    }
    if !plain.is_empty() {
        out.push(Piece::Text(fill(&plain, texts)));
    }
    out
}

/// The tag at the start of `text`, if one is there: the piece and the text after it.
fn tag<'a>(text: &'a str, texts: &[&str]) -> Option<(Piece, &'a str)> {
    if let Some(rest) = text.strip_prefix("<b>") {
        let (inner, after) = rest.split_once("</b>")?;
        return Some((Piece::Strong(fill(inner, texts)), after));
    }
    for (open, close) in [("<a ", "</a>"), ("<button ", "</button>")] {
        if let Some(rest) = text.strip_prefix(open) {
            let (url, rest) = rest.split_once('>')?;
            let (label, after) = rest.split_once(close)?;
            let (url, label) = (fill(url.trim(), texts), fill(label, texts));
            let piece = if open == "<a " {
                Piece::Link { label, url }
            } else {
                Piece::Button { label, url }
            };
            return Some((piece, after));
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use fluent_syntax::ast;
    use std::collections::{BTreeMap, BTreeSet};

    /// Every message and attribute of a language, with the variables each uses.
    fn messages(language: Language) -> BTreeMap<String, BTreeSet<String>> {
        let mut out = BTreeMap::new();
        for (file, text) in files(language) {
            let resource = fluent_syntax::parser::parse(*text)
                .unwrap_or_else(|(_, errors)| panic!("{language:?} {file}.ftl: {errors:?}"));
            for entry in resource.body {
                let ast::Entry::Message(message) = entry else {
                    continue;
                };
                let id = message.id.name.to_string();
                if let Some(value) = &message.value {
                    out.insert(id.clone(), variables(value));
                }
                for attribute in &message.attributes {
                    out.insert(
                        format!("{id}.{}", attribute.id.name),
                        variables(&attribute.value),
                    );
                }
            }
        }
        out
    }

    fn variables(pattern: &ast::Pattern<&str>) -> BTreeSet<String> {
        let mut out = BTreeSet::new();
        walk_pattern(pattern, &mut out);
        out
    }

    fn walk_pattern(pattern: &ast::Pattern<&str>, out: &mut BTreeSet<String>) {
        for element in &pattern.elements {
            if let ast::PatternElement::Placeable { expression } = element {
                walk_expression(expression, out);
            }
        }
    }

    fn walk_expression(expression: &ast::Expression<&str>, out: &mut BTreeSet<String>) {
        match expression {
            ast::Expression::Select { selector, variants } => {
                walk_inline(selector, out);
                for variant in variants {
                    walk_pattern(&variant.value, out);
                }
            }
            ast::Expression::Inline(inline) => walk_inline(inline, out),
        }
    }

    fn walk_inline(inline: &ast::InlineExpression<&str>, out: &mut BTreeSet<String>) {
        match inline {
            ast::InlineExpression::VariableReference { id } => {
                out.insert(id.name.to_string());
            }
            ast::InlineExpression::FunctionReference { arguments, .. } => {
                for argument in &arguments.positional {
                    walk_inline(argument, out);
                }
            }
            ast::InlineExpression::Placeable { expression } => walk_expression(expression, out),
            _ => {}
        }
    }

    #[test]
    fn every_language_has_the_same_files_messages_and_variables() {
        let english = messages(Language::En);
        assert!(english.len() > 50, "{}", english.len());
        for language in Language::ALL {
            let names = |l: Language| files(l).iter().map(|(n, _)| *n).collect::<Vec<_>>();
            assert_eq!(names(language), names(Language::En), "{language:?}'s files");
            let other = messages(language);
            let missing: Vec<_> = english.keys().filter(|k| !other.contains_key(*k)).collect();
            let extra: Vec<_> = other.keys().filter(|k| !english.contains_key(*k)).collect();
            assert!(
                missing.is_empty() && extra.is_empty(),
                "{language:?} lacks {missing:?} and has only it {extra:?}"
            );
            for (key, variables) in &english {
                assert_eq!(
                    &other[key], variables,
                    "the variables of {key} in {language:?} and in English"
                );
            }
            // Every file parses into the bundle without a clash.
            let _ = bundle(language);
        }
    }

    /// The keys the code names: string literals that start with a message id of the
    /// catalogue's families and are passed to `say`, `paragraphs` or the renderers' helpers.
    fn keys_in_code() -> BTreeSet<String> {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
        let mut keys = BTreeSet::new();
        let mut folders = vec![root];
        while let Some(folder) = folders.pop() {
            for entry in std::fs::read_dir(&folder).unwrap() {
                let path = entry.unwrap().path();
                if path.is_dir() {
                    folders.push(path);
                } else if path.extension().is_some_and(|e| e == "rs") {
                    let text = std::fs::read_to_string(&path).unwrap();
                    // `key!("…")` marks a key in the code (see `crate::words::key`).
                    for (index, _) in text.match_indices("key!(\"") {
                        let rest = &text[index + 6..];
                        if let Some(end) = rest.find('"') {
                            keys.insert(rest[..end].to_string());
                        }
                    }
                }
            }
        }
        keys.remove("…");
        keys
    }

    #[test]
    fn every_key_the_code_names_exists() {
        let keys = keys_in_code();
        assert!(keys.len() > 20, "{keys:?}");
        let english = messages(Language::En);
        // `{kind}` in a key stands for every notice kind's name, `{account}` for every account
        // mail's: a message each.
        use crate::service::notices::{NoticeKind, account::AccountMailKind};
        let expand = |key: &str| -> Vec<String> {
            if key.contains("{kind}") {
                NoticeKind::ALL
                    .iter()
                    .map(|kind| key.replace("{kind}", kind.as_str()))
                    .collect()
            } else if key.contains("{account}") {
                AccountMailKind::ALL
                    .iter()
                    .map(|kind| key.replace("{account}", kind.as_str()))
                    .collect()
            } else {
                vec![key.to_string()]
            }
        };
        let missing: Vec<_> = keys
            .iter()
            .flat_map(|key| expand(key))
            .filter(|key| !english.contains_key(key))
            .collect();
        assert!(missing.is_empty(), "no such messages: {missing:?}");
    }

    #[test]
    fn texts_are_placed_never_read() {
        let args = Args::new()
            .text("name", "<b>x</b> <a https://evil>y</a> \u{e000}0\u{e001}")
            .choice("how", "none");
        let text = fill(&format!("a {} b", mark(0)), &["<b>x</b>"]);
        assert_eq!(text, "a <b>x</b> b");
        let pieces = pieces(&format!("<b>{}</b>!", mark(0)), &["<a x>y</a>"]);
        assert_eq!(
            pieces,
            vec![Piece::Strong("<a x>y</a>".into()), Piece::Text("!".into())]
        );
        let (fluent, texts) = args.fluent();
        assert_eq!(texts.len(), 1);
        assert!(fluent.get("how").is_some());
    }

    #[test]
    fn markup_becomes_pieces() {
        let texts = ["https://k.example/t", "Cup"];
        assert_eq!(
            pieces(
                &format!("See <a {}>the page of {}</a>.", mark(0), mark(1)),
                &texts
            ),
            vec![
                Piece::Text("See ".into()),
                Piece::Link {
                    label: "the page of Cup".into(),
                    url: "https://k.example/t".into()
                },
                Piece::Text(".".into()),
            ]
        );
        assert_eq!(
            pieces("<standings/>", &[]),
            vec![Piece::Slot("standings".into())]
        );
        assert_eq!(
            pieces(&format!("<button {}>Open</button>", mark(0)), &texts),
            vec![Piece::Button {
                label: "Open".into(),
                url: "https://k.example/t".into()
            }]
        );
        // A lone `<` is text.
        assert_eq!(pieces("a < b", &[]), vec![Piece::Text("a < b".into())]);
    }
}
