//! The container image, built and run: deploy/Dockerfile's `prebuilt` target (the runtime
//! stage every target shares, around a binary built elsewhere) built with podman around this
//! test's own `kontor` binary, and run against the suite's PostgreSQL. It must run as its own
//! user, answer `/readyz`, serve the page, play a whole game through the API, stop cleanly on
//! SIGTERM, and refuse to start without `KONTOR_DATABASE_URL`. And deploy/compose.yaml as
//! `podman-compose config` reads it.
//!
//! podman, runc, the base image `debian:bookworm-slim` (made locally with debootstrap: no
//! container registry is reachable) and podman-compose are test tools that
//! `deploy/setup-tests.sh` installs. The image's build needs Debian's package mirror once (its
//! runtime stage installs CA certificates); that stage is kept in podman's layer cache as
//! `localhost/kontor-runtime-base:cache`, and everything else the test makes is removed.

use crate::bots;
use crate::support::*;
use serde_json::{Value, json};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

const KONTOR: &str = env!("CARGO_BIN_EXE_kontor");

/// The base image deploy/setup-tests.sh makes, as podman names an imported image.
const BASE_IMAGE: &str = "localhost/debian:bookworm-slim";

/// The shared runtime stage, tagged so that podman keeps it (and its `apt-get`) between runs.
const RUNTIME_BASE: &str = "localhost/kontor-runtime-base:cache";

/// The uid the Dockerfile gives the user `kontor`.
const KONTOR_UID: u32 = 10001;

fn repository() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

fn said(output: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    )
}

/// What the test made: a scratch folder (the build's context and podman's configuration),
/// the image, the containers. All removed on drop, so a failing test leaves nothing behind
/// but the cached base images.
struct Podman {
    dir: PathBuf,
    image: String,
    containers: Vec<String>,
}

impl Podman {
    fn new() -> Self {
        let found = Command::new("podman").arg("--version").output();
        assert!(
            found.is_ok_and(|o| o.status.success()),
            "podman is missing: run deploy/setup-tests.sh (it installs podman, runc and debootstrap)"
        );
        let dir = scratch_dir("image");
        std::fs::create_dir_all(&dir).unwrap();
        // Raising rlimits for a container is not permitted on every machine (containers in
        // containers): the containers keep podman's own.
        std::fs::write(
            dir.join("containers.conf"),
            "[containers]\ndefault_ulimits = []\n",
        )
        .unwrap();
        let podman = Self {
            image: format!("localhost/kontor-test:{}", std::process::id()),
            dir,
            containers: Vec::new(),
        };
        let base = podman.run(&["image", "exists", BASE_IMAGE]);
        assert!(
            base.status.success(),
            "the base image {BASE_IMAGE} is missing: run deploy/setup-tests.sh (it makes it with debootstrap)"
        );
        podman
    }

    /// `podman` with the test's configuration and runc.
    fn command(&self) -> Command {
        let mut command = Command::new("podman");
        command
            .env("CONTAINERS_CONF", self.dir.join("containers.conf"))
            .args(["--runtime", "runc"]);
        command
    }

    fn run(&self, args: &[&str]) -> Output {
        self.command()
            .args(args)
            .stdin(Stdio::null())
            .output()
            .unwrap()
    }

    /// Builds the image: the build's context holds the binary (without its debug
    /// information, a sixth of its size) and the entry point, as the Dockerfile's `prebuilt`
    /// target documents.
    fn build(&self) {
        let context = self.dir.join("context");
        std::fs::create_dir_all(context.join("deploy")).unwrap();
        let stripped = Command::new("strip")
            .arg("--strip-debug")
            .arg("-o")
            .arg(context.join("kontor"))
            .arg(KONTOR)
            .output()
            .unwrap();
        assert!(stripped.status.success(), "strip: {}", said(&stripped));
        std::fs::copy(
            repository().join("deploy/docker-entrypoint.sh"),
            context.join("deploy/docker-entrypoint.sh"),
        )
        .unwrap();
        let dockerfile = repository().join("deploy/Dockerfile");
        for (target, tag) in [("runtime-base", RUNTIME_BASE), ("prebuilt", &self.image)] {
            let built = self
                .command()
                .args(["build", "--quiet", "--network=host", "--pull=never"])
                .arg("-f")
                .arg(&dockerfile)
                .args(["--target", target, "-t", tag])
                .arg(&context)
                .stdin(Stdio::null())
                .output()
                .unwrap();
            assert!(
                built.status.success(),
                "podman build --target {target}: {}",
                said(&built)
            );
        }
    }

    /// Starts a container of the image in the foreground (`podman run --rm`, its output in
    /// `<name>.log`): the child ends with the container, with its exit status.
    fn start(&mut self, name: &str, env: &[(&str, String)], volumes: &[String]) -> Child {
        let name = format!("kontor-test-{}-{name}", std::process::id());
        let log = std::fs::File::create(self.dir.join(format!("{name}.log"))).unwrap();
        let mut command = self.command();
        command.args(["run", "--rm", "--network=host", "--name", &name]);
        for (key, value) in env {
            command.arg("-e").arg(format!("{key}={value}"));
        }
        for volume in volumes {
            command.arg("-v").arg(volume);
        }
        let child = command
            .arg(&self.image)
            .stdin(Stdio::null())
            .stdout(log.try_clone().unwrap())
            .stderr(log)
            .spawn()
            .unwrap();
        self.containers.push(name);
        child
    }

    fn log(&self, name: &str) -> String {
        let name = format!("kontor-test-{}-{name}", std::process::id());
        std::fs::read_to_string(self.dir.join(format!("{name}.log"))).unwrap_or_default()
    }

    fn container(&self, name: &str) -> String {
        format!("kontor-test-{}-{name}", std::process::id())
    }
}

impl Drop for Podman {
    fn drop(&mut self) {
        for name in &self.containers {
            let _ = self.run(&["rm", "--force", "--time", "0", name]);
        }
        let _ = self.run(&["rmi", "--force", &self.image]);
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

/// The suite's PostgreSQL listens on a Unix socket only, which the container's user may not
/// open (it is the cluster owner's): a TCP port on loopback passes each connection through to
/// it, byte for byte, for the container on the host's network. On a thread and runtime of its
/// own, so that the test's waiting cannot hold it up (the server needs the database to stop).
fn postgres_over_tcp() -> u16 {
    let socket = pg().socket_dir().join(".s.PGSQL.5432");
    assert!(socket.exists(), "{} is missing", socket.display());
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    listener.set_nonblocking(true).unwrap();
    let port = listener.local_addr().unwrap().port();
    std::thread::spawn(move || {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap();
        runtime.block_on(async move {
            let listener = tokio::net::TcpListener::from_std(listener).unwrap();
            while let Ok((mut tcp, _)) = listener.accept().await {
                let socket = socket.clone();
                tokio::spawn(async move {
                    if let Ok(mut unix) = tokio::net::UnixStream::connect(&socket).await {
                        let _ = tokio::io::copy_bidirectional(&mut tcp, &mut unix).await;
                    }
                });
            }
        });
    });
    port
}

/// The uid a process runs as, from /proc (the container's processes are the host's).
fn uid_of(pid: u32) -> u32 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap();
    let line = status.lines().find(|l| l.starts_with("Uid:")).unwrap();
    line.split_whitespace().nth(1).unwrap().parse().unwrap()
}

/// Waits (bounded) for a child to exit.
fn wait_exit(child: &mut Child, within: Duration) -> Option<std::process::ExitStatus> {
    let deadline = Instant::now() + within;
    loop {
        if let Some(status) = child.try_wait().unwrap() {
            return Some(status);
        }
        if Instant::now() > deadline {
            return None;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

#[tokio::test]
async fn the_image_runs_as_its_user_serves_plays_a_game_and_stops_on_sigterm() {
    let mut podman = Podman::new();
    let started = Instant::now();
    podman.build();
    let built_in = started.elapsed();

    // Without a database URL the entry point refuses at once, saying why.
    let mut bare = podman.start("bare", &[], &[]);
    let status = wait_exit(&mut bare, Duration::from_secs(60)).expect("the bare container ends");
    assert_eq!(status.code(), Some(64), "{}", podman.log("bare"));
    assert!(
        podman
            .log("bare")
            .contains("KONTOR_DATABASE_URL must be set"),
        "{}",
        podman.log("bare")
    );

    // The test's own database (its server in this process stays unused), reached over TCP.
    let mut app = spawn_app().await;
    let postgres = postgres_over_tcp();
    let port = free_port();
    let page = repository().join("web/dist");
    assert!(
        page.join("index.html").exists(),
        "web/dist is not built: run deploy/setup.sh"
    );
    // A debug binary reads the page from its sources' folder (a release binary embeds it):
    // here it is the built page, mounted read-only and named by KONTOR_WEB_DIR.
    let mut server = podman.start(
        "serve",
        &[
            (
                "KONTOR_DATABASE_URL",
                format!("postgres://kontor@127.0.0.1:{postgres}/{}", app.database),
            ),
            ("KONTOR_BIND", format!("127.0.0.1:{port}")),
            ("KONTOR_JWT_SECRET", JWT_SECRET.to_string()),
            ("KONTOR_WEB_DIR", "/srv/kontor-web".to_string()),
        ],
        &[format!("{}:/srv/kontor-web:ro", page.display())],
    );
    let base = format!("http://127.0.0.1:{port}");
    let http = reqwest::Client::new();
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        if let Ok(response) = http.get(format!("{base}/readyz")).send().await
            && response.status() == 200
        {
            break;
        }
        if let Some(status) = server.try_wait().unwrap() {
            panic!("the container exited ({status}):\n{}", podman.log("serve"));
        }
        assert!(
            Instant::now() < deadline,
            "/readyz did not answer 200 within a minute:\n{}",
            podman.log("serve")
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let ready_in = started.elapsed() - built_in;

    // The server is the container's first process, and it is the user kontor's, not root's.
    let inspected = podman.run(&[
        "inspect",
        "--format",
        "{{.State.Pid}} {{.Config.User}}",
        &podman.container("serve"),
    ]);
    let inspected = said(&inspected);
    let (pid, user) = inspected.trim().split_once(' ').expect(&inspected);
    assert_eq!(user, "kontor", "{inspected}");
    let pid: u32 = pid.parse().expect(&inspected);
    assert_eq!(uid_of(pid), KONTOR_UID, "the server runs as kontor");
    let comm = std::fs::read_to_string(format!("/proc/{pid}/comm")).unwrap();
    assert_eq!(comm.trim(), "kontor", "the entry point execs the server");

    // The page, as built.
    let index = http.get(format!("{base}/")).send().await.unwrap();
    assert_eq!(index.status(), 200);
    assert!(
        index.headers()["content-type"]
            .to_str()
            .unwrap()
            .starts_with("text/html")
    );
    assert_eq!(
        index.text().await.unwrap(),
        std::fs::read_to_string(page.join("index.html")).unwrap()
    );

    // A whole game through the container's API.
    app.address = base.clone();
    let players = [
        app.register("anna").await,
        app.register("bert").await,
        app.register("cleo").await,
    ];
    let game = app
        .start_game_with(json!({"kind": "steel-driver"}), &players)
        .await;
    bots::play_to_end(&app, game, &players, bots::steel_driver, 26).await;
    let detail = app
        .get(&format!("/games/{game}"))
        .as_user(&players[0])
        .send()
        .await;
    assert_eq!(detail.assert_ok()["status"], "finished");
    let verification = app
        .get(&format!("/games/{game}/verification"))
        .as_user(&players[0])
        .send()
        .await;
    assert_eq!(verification.assert_ok()["verified"], true);

    // SIGTERM (the image's STOPSIGNAL, what `docker stop` sends) stops it cleanly and soon.
    let stopping = Instant::now();
    let killed = podman.run(&["kill", "--signal", "TERM", &podman.container("serve")]);
    assert!(killed.status.success(), "{}", said(&killed));
    let status = wait_exit(&mut server, Duration::from_secs(30))
        .unwrap_or_else(|| panic!("still running 30 s after SIGTERM:\n{}", podman.log("serve")));
    let stopped_in = stopping.elapsed();
    assert!(
        status.success(),
        "exit status {status} after SIGTERM:\n{}",
        podman.log("serve")
    );
    assert!(
        stopped_in < Duration::from_secs(10),
        "stopped after {stopped_in:?}"
    );
    eprintln!(
        "image built in {built_in:?}, ready in {ready_in:?}, stopped in {stopped_in:?} after SIGTERM"
    );
}

/// deploy/compose.yaml as podman-compose 1.6 reads it (`config`: the file resolved, anchors
/// merged, variables filled in), and its refusal without the required secrets.
#[test]
fn podman_compose_reads_the_compose_file() {
    let root = repository();
    let compose = root.join("target/podman-compose/bin/podman-compose");
    assert!(
        compose.exists(),
        "podman-compose is missing: run deploy/setup-tests.sh"
    );
    let config = |env: &[(&str, &str)]| {
        let mut command = Command::new(&compose);
        command
            .current_dir(root)
            .args(["-f", "deploy/compose.yaml", "config"])
            .env_remove("KONTOR_JWT_SECRET")
            .env_remove("POSTGRES_PASSWORD")
            .env_remove("KONTOR_HOST")
            .env_remove("KONTOR_SUBNET");
        for (key, value) in env {
            command.env(key, value);
        }
        command.output().unwrap()
    };
    let refused = config(&[("KONTOR_JWT_SECRET", "s3cret")]);
    assert!(!refused.status.success());
    assert!(
        said(&refused).contains("set POSTGRES_PASSWORD"),
        "{}",
        said(&refused)
    );

    let read = config(&[
        ("KONTOR_JWT_SECRET", "s3cret"),
        ("POSTGRES_PASSWORD", "pa55"),
        ("KONTOR_HOST", "games.example.net"),
    ]);
    assert!(read.status.success(), "{}", said(&read));
    // As JSON, by the YAML parser podman-compose itself uses.
    let mut to_json = Command::new(root.join("target/podman-compose/bin/python"))
        .args([
            "-c",
            "import json, sys, yaml; json.dump(yaml.safe_load(sys.stdin), sys.stdout)",
        ])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    use std::io::Write;
    to_json
        .stdin
        .take()
        .unwrap()
        .write_all(&read.stdout)
        .unwrap();
    let json = to_json.wait_with_output().unwrap();
    assert!(json.status.success());
    let file: Value = serde_json::from_slice(&json.stdout).unwrap();
    let services = &file["services"];
    let mut names: Vec<&str> = services
        .as_object()
        .unwrap()
        .keys()
        .map(String::as_str)
        .collect();
    names.sort();
    assert_eq!(
        names,
        ["kontor-a", "kontor-b", "mailpit", "nginx", "postgres"]
    );
    for (instance, workers) in [("kontor-a", "true"), ("kontor-b", "false")] {
        let service = &services[instance];
        let env = &service["environment"];
        assert_eq!(env["KONTOR_WORKERS"], workers, "{service}");
        assert_eq!(
            env["KONTOR_DATABASE_URL"],
            "postgres://kontor:pa55@postgres:5432/kontor"
        );
        assert_eq!(env["KONTOR_JWT_SECRET"], "s3cret");
        assert_eq!(env["KONTOR_BASE_URL"], "https://games.example.net");
        assert_eq!(env["KONTOR_TRUSTED_PROXIES"], "10.213.80.0/24");
        assert_eq!(service["build"]["dockerfile"], "deploy/Dockerfile");
        assert_eq!(
            service["healthcheck"]["test"],
            json!(["CMD", "/usr/local/bin/kontor", "health"])
        );
        assert_eq!(
            service["depends_on"]["postgres"]["condition"],
            "service_healthy"
        );
    }
    assert_eq!(
        file["networks"]["default"]["ipam"]["config"][0]["subnet"],
        "10.213.80.0/24"
    );
    assert_eq!(services["nginx"]["network_mode"], "host");
}
