//! The shape of the code, checked: layers point one way and rooms do not lean on each other in
//! circles.
//!
//! The detector reads every file under `src/` as text: each `use` tree and each path that
//! starts at `crate::`, `super::` or `self::` (or at a module such a `use` brought in) is an
//! import of the file that holds the named module. Test code (`#[cfg(test)]` items and the
//! files they declare) is left out: a test may reach anywhere.
//!
//! Two rules, applied in every folder to its entries (its files and its subfolders, each
//! subfolder standing for everything below it):
//! - **No circle that crosses folders.** Files of one folder may use each other both ways; a
//!   circle through a subfolder means two rooms lean on each other, and fails.
//! - **No upward import.** In the folders that [`LAYERS`] orders, an entry imports only
//!   entries listed before it (or itself); an entry missing from the list fails, so a new
//!   room is placed on purpose.
//!
//! And a size a person reads: no file of `src/` is longer than [`MAX_LINES`] lines, its test
//! code (`#[cfg(test)]` items and test files) left out.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

/// The most lines a source file of `src/` has, its tests left out.
const MAX_LINES: usize = 1000;

/// The order of the rooms, lowest first, in the folders whose rooms form layers.
const LAYERS: &[(&str, &[&str])] = &[
    (
        "",
        &[
            // Leaves: the clock, the rules for text from clients, masking secrets in logs.
            "time.rs",
            "text",
            "redact.rs",
            // Settings import nothing of Kontor's above the leaves.
            "config",
            // The words a person reads, in each language.
            "words",
            "telemetry.rs",
            // The pure rules engines, then the SQL.
            "games",
            "store",
            "auth",
            "live",
            "service",
            "audit",
            "embedded_pg.rs",
            "ops",
            "http",
            // The composition roots.
            "app.rs",
            "main.rs",
            "lib.rs",
        ],
    ),
    (
        "service",
        &[
            "notices",
            "play",
            "social",
            // The deadline worker: turns, rules timers, undo requests, rematch offers.
            "deadlines.rs",
            "accounts",
            "competition",
            "streams",
            "delivery",
            "housekeeping.rs",
            "mod.rs",
        ],
    ),
    (
        "http",
        &[
            "request_id.rs",
            "serving_pool.rs",
            "error.rs",
            "uploads.rs",
            // What every handler can reach.
            "state.rs",
            // The one rule of which reads may go to a read replica.
            "replica_reads.rs",
            "middleware",
            "extract",
            // The resources, grouped as the services are.
            "accounts",
            "play",
            "social",
            "competition",
            "streams",
            "delivery",
            "health.rs",
            "metrics.rs",
            "page.rs",
            "docs.rs",
            // The route table, and the description assembled from it.
            "routes.rs",
            "openapi",
            "mod.rs",
        ],
    ),
];

#[test]
fn no_circle_crosses_folders_and_no_layer_imports_upward() {
    let src = Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/src"));
    let mut files = BTreeMap::new();
    for path in crate::contract::rust_files(src) {
        let name = path
            .strip_prefix(src)
            .unwrap()
            .to_string_lossy()
            .replace('\\', "/");
        files.insert(name, std::fs::read_to_string(&path).unwrap());
    }
    let code = Code::read(&files);
    assert!(
        code.imports.len() > 500,
        "only {} imports found: is the reader broken?",
        code.imports.len()
    );
    let mut problems = code.problems(LAYERS);
    problems.extend(too_long(&files));
    assert!(
        problems.is_empty(),
        "the shape of src/ is broken:\n{}",
        problems.join("\n")
    );
}

/// The detector on small crates of its own: it finds what it must and nothing else.
#[test]
fn the_shape_detector_finds_circles_and_upward_imports() {
    let layers: &[(&str, &[&str])] = &[("", &["low.rs", "mid", "high.rs", "lib.rs"])];
    let crate_of = |files: &[(&str, &str)]| -> Vec<String> {
        let files: BTreeMap<String, String> = files
            .iter()
            .map(|(n, t)| (n.to_string(), t.to_string()))
            .collect();
        Code::read(&files).problems(layers)
    };
    let lib = ("lib.rs", "pub mod low; pub mod mid; pub mod high;");
    // A clean crate: imports point down, in every spelling.
    let clean = crate_of(&[
        lib,
        ("low.rs", "pub fn f() {}"),
        ("mid/mod.rs", "pub mod a; pub mod b;\nuse crate::low;"),
        ("mid/a.rs", "use super::b::g;\nfn x() { crate::low::f(); }"),
        // Files of one folder may use each other both ways.
        ("mid/b.rs", "pub fn g() { super::a::x(); }"),
        (
            "high.rs",
            "use crate::{low, mid::{self, a::x}};\n// crate::nothing::here\nconst S: &str = \"crate::high\";",
        ),
    ]);
    assert!(clean.is_empty(), "{clean:?}");
    // An upward import, spelled inside a use group.
    let upward = crate_of(&[
        lib,
        ("low.rs", "use crate::{high::H, mid};"),
        ("mid/mod.rs", ""),
        ("high.rs", "pub struct H;"),
    ]);
    assert_eq!(upward.len(), 2, "{upward:?}");
    assert!(upward[0].contains("low.rs:1 imports upward"), "{upward:?}");
    // A circle through a subfolder: its entry imports its parent's file, which imports it.
    let circle = crate_of(&[
        lib,
        ("low.rs", ""),
        ("mid/mod.rs", "pub mod deep;\npub struct T;"),
        ("mid/deep/mod.rs", "pub mod x;"),
        ("mid/deep/x.rs", "use super::super::T;"),
        ("high.rs", ""),
    ]);
    assert!(
        circle.is_empty(),
        "a module declaration is no import: {circle:?}"
    );
    let circle = crate_of(&[
        lib,
        ("low.rs", ""),
        (
            "mid/mod.rs",
            "pub mod deep;\npub struct T;\nfn y() { deep::x::f(); }",
        ),
        ("mid/deep/mod.rs", "pub mod x;"),
        ("mid/deep/x.rs", "use super::super::T;\npub fn f() {}"),
        ("high.rs", ""),
    ]);
    assert_eq!(circle.len(), 1, "{circle:?}");
    assert!(
        circle[0].contains("circle in src/mid/: deep/, mod.rs"),
        "{circle:?}"
    );
    // A module brought in by `use`, then named: the import is of the module it names.
    let through = crate_of(&[
        lib,
        ("low.rs", "use crate::mid;\nfn f() { mid::a::g(); }"),
        ("mid/mod.rs", "pub mod a;"),
        ("mid/a.rs", "pub fn g() {}"),
        ("high.rs", ""),
    ]);
    assert!(
        through
            .iter()
            .any(|p| p.contains("low.rs:2 imports upward: mid/a.rs")),
        "{through:?}"
    );
    // Test code may reach anywhere; a room missing from the layers is named.
    let tests = crate_of(&[
        lib,
        (
            "low.rs",
            "#[cfg(test)]\nmod tests { use crate::high::H; }\n#[cfg(test)]\nmod more;",
        ),
        ("low/more.rs", "use crate::high::H;"),
        ("mid/mod.rs", ""),
        ("high.rs", "pub struct H;"),
        ("extra.rs", ""),
    ]);
    assert_eq!(tests, ["src/extra.rs is in no layer of src/"], "{tests:?}");
    // A long file, counted without its tests.
    let long = |code: usize, test: usize| {
        let text = format!(
            "{}#[cfg(test)]\nmod tests {{\n{}}}\n",
            "fn f() {}\n".repeat(code),
            "    fn t() {}\n".repeat(test)
        );
        too_long(&BTreeMap::from([("lib.rs".to_string(), text)]))
    };
    assert!(long(MAX_LINES, 500).is_empty());
    assert_eq!(
        long(MAX_LINES + 1, 0),
        [format!(
            "src/lib.rs has {} lines besides its tests (at most {MAX_LINES})",
            MAX_LINES + 1
        )]
    );
}

/// The files of `src/` longer than [`MAX_LINES`] outside their test code.
fn too_long(sources: &BTreeMap<String, String>) -> Vec<String> {
    let modules: BTreeMap<Vec<String>, String> = sources
        .keys()
        .filter(|name| name.as_str() != "main.rs")
        .map(|name| (module_of(name), name.clone()))
        .collect();
    let tests = test_files(sources, &modules);
    sources
        .iter()
        .filter(|(name, _)| !tests.contains(*name))
        .filter_map(|(name, text)| {
            let code = blank_comments_and_strings(text);
            let lines = text.lines().count() - lines_of_tests(&code);
            (lines > MAX_LINES).then(|| {
                format!("src/{name} has {lines} lines besides its tests (at most {MAX_LINES})")
            })
        })
        .collect()
}

/// How many lines the `#[cfg(test)]` items of a file take.
fn lines_of_tests(code: &str) -> usize {
    let blanked = without_tests(code);
    code.lines()
        .zip(blanked.lines())
        .filter(|(before, after)| before.trim() != after.trim())
        .count()
}

/// One import: the file that names a module, the file of that module, and where.
struct Import {
    from: String,
    to: String,
    line: usize,
}

struct Code {
    imports: Vec<Import>,
    /// Every file (test files left out), by name below `src/`.
    files: BTreeSet<String>,
}

impl Code {
    fn read(sources: &BTreeMap<String, String>) -> Code {
        let modules: BTreeMap<Vec<String>, String> = sources
            .keys()
            .filter(|name| name.as_str() != "main.rs")
            .map(|name| (module_of(name), name.clone()))
            .collect();
        let test_files = test_files(sources, &modules);
        let mut imports = Vec::new();
        for (name, text) in sources {
            if test_files.contains(name) {
                continue;
            }
            let here = module_of(name);
            let code = without_tests(&blank_comments_and_strings(text));
            let root = if name == "main.rs" { "kontor" } else { "crate" };
            // Names in scope that stand for modules: the file's own submodules, and modules
            // that a `use` brings in.
            let mut bound: BTreeMap<String, Vec<String>> = declared_modules(&code)
                .into_iter()
                .map(|name| (name.clone(), here.iter().cloned().chain([name]).collect()))
                .collect();
            let resolve = |bound: &BTreeMap<String, Vec<String>>, written: &[String]| {
                absolute(&here, written, root).or_else(|| {
                    let module = bound.get(&written[0])?;
                    Some(
                        module
                            .iter()
                            .chain(&written[1..])
                            .cloned()
                            .collect::<Vec<_>>(),
                    )
                })
            };
            let mut paths: Vec<(usize, Vec<String>)> = Vec::new();
            for (at, tree) in use_trees(&code) {
                for leaf in expand(&tree) {
                    let Some(path) = resolve(&bound, &leaf.path) else {
                        continue;
                    };
                    if let Some(name) = leaf.binding()
                        && modules.contains_key(&path)
                    {
                        bound.insert(name, path.clone());
                    }
                    paths.push((at, path));
                }
            }
            for (at, written) in inline_paths(&code) {
                if let Some(path) = resolve(&bound, &written) {
                    paths.push((at, path));
                }
            }
            for (at, path) in paths {
                let Some(to) = file_of(&modules, &path) else {
                    continue;
                };
                if to != *name && !test_files.contains(&to) {
                    let line = code[..at].matches('\n').count() + 1;
                    imports.push(Import {
                        from: name.clone(),
                        to,
                        line,
                    });
                }
            }
        }
        let files = sources
            .keys()
            .filter(|n| !test_files.contains(*n))
            .cloned()
            .collect();
        Code { imports, files }
    }

    /// What breaks the two rules, one line each.
    fn problems(&self, layers: &[(&str, &[&str])]) -> Vec<String> {
        let mut problems = Vec::new();
        // Every folder's entries and the imports between them.
        let mut folders: BTreeMap<String, BTreeSet<(String, String)>> = BTreeMap::new();
        let mut first: BTreeMap<(String, String, String), (String, usize)> = BTreeMap::new();
        for import in &self.imports {
            let (folder, from, to) = entries(&import.from, &import.to);
            if from == to {
                continue;
            }
            first
                .entry((folder.clone(), from.clone(), to.clone()))
                .or_insert((import.from.clone(), import.line));
            folders.entry(folder).or_default().insert((from, to));
        }
        for (folder, edges) in &folders {
            for circle in circles(edges) {
                if circle.iter().any(|entry| entry.ends_with('/')) {
                    let shown: Vec<String> = edges
                        .iter()
                        .filter(|(a, b)| circle.contains(a) && circle.contains(b))
                        .map(|(a, b)| {
                            let (file, line) = &first[&(folder.clone(), a.clone(), b.clone())];
                            format!("{a} → {b} (src/{file}:{line})")
                        })
                        .collect();
                    problems.push(format!(
                        "circle in src/{folder}: {}: {}",
                        circle.join(", "),
                        shown.join("; ")
                    ));
                }
            }
        }
        for (folder, order) in layers {
            let prefix = if folder.is_empty() {
                String::new()
            } else {
                format!("{folder}/")
            };
            let rank = |entry: &str| order.iter().position(|o| entry.trim_end_matches('/') == *o);
            let present: BTreeSet<String> = self
                .files
                .iter()
                .filter_map(|f| f.strip_prefix(&prefix))
                .map(|rest| match rest.split_once('/') {
                    Some((dir, _)) => format!("{dir}/"),
                    None => rest.to_string(),
                })
                .collect();
            for entry in &present {
                if rank(entry).is_none() {
                    problems.push(format!(
                        "src/{prefix}{} is in no layer of src/{prefix}",
                        entry.trim_end_matches('/')
                    ));
                }
            }
            let mut told = BTreeSet::new();
            for import in &self.imports {
                let (f, from, to) = entries(&import.from, &import.to);
                if f != prefix || !told.insert((&import.from, &import.to)) {
                    continue;
                }
                if let (Some(a), Some(b)) = (rank(&from), rank(&to))
                    && a < b
                {
                    problems.push(format!(
                        "src/{}:{} imports upward: {}",
                        import.from,
                        import.line,
                        import.to.strip_prefix(&prefix).unwrap_or(&import.to)
                    ));
                }
            }
        }
        problems
    }
}

/// The folder where two files' paths part, and the entry of each there: a file name, or a
/// subfolder's name with a `/`.
fn entries(from: &str, to: &str) -> (String, String, String) {
    let a: Vec<&str> = from.split('/').collect();
    let b: Vec<&str> = to.split('/').collect();
    let mut common = 0;
    while common < a.len() - 1 && common < b.len() - 1 && a[common] == b[common] {
        common += 1;
    }
    let entry = |parts: &[&str]| {
        if parts.len() == common + 1 {
            parts[common].to_string()
        } else {
            format!("{}/", parts[common])
        }
    };
    let folder: String = a[..common].iter().map(|p| format!("{p}/")).collect();
    (folder, entry(&a), entry(&b))
}

/// The module path of a file: `service/play/step.rs` is `service::play::step`, a `mod.rs` is
/// its folder, `lib.rs` the crate.
fn module_of(name: &str) -> Vec<String> {
    let mut parts: Vec<String> = name
        .trim_end_matches(".rs")
        .split('/')
        .map(String::from)
        .collect();
    if matches!(parts.last().map(String::as_str), Some("mod" | "lib")) {
        parts.pop();
    }
    parts
}

/// The file that holds the module a path names: its longest prefix that is a module.
fn file_of(modules: &BTreeMap<Vec<String>, String>, path: &[String]) -> Option<String> {
    (1..=path.len())
        .rev()
        .find_map(|n| modules.get(&path[..n]))
        .cloned()
}

/// The files that only tests compile: declared by `#[cfg(test)] mod name;`, and all below them.
fn test_files(
    sources: &BTreeMap<String, String>,
    modules: &BTreeMap<Vec<String>, String>,
) -> BTreeSet<String> {
    let mut test_modules = Vec::new();
    for (name, text) in sources {
        let code = blank_comments_and_strings(text);
        let mut rest = code.as_str();
        while let Some(at) = rest.find("#[cfg(test)]") {
            rest = &rest[at + "#[cfg(test)]".len()..];
            let item = rest.trim_start();
            let item = item.strip_prefix("pub ").unwrap_or(item);
            if let Some(declared) = item.strip_prefix("mod ") {
                let ident: String = declared
                    .chars()
                    .take_while(|c| c.is_alphanumeric() || *c == '_')
                    .collect();
                if declared[ident.len()..].trim_start().starts_with(';') {
                    let mut module = module_of(name);
                    module.push(ident);
                    test_modules.push(module);
                }
            }
        }
    }
    modules
        .iter()
        .filter(|(module, _)| test_modules.iter().any(|t| module.starts_with(t)))
        .map(|(_, file)| file.clone())
        .collect()
}

/// The text with comments and string and character literals blanked (newlines kept), so
/// that what looks like a path in them is not read as one.
fn blank_comments_and_strings(text: &str) -> String {
    let chars: Vec<char> = text.chars().collect();
    let mut out = String::with_capacity(text.len());
    let mut i = 0;
    let blank = |c: char| if c == '\n' { '\n' } else { ' ' };
    while i < chars.len() {
        let c = chars[i];
        let next = chars.get(i + 1).copied();
        if c == '/' && next == Some('/') {
            while i < chars.len() && chars[i] != '\n' {
                out.push(' ');
                i += 1;
            }
        } else if c == '/' && next == Some('*') {
            let mut depth = 0;
            while i < chars.len() {
                if chars[i] == '/' && chars.get(i + 1) == Some(&'*') {
                    depth += 1;
                    out.push_str("  ");
                    i += 2;
                } else if chars[i] == '*' && chars.get(i + 1) == Some(&'/') {
                    depth -= 1;
                    out.push_str("  ");
                    i += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    out.push(blank(chars[i]));
                    i += 1;
                }
            }
        } else if c == 'r' && matches!(next, Some('"' | '#')) && !prev_is_ident(&chars, i) {
            let hashes = chars[i + 1..].iter().take_while(|&&c| c == '#').count();
            if chars.get(i + 1 + hashes) != Some(&'"') {
                out.push(c);
                i += 1;
                continue;
            }
            let end: String = std::iter::once('"')
                .chain(std::iter::repeat_n('#', hashes))
                .collect();
            let body_start = i + 2 + hashes;
            let rest: String = chars[body_start..].iter().collect();
            let len = rest
                .find(&end)
                .map(|at| rest[..at].chars().count())
                .unwrap_or(rest.chars().count());
            let stop = (body_start + len + end.chars().count()).min(chars.len());
            for &ch in &chars[i..stop] {
                out.push(blank(ch));
            }
            i = stop;
        } else if c == '"' {
            out.push(' ');
            i += 1;
            while i < chars.len() && chars[i] != '"' {
                let step = if chars[i] == '\\' { 2 } else { 1 };
                for &ch in &chars[i..(i + step).min(chars.len())] {
                    out.push(blank(ch));
                }
                i += step;
            }
            out.push(' ');
            i += 1;
        } else if c == '\'' {
            // A character literal ('a', '\n', '\u{..}'), not a lifetime ('a).
            let close = if next == Some('\\') {
                chars
                    .get(i + 3..)
                    .and_then(|rest| rest.iter().position(|&c| c == '\''))
                    .map(|p| i + 3 + p)
            } else if chars.get(i + 2) == Some(&'\'') {
                Some(i + 2)
            } else {
                None
            };
            match close {
                Some(end) => {
                    for _ in i..=end {
                        out.push(' ');
                    }
                    i = end + 1;
                }
                None => {
                    out.push(c);
                    i += 1;
                }
            }
        } else {
            out.push(c);
            i += 1;
        }
    }
    out
}

fn prev_is_ident(chars: &[char], i: usize) -> bool {
    i > 0 && (chars[i - 1].is_alphanumeric() || chars[i - 1] == '_')
}

/// The code without the items marked `#[cfg(test)]` (blanked, newlines kept).
fn without_tests(code: &str) -> String {
    let mut out = code.to_string();
    let mut from = 0;
    while let Some(found) = out[from..].find("#[cfg(test)]") {
        let start = from + found;
        let bytes = out.as_bytes();
        let mut i = start + "#[cfg(test)]".len();
        let mut depth = 0;
        let mut end = out.len();
        while i < bytes.len() {
            match bytes[i] {
                b'{' => depth += 1,
                b'}' => {
                    depth -= 1;
                    if depth == 0 {
                        end = i + 1;
                        break;
                    }
                }
                b';' if depth == 0 => {
                    end = i + 1;
                    break;
                }
                _ => {}
            }
            i += 1;
        }
        let blanked: String = out[start..end]
            .chars()
            .map(|c| if c == '\n' { '\n' } else { ' ' })
            .collect();
        out.replace_range(start..end, &blanked);
        from = end;
    }
    out
}

/// The submodules a file declares (`mod name;`), test modules left out by the caller.
fn declared_modules(code: &str) -> Vec<String> {
    code.lines()
        .filter_map(|line| {
            let line = line.trim_start();
            let line = line
                .strip_prefix("pub ")
                .or_else(|| line.strip_prefix("pub(crate) "))
                .unwrap_or(line);
            let name = line.strip_prefix("mod ")?.strip_suffix(';')?;
            Some(name.trim().to_string())
        })
        .collect()
}

/// Each `use` statement's tree, with where it starts.
fn use_trees(code: &str) -> Vec<(usize, String)> {
    let mut found = Vec::new();
    let bytes = code.as_bytes();
    let mut from = 0;
    while let Some(at) = code[from..].find("use ") {
        let start = from + at;
        from = start + 4;
        let word_before =
            start > 0 && (bytes[start - 1].is_ascii_alphanumeric() || bytes[start - 1] == b'_');
        if word_before {
            continue;
        }
        let Some(end) = code[from..].find(';') else {
            break;
        };
        found.push((start, code[from..from + end].to_string()));
        from += end;
    }
    found
}

/// One leaf of a use tree: the path as written and its alias.
struct Leaf {
    path: Vec<String>,
    alias: Option<String>,
}

impl Leaf {
    /// The name it brings into scope.
    fn binding(&self) -> Option<String> {
        if let Some(alias) = &self.alias {
            return Some(alias.clone());
        }
        let last = self.path.last()?;
        match last.as_str() {
            "*" => None,
            "self" => self.path.iter().rev().nth(1).cloned(),
            _ => Some(last.clone()),
        }
    }
}

/// The leaves of a use tree: `a::{b, c::{self, d as e}}` gives `a::b`, `a::c::self`, `a::c::d as e`.
fn expand(tree: &str) -> Vec<Leaf> {
    let tree: String = tree.split_whitespace().collect::<Vec<_>>().join(" ");
    let mut leaves = Vec::new();
    expand_into(&[], &tree, &mut leaves);
    leaves
}

fn expand_into(prefix: &[String], tree: &str, leaves: &mut Vec<Leaf>) {
    let tree = tree.trim();
    if tree.is_empty() {
        return;
    }
    let Some(open) = tree.find('{') else {
        let (path, alias) = match tree.split_once(" as ") {
            Some((p, a)) => (p, Some(a.trim().to_string())),
            None => (tree, None),
        };
        let mut full = prefix.to_vec();
        full.extend(
            path.split("::")
                .map(|s| s.trim().to_string())
                .filter(|s| !s.is_empty()),
        );
        leaves.push(Leaf { path: full, alias });
        return;
    };
    let mut head = prefix.to_vec();
    head.extend(
        tree[..open]
            .split("::")
            .map(|s| s.trim().to_string())
            .filter(|s| !s.is_empty()),
    );
    let body = &tree[open + 1..tree.rfind('}').unwrap_or(tree.len())];
    let mut depth = 0;
    let mut start = 0;
    for (i, c) in body.char_indices() {
        match c {
            '{' => depth += 1,
            '}' => depth -= 1,
            ',' if depth == 0 => {
                expand_into(&head, &body[start..i], leaves);
                start = i + 1;
            }
            _ => {}
        }
    }
    expand_into(&head, &body[start..], leaves);
}

/// Paths written in the code outside `use` statements: `a::b::c` sequences, with where each
/// starts.
fn inline_paths(code: &str) -> Vec<(usize, Vec<String>)> {
    let mut blanked_uses = code.to_string();
    for (at, tree) in use_trees(code) {
        let end = at + 4 + tree.len();
        let blank: String = code[at..end]
            .chars()
            .map(|c| if c == '\n' { '\n' } else { ' ' })
            .collect();
        blanked_uses.replace_range(at..end, &blank);
    }
    let code = blanked_uses.as_str();
    let bytes = code.as_bytes();
    let is_ident = |b: u8| b.is_ascii_alphanumeric() || b == b'_';
    let mut found = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        if is_ident(bytes[i])
            && (i == 0 || !(is_ident(bytes[i - 1]) || bytes[i - 1] == b':' || bytes[i - 1] == b'$'))
        {
            let start = i;
            let mut segments = Vec::new();
            let mut j = i;
            loop {
                let seg_start = j;
                while j < bytes.len() && is_ident(bytes[j]) {
                    j += 1;
                }
                segments.push(code[seg_start..j].to_string());
                if code[j..].starts_with("::") && j + 2 < bytes.len() && is_ident(bytes[j + 2]) {
                    j += 2;
                } else {
                    break;
                }
            }
            if segments.len() > 1 {
                found.push((start, segments));
            }
            i = j.max(i + 1);
        } else {
            i += 1;
        }
    }
    found
}

/// The absolute module path of a path written in module `here`, when it starts at the crate
/// (`crate::`, or `kontor::` in `main.rs`), `super::` or `self::`.
fn absolute(here: &[String], written: &[String], root: &str) -> Option<Vec<String>> {
    let first = written.first()?;
    let mut path: Vec<String> = if first == root {
        written[1..].to_vec()
    } else if first == "super" || first == "self" {
        let mut base = here.to_vec();
        let mut rest = written;
        while let Some(step) = rest.first() {
            match step.as_str() {
                "super" => {
                    base.pop()?;
                }
                "self" => {}
                _ => break,
            }
            rest = &rest[1..];
        }
        base.extend(rest.iter().cloned());
        base
    } else {
        return None;
    };
    path.retain(|s| s != "self" && s != "*");
    Some(path)
}

/// The circles (strongly connected sets of two or more) of a graph, each sorted.
fn circles(edges: &BTreeSet<(String, String)>) -> Vec<Vec<String>> {
    let nodes: BTreeSet<&String> = edges.iter().flat_map(|(a, b)| [a, b]).collect();
    let reach = |from: &String| -> BTreeSet<String> {
        let mut seen = BTreeSet::new();
        let mut stack = vec![from.clone()];
        while let Some(n) = stack.pop() {
            for (a, b) in edges {
                if *a == n && seen.insert(b.clone()) {
                    stack.push(b.clone());
                }
            }
        }
        seen
    };
    let reached: BTreeMap<&String, BTreeSet<String>> =
        nodes.iter().map(|n| (*n, reach(n))).collect();
    let mut circles: BTreeSet<Vec<String>> = BTreeSet::new();
    for n in &nodes {
        let circle: Vec<String> = nodes
            .iter()
            .filter(|m| reached[*n].contains(**m) && reached[**m].contains(*n))
            .map(|m| (*m).clone())
            .collect();
        if circle.len() > 1 {
            circles.insert(circle);
        }
    }
    circles.into_iter().collect()
}
