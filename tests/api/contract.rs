//! The API contract: the committed OpenAPI description matches the code, is valid OpenAPI
//! 3.1, documents every route and every error code, and is served with an offline docs page.

use crate::support::*;
use reqwest::Method;
use serde_json::Value;
use std::path::Path;

const COMMITTED: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/openapi/openapi.json");

#[test]
fn the_committed_description_matches_the_code() {
    let committed: Value = serde_json::from_str(
        &std::fs::read_to_string(COMMITTED).expect("openapi/openapi.json exists"),
    )
    .expect("openapi/openapi.json is JSON");
    let built = kontor::http::openapi::build();
    assert!(
        committed == built,
        "openapi/openapi.json differs from what the server generates; \
         regenerate it with `cargo run -- openapi > openapi/openapi.json` and review the diff"
    );
}

/// The web client's copy of the game kinds (their names and chat defaults, read as the page
/// loads) is what `GET /kinds` answers.
#[test]
fn the_web_clients_kinds_match_the_server() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/web/src/games/kinds.json");
    let committed: Value =
        serde_json::from_str(&std::fs::read_to_string(path).expect("kinds.json exists"))
            .expect("kinds.json is JSON");
    let built = serde_json::to_value(kontor::http::play::games::kind_list()).unwrap();
    assert!(
        committed == built,
        "web/src/games/kinds.json differs from GET /kinds; regenerate it with \
         `cargo run -- kinds > web/src/games/kinds.json` and review the diff"
    );
}

#[test]
fn the_description_is_valid_openapi_3_1() {
    let venv = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/target/openapi-validator/bin/openapi-spec-validator"
    );
    assert!(
        Path::new(venv).exists(),
        "the OpenAPI validator is not installed: run deploy/setup-tests.sh (deploy/test.sh does)"
    );
    let output = std::process::Command::new(venv)
        .arg(COMMITTED)
        .output()
        .unwrap();
    assert!(
        output.status.success(),
        "{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    let spec: Value = serde_json::from_str(&std::fs::read_to_string(COMMITTED).unwrap()).unwrap();
    assert!(spec["openapi"].as_str().unwrap().starts_with("3.1"));
}

/// The error codes are a type (`ErrorCode`), so no code can be answered that is not in the
/// list: what is left to check is that the list is published as the type says, in the
/// description's table and as the schema of `Problem.code`, and that the README and the
/// pages of `docs/` name codes that exist, with their status.
#[test]
fn every_error_code_is_documented() {
    use kontor::http::error::ErrorCode;
    let spec = kontor::http::openapi::build();
    let description = spec["info"]["description"].as_str().unwrap().to_string();
    let mut names = std::collections::HashSet::new();
    for &code in ErrorCode::ALL {
        // The wire name is serde's, and each is used once.
        assert_eq!(serde_json::to_value(code).unwrap(), code.as_str());
        assert!(names.insert(code.as_str()), "{} twice", code.as_str());
        let row = format!(
            "| `{}` | {} | {} |",
            code.as_str(),
            code.status(),
            code.meaning()
        );
        assert!(description.contains(&row), "the description lacks {row}");
    }
    assert!(
        ErrorCode::ALL.len() > 50,
        "only {} codes?",
        ErrorCode::ALL.len()
    );
    // Problem.code is one of the platform codes or one of a game's rule codes.
    let schemas = &spec["components"]["schemas"];
    let platform: Vec<&str> = schemas["PlatformErrorCode"]["enum"]
        .as_array()
        .expect("PlatformErrorCode is an enum")
        .iter()
        .map(|v| v.as_str().unwrap())
        .collect();
    let all: Vec<&str> = ErrorCode::ALL.iter().map(|c| c.as_str()).collect();
    assert_eq!(platform, all);
    // (Problem is one object whose further members are allowed: `additionalProperties`.)
    let members = &schemas["Problem"];
    assert_eq!(members["additionalProperties"], true);
    // Any of the known lists, or a code added later: a client generated today keeps it.
    let choices = members["properties"]["code"]["anyOf"]
        .as_array()
        .expect("Problem.code is any of the code lists");
    assert_eq!(choices.len(), 3);
    assert_eq!(choices[0]["$ref"], "#/components/schemas/PlatformErrorCode");
    assert_eq!(choices[2]["type"], "string");
    assert!(choices[2].get("enum").is_none(), "{}", choices[2]);
    let rule_codes: Vec<&str> = choices[1]["enum"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_str().unwrap())
        .collect();
    // No rule code may also be a platform code.
    assert!(
        rule_codes.iter().all(|c| !all.contains(c)),
        "a rule code is also a platform code"
    );
    for kind in kontor::games::GameKind::ALL {
        for code in kontor::http::play::games::kind_info(kind).error_codes {
            // Each game's rule codes appear in the description and in the schema.
            assert!(
                description.contains(&format!("`{}`", code.code)),
                "{} is not documented",
                code.code
            );
            assert!(
                rule_codes.contains(&code.code),
                "{} is not in the schema",
                code.code
            );
        }
    }
    // The documents name codes as "<status> `code`": each must exist with that status. So
    // does the OpenAPI description's own text (its operations and schemas).
    let mut named = 0;
    let mut texts: Vec<(String, String)> = documents()
        .into_iter()
        .map(|d| {
            (
                d.display().to_string(),
                std::fs::read_to_string(&d).unwrap(),
            )
        })
        .collect();
    texts.push((
        "the OpenAPI description".to_string(),
        serde_json::to_string_pretty(&spec).unwrap(),
    ));
    for (document, text) in texts {
        for (at, _) in text.match_indices(" `") {
            let before = &text[..at];
            // (`get`: the three bytes before may cut a letter of another script in two.)
            let Some(status) = before.get(before.len().saturating_sub(3)..) else {
                continue;
            };
            let Ok(status @ 400..=599) = status.parse::<u16>() else {
                continue;
            };
            let code = text[at + 2..].split('`').next().unwrap_or("");
            if code.is_empty() || !code.chars().all(|c| c.is_ascii_lowercase() || c == '_') {
                continue;
            }
            let known = ErrorCode::ALL
                .iter()
                .find(|c| c.as_str() == code)
                .unwrap_or_else(|| panic!("{document} names {status} `{code}`, which is no code"));
            assert_eq!(
                known.status(),
                status,
                "{document} gives {code} another status"
            );
            named += 1;
        }
    }
    assert!(named > 5, "the documents' scan found only {named} codes");
}

/// The documents people read: the README and every page of `docs/`.
fn documents() -> Vec<std::path::PathBuf> {
    fn pages(dir: &Path, found: &mut Vec<std::path::PathBuf>) {
        for entry in std::fs::read_dir(dir).unwrap().flatten() {
            let path = entry.path();
            if path.is_dir() {
                pages(&path, found);
            } else if path.extension().is_some_and(|e| e == "md") {
                found.push(path);
            }
        }
    }
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut found = vec![root.join("README.md")];
    pages(&root.join("docs"), &mut found);
    found[1..].sort();
    assert!(found.len() > 5, "the pages of docs/ are found: {found:?}");
    found
}

/// Event types are additive as codes are: `EventOut.type` lists the known ones (`EventType`,
/// every tag of every event union) and admits others, and the data of an unknown type is an
/// `UnknownEvent`, which no known type's data may pass for.
#[test]
fn event_types_are_listed_and_open_to_additions() {
    let spec = kontor::http::openapi::build();
    let schemas = &spec["components"]["schemas"];
    let event = &schemas["EventOut"]["properties"];
    assert_eq!(
        event["type"]["anyOf"],
        serde_json::json!([
            {"$ref": "#/components/schemas/EventType"},
            {"type": "string", "description": "A type added after this description."},
        ])
    );
    let known: Vec<&str> = schemas["EventType"]["enum"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t.as_str().unwrap())
        .collect();
    for union in ["FlyingDutchman.Event", "SteelDriver.Event", "PlatformEvent"] {
        for tag in schemas[union]["discriminator"]["mapping"]
            .as_object()
            .unwrap()
            .keys()
        {
            assert!(
                known.contains(&tag.as_str()),
                "{union}: {tag} is not an EventType"
            );
        }
    }
    let data = event["data"]["anyOf"].as_array().unwrap();
    assert_eq!(
        data.last().unwrap()["$ref"],
        "#/components/schemas/UnknownEvent"
    );
    assert_eq!(
        schemas["UnknownEvent"]["properties"]["type"]["not"]["$ref"],
        "#/components/schemas/EventType"
    );
}

/// Every example in the description fits the schema it illustrates (schemas' `example` and
/// `examples`, media types' and parameters' examples, each line of the ndjson example against
/// its line schema): `tests/contract/examples.py` checks them with jsonschema (Draft 2020-12,
/// formats asserted), and the check is shown to catch a wrong one.
#[test]
fn every_example_fits_its_schema() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let python = root.join("target/openapi-validator/bin/python");
    assert!(
        python.exists(),
        "the OpenAPI validator is not installed: run deploy/setup-tests.sh (deploy/test.sh does)"
    );
    let check = |spec: &Path| {
        std::process::Command::new(&python)
            .arg(root.join("tests/contract/examples.py"))
            .arg(spec)
            .output()
            .unwrap()
    };
    let output = check(Path::new(COMMITTED));
    let report = String::from_utf8_lossy(&output.stdout);
    assert!(
        output.status.success(),
        "{report}{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let checked: usize = report
        .split_whitespace()
        .next()
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("no count in {report}"));
    // Every action's example, three ndjson logs line by line, and the schemas' own.
    assert!(checked > 700, "only {checked} examples found: {report}");

    // An example that does not fit is named.
    let mut wrong = kontor::http::openapi::build();
    wrong["components"]["schemas"]["ActionResult"]["example"]["events"][0]["data"] =
        serde_json::json!({"type": "passed", "seat": "two"});
    let file = std::env::temp_dir().join(format!("kontor-wrong-{}.json", uuid::Uuid::now_v7()));
    std::fs::write(&file, wrong.to_string()).unwrap();
    let output = check(&file);
    std::fs::remove_file(&file).unwrap();
    let report = String::from_utf8_lossy(&output.stdout);
    assert!(!output.status.success(), "{report}");
    assert!(
        report.contains("#/components/schemas/ActionResult: at events/0/data"),
        "{report}"
    );
}

pub(crate) fn rust_files(dir: &Path) -> Vec<std::path::PathBuf> {
    let mut files = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap().flatten() {
        let path = entry.path();
        if path.is_dir() {
            files.extend(rust_files(&path));
        } else if path.extension().is_some_and(|e| e == "rs") {
            files.push(path);
        }
    }
    files
}

#[tokio::test]
async fn every_documented_route_is_served_and_the_docs_work_offline() {
    let app = spawn_app().await;
    let served = app
        .client
        .get(app.url("/openapi.json"))
        .send()
        .await
        .unwrap();
    let served: Value = served.json().await.unwrap();
    assert_eq!(served, kontor::http::openapi::build());

    for (path, operations) in served["paths"].as_object().unwrap() {
        let concrete = path
            .replace("{game_id}", &uuid::Uuid::new_v4().to_string())
            .replace("{token_id}", &uuid::Uuid::new_v4().to_string());
        for method in operations.as_object().unwrap().keys() {
            let method = Method::from_bytes(method.to_uppercase().as_bytes()).unwrap();
            // API paths start with /api/v1; the health probes live at the root.
            let url = format!("{}{concrete}", app.address);
            let reply = read(
                app.client
                    .request(method.clone(), url)
                    .send()
                    .await
                    .unwrap(),
            )
            .await;
            assert!(
                reply.body["code"] != "not_found",
                "{method} {path} is documented but not routed: {}",
                reply.text
            );
            // A public operation says `security: []`, and needs no credentials indeed.
            let security = &operations[method.as_str().to_lowercase().as_str()]["security"];
            let public = security
                .as_array()
                .expect("every operation says its security")
                .is_empty();
            assert!(
                !public || reply.status != 401,
                "{method} {path} says it is public but asks for credentials: {}",
                reply.text
            );
        }
    }

    let page = app
        .client
        .get(format!("{}/docs/", app.address))
        .send()
        .await
        .unwrap();
    assert_eq!(page.status(), 200);
    let html = page.text().await.unwrap();
    let initializer = app
        .client
        .get(format!("{}/docs/swagger-initializer.js", app.address))
        .send()
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    assert!(initializer.contains("/api/v1/openapi.json"));
    for attribute in ["src=\"", "href=\""] {
        for (at, _) in html.match_indices(attribute) {
            let target = html[at + attribute.len()..].split('"').next().unwrap();
            assert!(
                !target.starts_with("http"),
                "the docs page loads {target} from elsewhere"
            );
            let asset = app
                .client
                .get(format!(
                    "{}/docs/{}",
                    app.address,
                    target.trim_start_matches("./")
                ))
                .send()
                .await
                .unwrap();
            assert_eq!(asset.status(), 200, "docs asset {target} is missing");
        }
    }
}

#[test]
fn the_operators_manual_documents_every_setting_and_command() {
    let manual =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/docs/operations.md"))
            .unwrap();
    for kontor::config::Setting { name, default, .. } in kontor::config::SETTINGS {
        let row = manual
            .lines()
            .find(|l| l.starts_with(&format!("| `{name}` |")))
            .unwrap_or_else(|| panic!("docs/operations.md's configuration table lacks {name}"));
        assert!(
            row.contains(&format!("`{default}`")) || row.contains(default),
            "{name}: docs/operations.md gives another default than {default}: {row}"
        );
    }
    // Every command the binary has, as its help lists them (so a new one cannot be missed).
    let help = std::process::Command::new(env!("CARGO_BIN_EXE_kontor"))
        .arg("--help")
        .output()
        .expect("kontor --help runs");
    let help = String::from_utf8(help.stdout).unwrap();
    let commands: Vec<&str> = help
        .lines()
        .skip_while(|l| !l.starts_with("Commands:"))
        .skip(1)
        .take_while(|l| l.starts_with("  "))
        .filter_map(|l| l.split_whitespace().next())
        .filter(|c| *c != "help")
        .collect();
    assert!(commands.len() >= 13, "kontor --help lists {commands:?}");
    for command in commands {
        assert!(
            manual.contains(&format!("`kontor {command}")),
            "docs/operations.md does not describe kontor {command}"
        );
    }
}

/// The repository is self-contained: each game's rules specification lives beside its code,
/// and no document points outside the repository.
#[test]
fn each_game_keeps_its_rules_beside_its_code() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    for kind in kontor::games::GameKind::ALL {
        let folder = root.join("src/games").join(kind.as_str().replace('-', "_"));
        let rules = std::fs::read_to_string(folder.join("RULES.md"))
            .unwrap_or_else(|_| panic!("{} has no RULES.md", folder.display()));
        assert!(
            rules.starts_with("# "),
            "{}: RULES.md has no title",
            kind.as_str()
        );
    }
    let mut documents = documents();
    documents.extend(
        rust_files(&root.join("src"))
            .into_iter()
            .chain(rust_files(&root.join("tests"))),
    );
    for rules in ["flying_dutchman", "steel_driver"] {
        documents.push(root.join("src/games").join(rules).join("RULES.md"));
    }
    documents.push(root.join("src/games/README.md"));
    documents.push(root.join("web/README.md"));
    for document in documents {
        let text = std::fs::read_to_string(&document).unwrap();
        // Split so that this file does not match itself.
        let outside = [concat!("..", "/shared"), concat!("shared", "/rules")];
        assert!(
            !outside.iter().any(|needle| text.contains(needle)),
            "{} points outside the repository",
            document.display()
        );
    }
}

/// The documents hold together: every relative link of the README and of the pages of `docs/`
/// names a file or folder that exists, and a link to a heading (`page.md#anchor`, `#anchor`)
/// names one that page has, by GitHub's anchors. The README stays a short front page.
#[test]
fn the_documents_links_resolve() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let readme = std::fs::read_to_string(root.join("README.md")).unwrap();
    let lines = readme.lines().count();
    assert!(
        lines < 300,
        "the README has {lines} lines: move text into docs/"
    );
    let mut broken = Vec::new();
    let mut checked = 0;
    for document in documents() {
        let text = std::fs::read_to_string(&document).unwrap();
        let folder = document.parent().unwrap();
        for link in relative_links(&text) {
            checked += 1;
            let (file, anchor) = link.split_once('#').unwrap_or((&link, ""));
            let target = if file.is_empty() {
                document.clone()
            } else {
                folder.join(file)
            };
            let name = document.strip_prefix(root).unwrap().display();
            if !target.exists() {
                broken.push(format!("{name}: {link}: no such file"));
            } else if !anchor.is_empty() && target.extension().is_some_and(|e| e == "md") {
                let page = std::fs::read_to_string(&target).unwrap();
                if !heading_anchors(&page).iter().any(|a| a == anchor) {
                    broken.push(format!("{name}: {link}: no such heading"));
                }
            }
        }
    }
    assert!(
        checked > 30,
        "only {checked} links checked: is the scan broken?"
    );
    assert!(broken.is_empty(), "broken links:\n{}", broken.join("\n"));
    // The detectors themselves: links and images are found, addresses elsewhere, code and
    // code blocks are not; anchors follow GitHub's rules, repeated headings numbered.
    let sample = "See [the manual](docs/operations.md#nginx-and-tls) and ![a board](shot.png).\n\
                  [Elsewhere](https://example.org/x.md) <https://example.org> [mail](mailto:a@b)\n\
                  `[not](a-link.md)` and [here](#whats-new) [titled](b.md \"Title\") `code\n\
                  [over](a-line.md)` [after](c.md)\n\
                  ```sh\n\
                  echo \"[in](code.md)\"\n\
                  ```\n";
    assert_eq!(
        relative_links(sample),
        [
            "docs/operations.md#nginx-and-tls",
            "shot.png",
            "#whats-new",
            "b.md",
            "c.md"
        ]
    );
    let page = "# The operator's manual\n\
                ## What's new?\n\
                ```sh\n\
                # not a heading\n\
                ```\n\
                ### `kontor serve` and TLS_1.3\n\
                ## What's new?\n";
    assert_eq!(
        heading_anchors(page),
        [
            "the-operators-manual",
            "whats-new",
            "kontor-serve-and-tls_13",
            "whats-new-1"
        ]
    );
}

/// The targets of a Markdown text's inline links and images that stay in the repository
/// (no scheme, no `//`), outside code spans and fenced code blocks; a title is left off.
fn relative_links(text: &str) -> Vec<String> {
    // The prose: fenced blocks blanked, then per paragraph (a code span may go on over a line
    // break, never over a blank line) only what lies between code spans.
    let mut fenced = false;
    let mut prose = String::new();
    for line in text.lines() {
        if line.trim_start().starts_with("```") {
            fenced = !fenced;
        } else if !fenced {
            prose.push_str(line);
        }
        prose.push('\n');
    }
    let mut links = Vec::new();
    for paragraph in prose.split("\n\n") {
        for part in paragraph.split('`').step_by(2) {
            for (at, _) in part.match_indices("](") {
                let rest = &part[at + 2..];
                let Some(end) = rest.find(')') else { continue };
                let target = rest[..end].split_whitespace().next().unwrap_or("");
                let scheme = target.split_once(':').is_some_and(|(s, _)| {
                    !s.is_empty() && s.chars().all(|c| c.is_ascii_alphabetic())
                });
                if !target.is_empty() && !scheme && !target.starts_with("//") {
                    links.push(target.to_string());
                }
            }
        }
    }
    links
}

/// The anchors GitHub gives a Markdown page's headings: the heading's text in lower case,
/// without punctuation but `-` and `_`, spaces made `-`; a repeated one gets `-1`, `-2`, ….
fn heading_anchors(text: &str) -> Vec<String> {
    let mut anchors: Vec<String> = Vec::new();
    let mut fenced = false;
    for line in text.lines() {
        if line.trim_start().starts_with("```") {
            fenced = !fenced;
            continue;
        }
        let hashes = line.chars().take_while(|&c| c == '#').count();
        if fenced || !(1..=6).contains(&hashes) || !line[hashes..].starts_with(' ') {
            continue;
        }
        let slug: String = line[hashes..]
            .trim()
            .trim_end_matches('#')
            .trim_end()
            .to_lowercase()
            .chars()
            .filter(|&c| c.is_alphanumeric() || c == '-' || c == '_' || c == ' ')
            .map(|c| if c == ' ' { '-' } else { c })
            .collect();
        let repeats = anchors
            .iter()
            .filter(|a| {
                **a == slug
                    || a.strip_prefix(slug.as_str())
                        .and_then(|n| n.strip_prefix('-'))
                        .is_some_and(|n| !n.is_empty() && n.chars().all(|c| c.is_ascii_digit()))
            })
            .count();
        anchors.push(if repeats == 0 {
            slug
        } else {
            format!("{slug}-{repeats}")
        });
    }
    anchors
}

/// The one folder of `src/` that speaks SQL (migrations live outside `src/`).
const SQL_HOME: &str = "src/store/";

/// The lines of `text` that run SQL, however it is spelt: `sqlx::query…` (functions and
/// macros), `sqlx::raw_sql`, a `QueryBuilder`, an `AssertSqlSafe` string, `query…` imported
/// from sqlx, or sqlx's `Executor` trait (which runs plain strings: `pool.execute("…")`).
fn sql_lines(text: &str) -> Vec<(usize, &str)> {
    text.lines()
        .enumerate()
        .filter(|(_, line)| {
            let import = line.trim_start().starts_with("use sqlx");
            // `PgExecutor` only names where a store function runs; it runs nothing itself.
            let executor = line.replace("PgExecutor", "").contains("Executor");
            let imported =
                import && (line.contains("query") || line.contains("raw_sql") || executor);
            imported
                || [
                    "sqlx::query",
                    "sqlx::raw_sql",
                    "QueryBuilder",
                    "AssertSqlSafe",
                    "sqlx::Executor",
                ]
                .iter()
                .any(|needle| line.contains(needle))
        })
        .map(|(n, line)| (n + 1, line.trim()))
        .collect()
}

#[test]
fn sql_stays_in_the_store() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let files = rust_files(&root.join("src"));
    assert!(files.len() > 50, "the sources are found");
    let mut offenders = Vec::new();
    let mut checked = 0;
    for file in &files {
        let name = file
            .strip_prefix(root)
            .unwrap_or(file)
            .display()
            .to_string();
        if name.starts_with(SQL_HOME) {
            continue;
        }
        checked += 1;
        let text = std::fs::read_to_string(file).unwrap_or_else(|e| panic!("{file:?}: {e}"));
        for (n, line) in sql_lines(&text) {
            offenders.push(format!("{name}:{n}: {line}"));
        }
    }
    assert!(checked > 40, "the files outside the store are checked");
    assert!(
        offenders.is_empty(),
        "SQL belongs in src/store/ (a named function there); found queries in:\n{}",
        offenders.join("\n")
    );
    // The detector itself: each spelling is caught, and names that merely look alike are not.
    for query in [
        "let n = sqlx::query_scalar(\"SELECT 1\")",
        "sqlx::query!(\"SELECT 1\")",
        "use sqlx::{query, PgPool};",
        "use sqlx::Executor;",
        "let mut q = QueryBuilder::new(\"SELECT\");",
        "sqlx::raw_sql(\"SELECT 1\")",
    ] {
        assert_eq!(sql_lines(query).len(), 1, "{query}");
    }
    for harmless in [
        "use sqlx::{PgConnection, PgExecutor, PgPool};",
        "executor: impl PgExecutor<'e>",
        "use lettre::Tokio1Executor;",
    ] {
        assert!(sql_lines(harmless).is_empty(), "{harmless}");
    }
}

/// A clock that can be moved must never be reachable in production: outside `src/time.rs`
/// the server's code never names `TestClock` (it takes whatever clock its configuration holds,
/// and a configuration read from settings always holds the system clock).
#[test]
fn only_tests_build_a_clock_that_can_be_moved() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let files = rust_files(&root.join("src"));
    assert!(files.len() > 20, "the sources are found");
    let offenders: Vec<String> = files
        .iter()
        .filter(|file| !file.ends_with("src/time.rs"))
        .filter(|file| {
            std::fs::read_to_string(file)
                .unwrap_or_else(|e| panic!("{file:?}: {e}"))
                .contains("TestClock")
        })
        .map(|file| {
            file.strip_prefix(root)
                .unwrap_or(file)
                .display()
                .to_string()
        })
        .collect();
    assert!(
        offenders.is_empty(),
        "only the tests build a TestClock, through the library: {offenders:?}"
    );
}

/// Layers point one way: only the HTTP layer and the composition roots that assemble the
/// server (`app.rs`, `main.rs`) may name `crate::http` or actix; the services, the store,
/// auth and the rest below it know nothing of HTTP (their errors are mapped in `http::error`).
#[test]
fn nothing_below_http_imports_from_it() {
    let src = Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/src"));
    let roots = [src.join("app.rs"), src.join("main.rs"), src.join("lib.rs")];
    let mut offenders = Vec::new();
    let mut scanned = 0;
    for file in rust_files(src) {
        if file.starts_with(src.join("http")) || roots.contains(&file) {
            continue;
        }
        scanned += 1;
        let text = std::fs::read_to_string(&file).unwrap();
        // Nor do they use the web framework itself.
        let framework = text.match_indices("actix").map(|(at, _)| at);
        for at in http_mentions(&text).into_iter().chain(framework) {
            let line = text[..at].matches('\n').count() + 1;
            offenders.push(format!("{}:{line}", file.display()));
        }
    }
    assert!(
        scanned > 50,
        "only {scanned} files scanned: is the walk broken?"
    );
    assert!(
        offenders.is_empty(),
        "modules below src/http/ name the HTTP layer: {offenders:?}"
    );
    // The check itself finds what it is meant to find.
    for naming in [
        "use crate::http::error::ApiError;",
        "crate::http::text::line(x)",
        "use crate::{games, http::AppState};",
        "use crate::{\n    games::{Rules, Seat},\n    http,\n};",
        "let x = kontor::http::openapi::build();",
    ] {
        assert_eq!(http_mentions(naming).len(), 1, "{naming}");
    }
    for innocent in [
        "use crate::store::health;",
        "use actix_web::http::StatusCode;",
        "use crate::{games::{Rules, Seat}, https};",
        "crate::httpd",
    ] {
        assert!(http_mentions(innocent).is_empty(), "{innocent}");
    }
}

/// Where a Rust text names the crate's `http` module: `crate::http`, `kontor::http`, or
/// `http` as an item of a `crate::{…}` group.
fn http_mentions(text: &str) -> Vec<usize> {
    let is_http = |path: &str| {
        path.trim_start()
            .strip_prefix("http")
            .is_some_and(|after| !after.starts_with(|c: char| c.is_alphanumeric() || c == '_'))
    };
    let mut found = Vec::new();
    for root in ["crate::", "kontor::"] {
        for (at, _) in text.match_indices(root) {
            let rest = &text[at + root.len()..];
            let Some(group) = rest.strip_prefix('{') else {
                if is_http(rest) {
                    found.push(at);
                }
                continue;
            };
            // The group up to its closing brace; `http` may be any item at its top level.
            let mut depth = 1;
            let mut items = vec![0];
            let mut end = group.len();
            for (i, c) in group.char_indices() {
                match c {
                    '{' => depth += 1,
                    '}' if depth == 1 => {
                        end = i;
                        break;
                    }
                    '}' => depth -= 1,
                    ',' if depth == 1 => items.push(i + 1),
                    _ => {}
                }
            }
            if items.iter().any(|&start| is_http(&group[start..end])) {
                found.push(at);
            }
        }
    }
    found
}
