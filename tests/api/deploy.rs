//! The deploy kit, checked without a container engine: the image's build stage has every file
//! the crate reads while it compiles, and `deploy/setup.sh` run again with nothing changed
//! leaves the page the release binary embeds untouched (so `deploy/serve.sh` does not make
//! cargo compile the server again).

use crate::contract::rust_files;
use std::collections::BTreeMap;
use std::path::{Component, Path, PathBuf};
use std::process::Command;
use std::time::SystemTime;

fn repository() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// `path` without `.` and with `..` applied (no file system access: the path may not exist).
fn normalize(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for component in path.components() {
        match component {
            Component::CurDir => {}
            Component::ParentDir => assert!(out.pop(), "{} leaves its root", path.display()),
            other => out.push(other),
        }
    }
    out
}

/// The string literal that opens `text` (`"…"`, without escapes), if it does.
fn leading_literal(text: &str) -> Option<&str> {
    let rest = text.trim_start().strip_prefix('"')?;
    Some(&rest[..rest.find('"')?])
}

/// What the crate reads from the file system while it compiles, relative to the repository
/// (with the file that names it): each `include_str!`/`include_bytes!` (relative to the
/// source file), rust-embed's `#[folder = "…"]` and `sqlx::migrate!("…")` (relative to the
/// crate's root), and a build script.
fn compile_time_inputs() -> Vec<(PathBuf, PathBuf)> {
    let root = repository();
    let mut inputs = Vec::new();
    for file in rust_files(&root.join("src")) {
        let text = std::fs::read_to_string(&file).unwrap();
        let named_in = file.strip_prefix(root).unwrap().to_path_buf();
        let source_dir = named_in.parent().unwrap().to_path_buf();
        for (opening, base) in [
            ("include_str!(", &source_dir),
            ("include_bytes!(", &source_dir),
            ("#[folder = ", &PathBuf::new()),
            ("migrate!(", &PathBuf::new()),
        ] {
            for (at, _) in text.match_indices(opening) {
                let argument = &text[at + opening.len()..];
                let path = leading_literal(argument).unwrap_or_else(|| {
                    panic!(
                        "{}: {opening}…) without a plain string literal, which this test cannot follow",
                        named_in.display()
                    )
                });
                inputs.push((normalize(&base.join(path)), named_in.clone()));
            }
        }
    }
    if root.join("build.rs").exists() {
        inputs.push(("build.rs".into(), "Cargo.toml".into()));
    }
    assert!(
        inputs.len() >= 5,
        "the scan found only {inputs:?}: the test no longer sees the crate's inputs"
    );
    inputs
}

/// One `COPY` of a Dockerfile stage: what lands at `target` (an absolute path in the image)
/// and, for a copy from the build context, which path of the repository it is.
struct Copied {
    target: PathBuf,
    from_context: Option<PathBuf>,
}

/// The `COPY`s of the stage that runs `cargo build`, in the image's paths.
fn build_stage_copies(dockerfile: &str) -> Vec<Copied> {
    let joined = dockerfile.replace("\\\n", " ");
    let stages: Vec<&str> = joined.split("\nFROM ").collect();
    let stage = stages
        .iter()
        .find(|stage| stage.contains("RUN cargo build"))
        .expect("deploy/Dockerfile has a stage that runs cargo build");
    let mut workdir = PathBuf::from("/");
    let mut copies = Vec::new();
    for line in stage.lines().map(str::trim) {
        if let Some(dir) = line.strip_prefix("WORKDIR ") {
            workdir = normalize(&workdir.join(dir.trim()));
        }
        let Some(arguments) = line.strip_prefix("COPY ") else {
            continue;
        };
        assert!(
            !arguments.trim_start().starts_with('['),
            "this test reads COPY in its plain form only: {line}"
        );
        let words: Vec<&str> = arguments.split_whitespace().collect();
        let from_stage = words.iter().any(|w| w.starts_with("--from="));
        let paths: Vec<&str> = words.into_iter().filter(|w| !w.starts_with("--")).collect();
        let (destination, sources) = paths.split_last().expect("COPY names a destination");
        let into_folder = destination.ends_with('/') || sources.len() > 1;
        let destination = normalize(&workdir.join(destination));
        for source in sources {
            let source = normalize(Path::new(source));
            let target = if into_folder {
                destination.join(source.file_name().unwrap())
            } else {
                destination.clone()
            };
            copies.push(Copied {
                target,
                from_context: (!from_stage).then_some(source),
            });
        }
    }
    copies
}

/// Whether `.dockerignore`'s `pattern` leaves `path` (relative to the context) out: the
/// pattern names the path or one of its folders; `*` stands for any part of one name, and a
/// leading `**/` for any folders.
fn docker_ignores(pattern: &str, path: &Path) -> bool {
    fn glob(pattern: &str, name: &str) -> bool {
        match pattern.split_once('*') {
            None => pattern == name,
            Some((head, tail)) => {
                name.starts_with(head)
                    && (head.len()..=name.len())
                        .any(|at| name.is_char_boundary(at) && glob(tail, &name[at..]))
            }
        }
    }
    let pattern = pattern.trim_end_matches('/');
    let (anywhere, pattern) = match pattern.strip_prefix("**/") {
        Some(rest) => (true, rest),
        None => (false, pattern),
    };
    let wanted: Vec<&str> = pattern.split('/').collect();
    let names: Vec<&str> = path.iter().map(|n| n.to_str().unwrap()).collect();
    let starts = if anywhere { 0..names.len() } else { 0..1 };
    starts.into_iter().any(|start| {
        names.len() >= start + wanted.len()
            && wanted
                .iter()
                .zip(&names[start..])
                .all(|(pattern, name)| glob(pattern, name))
    })
}

/// The image must build: a file the crate reads at compile time that the build stage does
/// not copy (the golden log the description's example includes was one) fails `cargo build`
/// there. Read from the Dockerfile itself, so no container engine is needed.
#[test]
fn the_image_build_stage_has_every_file_the_crate_reads_while_compiling() {
    let root = repository();
    let dockerfile = std::fs::read_to_string(root.join("deploy/Dockerfile")).unwrap();
    let ignored = std::fs::read_to_string(root.join(".dockerignore")).unwrap();
    let ignored: Vec<&str> = ignored
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .collect();
    assert!(
        ignored.iter().all(|p| !p.starts_with('!')),
        "this test does not read .dockerignore's exceptions (!…)"
    );
    let copies = build_stage_copies(&dockerfile);
    let manifest = copies
        .iter()
        .find(|c| c.from_context.as_deref() == Some(Path::new("Cargo.toml")))
        .expect("the build stage copies Cargo.toml");
    let crate_root = manifest.target.parent().unwrap();

    for (input, named_in) in compile_time_inputs() {
        let in_image = crate_root.join(&input);
        let copy = copies
            .iter()
            .find(|c| in_image.starts_with(&c.target))
            .unwrap_or_else(|| {
                panic!(
                    "deploy/Dockerfile's build stage does not copy {} ({} reads it at compile time)",
                    input.display(),
                    named_in.display()
                )
            });
        // Copied from the build context: the very file, and not left out of the context.
        if let Some(source) = &copy.from_context {
            let from = source.join(in_image.strip_prefix(&copy.target).unwrap());
            assert_eq!(
                from,
                input,
                "deploy/Dockerfile puts another file where {} expects {}",
                named_in.display(),
                input.display()
            );
            assert!(
                root.join(&input).exists(),
                "{} names {}, which does not exist",
                named_in.display(),
                input.display()
            );
            if let Some(pattern) = ignored.iter().find(|p| docker_ignores(p, &input)) {
                panic!(
                    ".dockerignore's {pattern} leaves {} out of the image's build ({} reads it)",
                    input.display(),
                    named_in.display()
                );
            }
        }
    }
}

#[test]
fn dockerignore_patterns_are_read_as_docker_reads_them() {
    let ignores = |pattern, path: &str| docker_ignores(pattern, Path::new(path));
    assert!(ignores("target/", "target/release/kontor"));
    assert!(ignores("web/dist/", "web/dist"));
    assert!(ignores("**/*.log", "web/test-results-server.log"));
    assert!(ignores("**/*.log", "server.log"));
    assert!(!ignores("web/dist/", "web/src/main.tsx"));
    assert!(!ignores("data/", "src/data/x.json"));
    assert!(!ignores("**/*.log", "tests/golden/a.ndjson"));
}

/// Copies the folder `from` to `to`, leaving out the entries of `from` itself named in `skip`.
fn copy_tree(from: &Path, to: &Path, skip: &[&str]) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap().flatten() {
        let name = entry.file_name();
        if skip.iter().any(|s| name == *s) {
            continue;
        }
        let path = entry.path();
        if path.is_dir() {
            copy_tree(&path, &to.join(&name), &[]);
        } else {
            std::fs::copy(&path, to.join(&name)).unwrap();
        }
    }
}

/// Every file of `dir`: its path, modification time and bytes.
fn files_of(dir: &Path) -> BTreeMap<PathBuf, (SystemTime, Vec<u8>)> {
    let mut files = BTreeMap::new();
    for entry in std::fs::read_dir(dir).unwrap().flatten() {
        let path = entry.path();
        if path.is_dir() {
            files.extend(files_of(&path));
        } else {
            let modified = entry.metadata().unwrap().modified().unwrap();
            files.insert(path.clone(), (modified, std::fs::read(&path).unwrap()));
        }
    }
    files
}

/// A scratch folder, removed when dropped (a failing test leaves nothing behind).
struct Scratch(PathBuf);

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// `deploy/serve.sh` runs `deploy/setup.sh` and then `cargo run --release`, which embeds
/// web/dist: when setup rewrote those files, even with the same bytes, cargo compiled the
/// server again (4 min 25 s for a restart with nothing changed). Run again, setup leaves
/// them as they were, modification times included; a change of the sources still rebuilds
/// the page. On a copy of the scripts and the client's sources, with the checkout's
/// installed dependencies.
#[test]
fn setup_run_again_leaves_the_embedded_page_untouched() {
    let root = repository();
    assert!(
        root.join("web/node_modules/.kontor-installed").exists(),
        "the web client's dependencies are not installed: run deploy/setup.sh"
    );
    let scratch = Scratch(std::env::temp_dir().join(format!(
        "kontor-setup-{}-{:?}",
        std::process::id(),
        std::thread::current().id()
    )));
    let copy = &scratch.0;
    let _ = std::fs::remove_dir_all(copy);
    copy_tree(&root.join("deploy"), &copy.join("deploy"), &[]);
    copy_tree(
        &root.join("web"),
        &copy.join("web"),
        &["node_modules", "dist", "test-results", "playwright-report"],
    );
    std::os::unix::fs::symlink(root.join("web/node_modules"), copy.join("web/node_modules"))
        .unwrap();
    let setup = || {
        let output = Command::new("bash")
            .arg(copy.join("deploy/setup.sh"))
            .output()
            .unwrap();
        let said = format!(
            "{}{}",
            String::from_utf8_lossy(&output.stdout),
            String::from_utf8_lossy(&output.stderr)
        );
        assert!(output.status.success(), "deploy/setup.sh failed: {said}");
        said.contains("Building the web client")
    };
    let dist = copy.join("web/dist");

    assert!(setup(), "the first run builds the page");
    let built = files_of(&dist);
    assert!(built.keys().any(|p| p.ends_with("index.html")), "{built:?}");

    assert!(!setup(), "nothing changed: no build");
    assert!(
        files_of(&dist) == built,
        "nothing changed: web/dist as it was"
    );

    // Built again (its record gone), to the same bytes: the files are left alone.
    std::fs::remove_file(copy.join("target/web-dist.stamp")).unwrap();
    assert!(setup(), "without its record the page is built again");
    assert!(
        files_of(&dist) == built,
        "the same bytes built again: web/dist as it was, modification times too"
    );

    // A changed source is built, and only the new files remain.
    let main = copy.join("web/src/main.tsx");
    let mut source = std::fs::read_to_string(&main).unwrap();
    source.push_str("\ndocument.documentElement.dataset.setupTest = 'rebuilt';\n");
    std::fs::write(&main, source).unwrap();
    assert!(setup(), "a changed source is built");
    let rebuilt = files_of(&dist);
    let scripts = |files: &BTreeMap<PathBuf, (SystemTime, Vec<u8>)>| -> Vec<PathBuf> {
        files
            .keys()
            .filter(|p| p.extension().is_some_and(|e| e == "js"))
            // The bundle; the service worker (`sw.js`) is one file that names it.
            .filter(|p| p.parent().is_some_and(|d| d.ends_with("assets")))
            .cloned()
            .collect()
    };
    let (old, new) = (scripts(&built), scripts(&rebuilt));
    assert_eq!(new.len(), 1, "{new:?}");
    assert!(!old.contains(&new[0]), "a new script: {old:?} {new:?}");
    assert!(
        String::from_utf8_lossy(&rebuilt[&new[0]].1).contains("rebuilt"),
        "the new script has the change"
    );
    // The service worker is stamped anew: it caches the new script, not the old one.
    let worker = String::from_utf8_lossy(&rebuilt[&dist.join("sw.js")].1).to_string();
    let name = |p: &PathBuf| p.file_name().unwrap().to_string_lossy().to_string();
    assert!(worker.contains(&name(&new[0])), "{worker}");
    assert!(!worker.contains(&name(&old[0])), "{worker}");
}

/// The compose file's service `name`: its lines, indented below its own.
fn compose_service(compose: &str, name: &str) -> String {
    let mut lines = compose.lines().skip_while(|l| *l != format!("  {name}:"));
    assert!(
        lines.next().is_some(),
        "deploy/compose.yaml has no service {name}"
    );
    lines
        .take_while(|l| l.is_empty() || l.starts_with("    "))
        .map(|l| format!("{l}\n"))
        .collect()
}

/// Read as text (no YAML parser among the dependencies; `podman-compose config` parsed it):
/// the instances trust X-Forwarded-For only from the file's own network, which it declares
/// (not 172.16.0.0/12, every Docker bridge of the host); PostgreSQL counts as ready once it
/// answers over TCP, as Kontor connects; each instance has a health check (`kontor health`,
/// the image has no curl) and nginx waits for both; every image is pinned.
#[test]
fn the_compose_file_trusts_its_own_network_and_waits_for_health() {
    let compose = std::fs::read_to_string(repository().join("deploy/compose.yaml")).unwrap();
    let value = |key: &str| -> Vec<&str> {
        compose
            .lines()
            .filter_map(|l| l.trim().strip_prefix(key))
            .map(str::trim)
            .collect()
    };
    let subnets = value("- subnet:");
    assert_eq!(subnets.len(), 1, "one declared network: {subnets:?}");
    let trusted = value("KONTOR_TRUSTED_PROXIES:");
    assert!(!trusted.is_empty());
    assert!(
        trusted.iter().all(|t| *t == subnets[0]),
        "the instances trust {trusted:?}, the network is {}",
        subnets[0]
    );
    for image in value("image:") {
        let tag = image.rsplit_once(':').map(|(_, tag)| tag);
        assert!(
            tag.is_some_and(|t| t != "latest" && !t.contains('/')),
            "{image} is not pinned"
        );
    }
    let postgres = compose_service(&compose, "postgres");
    assert!(
        postgres.contains(r#""pg_isready", "-h", "127.0.0.1""#),
        "{postgres}"
    );
    for instance in ["kontor-a", "kontor-b"] {
        // Each instance is the anchor x-kontor merged with its own keys.
        assert!(compose_service(&compose, instance).contains("<<: *kontor"));
    }
    let anchor =
        &compose[compose.find("x-kontor: &kontor").unwrap()..compose.find("\nservices:").unwrap()];
    assert!(
        anchor.contains(r#"test: ["CMD", "/usr/local/bin/kontor", "health"]"#),
        "{anchor}"
    );
    let nginx = compose_service(&compose, "nginx");
    for instance in ["kontor-a", "kontor-b"] {
        assert!(
            nginx.contains(&format!(
                "      {instance}:\n        condition: service_healthy\n"
            )),
            "nginx waits for {instance} to be healthy: {nginx}"
        );
    }
}
