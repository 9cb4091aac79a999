//! Losing the primary database server under load, with a failover manager deciding the
//! promotion: pg_auto_failover (Debian's packages, installed by `deploy/setup-tests.sh`) runs a
//! monitor and two data nodes on loopback, replicating synchronously (its default: one
//! standby in the quorum, so an acknowledged commit is on both nodes). The server is given
//! both nodes' addresses and follows the primary. While games are played (with moves taken
//! back now and then), chat is written and a game's live stream is open, all through the real HTTP API, the primary's keeper and
//! postmaster are killed (`kill -9`) again and again, the killed node's keeper started again
//! (it rejoins as a standby) before the next kill; then a planned switchover. Clients retry a
//! 503 with the same `Idempotency-Key`, which settles the unknown outcome of a commit in flight
//! at the kill. Nothing acknowledged (action, undo or message) may be lost or doubled, no answer may be a 500, and the
//! stream must follow.
//!
//! With `KONTOR_FAILOVER_NODES=3` (run by hand, see docs/operations.md) the formation has three
//! data nodes, and after the kills come two faults one after the other: the primary lost,
//! then the node that took over, before the first is back.

use crate::failover::{Follower, cluster_scratch, initdb, succeed, superuser};
use crate::live::Stream;
use crate::operations::free_port;
use crate::support::*;
use serde_json::{Value, json};
use std::collections::{BTreeMap, HashMap};
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use uuid::Uuid;

/// How many times the primary is killed, unless `KONTOR_FAILOVER_KILLS` says otherwise (ten
/// were run by hand with it: see docs/operations.md). Each kill takes 15–25 s here: the
/// failover, the old primary's rejoining, and some play in between; the whole test about
/// 100 s on 2 shared cores.
const KILLS: usize = 5;

/// Clients playing games at once, each game after game with four players of its own.
const GAMES: usize = 4;
/// One move in this many is taken back by its player at once (the table's `own` undo), so
/// undos are in flight at the kills too.
const UNDO_ONE_IN: usize = 4;

/// The longest any one step may take before the test fails saying which: a failover, a
/// rejoin, a switchover, the formation coming up. Generous: these are sanity bounds, the
/// measured times are printed.
const BOUND: Duration = Duration::from_secs(90);

/// The monitor's health checks shortened, as measured by hand (docs/operations.md): a dead
/// primary is noticed within about 3 s and a standby promoted after 5 s more. Tests only: in
/// production `primary_demote_timeout` must exceed the keeper's network partition timeout.
const MONITOR_SETTINGS: &[(&str, &str)] = &[
    ("pgautofailover.health_check_period", "1000"),
    ("pgautofailover.health_check_timeout", "1000"),
    ("pgautofailover.health_check_max_retries", "1"),
    ("pgautofailover.health_check_retry_delay", "500"),
    ("pgautofailover.node_considered_unhealthy_timeout", "3000"),
    ("pgautofailover.primary_demote_timeout", "5000"),
];

/// Debian's `pg_autoctl` (package pg-auto-failover-cli).
fn pg_autoctl() -> PathBuf {
    let beside = kontor::embedded_pg::find_binaries()
        .unwrap()
        .join("pg_autoctl");
    for candidate in [beside, PathBuf::from("/usr/bin/pg_autoctl")] {
        if candidate.exists() {
            return candidate;
        }
    }
    panic!(
        "pg_autoctl is missing: run deploy/setup-tests.sh (it installs Debian's \
         pg-auto-failover-cli and postgresql-<major>-auto-failover)"
    );
}

/// One data node: its folder, port and, while it runs, its keeper (`pg_autoctl run`, in a
/// process group of its own with the postmaster it starts).
struct Node {
    name: String,
    data: PathBuf,
    port: u16,
    keeper: Mutex<Option<Child>>,
}

/// A pg_auto_failover monitor and its data nodes in a scratch folder. On drop every process
/// group it started is killed and the folder removed, so a failing test leaves nothing behind.
struct Formation {
    dir: PathBuf,
    monitor_data: PathBuf,
    monitor_port: u16,
    monitor: Mutex<Option<Child>>,
    nodes: Vec<Node>,
}

/// What the monitor says of a node.
#[derive(Debug, Clone)]
struct NodeState {
    name: String,
    reported: String,
    assigned: String,
}

fn kill_group(child: &mut Child) {
    // SAFETY: killpg on the process group this test made for its own child (process_group(0)).
    unsafe { libc::killpg(child.id() as libc::pid_t, libc::SIGKILL) };
    let _ = child.wait();
}

impl Drop for Formation {
    fn drop(&mut self) {
        for node in &self.nodes {
            if let Some(mut keeper) = node.keeper.lock().unwrap().take() {
                kill_group(&mut keeper);
            }
        }
        if let Some(mut monitor) = self.monitor.lock().unwrap().take() {
            kill_group(&mut monitor);
        }
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

impl Formation {
    /// `pg_autoctl <args>` as the clusters' user, its state kept in the scratch folder.
    fn autoctl(&self) -> Command {
        let bin = kontor::embedded_pg::find_binaries().unwrap();
        let path = format!("{}:/usr/bin:/bin", bin.display());
        let dir = self.dir.display();
        let env = [
            format!("PATH={path}"),
            format!("PGHOST={dir}"),
            format!("XDG_CONFIG_HOME={dir}/config"),
            format!("XDG_DATA_HOME={dir}/share"),
            format!("XDG_RUNTIME_DIR={dir}/run"),
        ];
        let mut command = match kontor::embedded_pg::cluster_user() {
            Some(user) => {
                let mut c = Command::new("runuser");
                c.args(["-u", user, "--", "env"]);
                c
            }
            None => Command::new("env"),
        };
        command.args(env).arg(pg_autoctl()).current_dir("/");
        command
    }

    /// Starts `pg_autoctl run` on `data` in a process group of its own, its output appended
    /// to `<name>.log`.
    fn run(&self, data: &Path, name: &str) -> Child {
        let log = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(self.dir.join(format!("{name}.log")))
            .unwrap();
        self.autoctl()
            .arg("run")
            .arg("--pgdata")
            .arg(data)
            .stdin(Stdio::null())
            .stdout(log.try_clone().unwrap())
            .stderr(log)
            .process_group(0)
            .spawn()
            .unwrap()
    }

    /// Kills the node `name` as a lost machine would leave it, nothing shut down cleanly: its
    /// keeper (with the postmaster it started, in its process group) and the postmaster. The
    /// node, and when it was killed.
    fn kill(&self, name: &str) -> (&Node, Instant) {
        let node = self.nodes.iter().find(|n| n.name == name).unwrap();
        let postmaster = postmaster_pid(&node.data);
        let mut keeper = node.keeper.lock().unwrap().take().unwrap();
        let killed = Instant::now();
        kill_group(&mut keeper);
        if let Some(pid) = postmaster {
            // SAFETY: kill on the test's own node's postmaster (normally dead already with
            // its keeper's group: then this is ESRCH).
            unsafe { libc::kill(pid, libc::SIGKILL) };
        }
        (node, killed)
    }

    /// The last lines of every log of the formation, for a failure's message.
    fn logs(&self) -> String {
        let mut text = String::new();
        let nodes = self.nodes.iter().map(|n| n.name.as_str());
        for name in std::iter::once("monitor").chain(nodes) {
            let log =
                std::fs::read_to_string(self.dir.join(format!("{name}.log"))).unwrap_or_default();
            let lines: Vec<&str> = log.lines().collect();
            let tail = lines[lines.len().saturating_sub(15)..].join("\n");
            text.push_str(&format!("\n--- {name}.log (end) ---\n{tail}"));
        }
        text
    }

    /// What the monitor says of every node (`pg_autoctl show state --json`), or `None` while
    /// it cannot say.
    fn state(&self) -> Option<Vec<NodeState>> {
        let output = self
            .autoctl()
            .args(["show", "state", "--json", "--pgdata"])
            .arg(&self.monitor_data)
            .output()
            .unwrap();
        if !output.status.success() {
            return None;
        }
        let nodes: Value = serde_json::from_slice(&output.stdout).ok()?;
        let text = |node: &Value, field: &str| node[field].as_str().unwrap_or("").to_string();
        Some(
            nodes
                .as_array()?
                .iter()
                .map(|node| NodeState {
                    name: text(node, "nodename"),
                    reported: text(node, "current_group_state"),
                    assigned: text(node, "assigned_group_state"),
                })
                .collect(),
        )
    }

    /// Waits (bounded, off the runtime's threads) until the monitor's view satisfies `done`;
    /// the view it last saw.
    async fn wait_for(
        self: &Arc<Self>,
        what: &str,
        done: impl Fn(&[NodeState]) -> bool + Send + 'static,
    ) -> Vec<NodeState> {
        let formation = self.clone();
        let what = what.to_string();
        tokio::task::spawn_blocking(move || {
            let deadline = Instant::now() + BOUND;
            loop {
                let state = formation.state();
                if let Some(state) = &state
                    && done(state)
                {
                    return state.clone();
                }
                assert!(
                    Instant::now() < deadline,
                    "{what}: the monitor says {state:?}{}",
                    formation.logs()
                );
                std::thread::sleep(Duration::from_millis(200));
            }
        })
        .await
        .unwrap()
    }
}

/// Whether one node is a settled primary and every other a settled standby: the formation is
/// whole and replicates synchronously again.
fn whole(state: &[NodeState]) -> bool {
    let settled = |role: &str| {
        state
            .iter()
            .filter(|n| n.reported == role && n.assigned == role)
            .count()
    };
    state.len() >= 2 && settled("primary") == 1 && settled("secondary") == state.len() - 1
}

/// How many data nodes the formation has: two (a primary and its synchronous standby) unless
/// `KONTOR_FAILOVER_NODES` says more (three were run by hand: see docs/operations.md).
fn data_nodes() -> usize {
    std::env::var("KONTOR_FAILOVER_NODES")
        .ok()
        .and_then(|v| v.parse().ok())
        .filter(|n| *n >= 2)
        .unwrap_or(2)
}

fn primary_name(state: &[NodeState]) -> String {
    state
        .iter()
        .find(|n| n.reported == "primary" && n.assigned == "primary")
        .map(|n| n.name.clone())
        .unwrap()
}

/// The monitor and the data nodes up ([`data_nodes`]), the formation whole, the role and
/// database `kontor` made.
async fn formation() -> Arc<Formation> {
    let started = Instant::now();
    let dir = cluster_scratch("autofailover");
    let formation = Formation {
        monitor_data: dir.join("monitor"),
        monitor_port: free_port(),
        monitor: Mutex::new(None),
        nodes: (1..=data_nodes())
            .map(|i| Node {
                name: format!("node{i}"),
                data: dir.join(format!("node{i}")),
                port: free_port(),
                keeper: Mutex::new(None),
            })
            .collect(),
        dir,
    };
    // The monitor and the first node made by initdb (the second is a copy of the first, made
    // by pg_autoctl with pg_basebackup).
    // pg_autoctl's own tuning would take a quarter of the memory for shared_buffers.
    let sockets = format!("unix_socket_directories = '{}'", formation.dir.display());
    std::thread::scope(|scope| {
        scope.spawn(|| initdb(&formation.monitor_data, &sockets));
        scope.spawn(|| initdb(&formation.nodes[0].data, &sockets));
    });
    succeed(
        formation
            .autoctl()
            .args(["create", "monitor", "--pgdata"])
            .arg(&formation.monitor_data)
            .args(["--pgport", &formation.monitor_port.to_string()])
            .args(["--hostname", "127.0.0.1", "--auth", "trust", "--no-ssl"]),
        "pg_autoctl create monitor",
    );
    // Else it starts the monitor's PostgreSQL with `-h *`.
    succeed(
        formation
            .autoctl()
            .args(["config", "set", "--pgdata"])
            .arg(&formation.monitor_data)
            .args(["postgresql.listen_addresses", "127.0.0.1"]),
        "pg_autoctl config set",
    );
    *formation.monitor.lock().unwrap() = Some(formation.run(&formation.monitor_data, "monitor"));
    let mut options = superuser(formation.monitor_port);
    options = options.database("pg_auto_failover");
    let deadline = Instant::now() + BOUND;
    let monitor = loop {
        match kontor::store::connect(options.clone(), 1).await {
            Ok(pool) => break pool,
            Err(error) => assert!(
                Instant::now() < deadline,
                "the monitor did not come up: {error}{}",
                formation.logs()
            ),
        }
        tokio::time::sleep(Duration::from_millis(200)).await;
    };
    for (name, value) in MONITOR_SETTINGS {
        sqlx::query(sqlx::AssertSqlSafe(format!(
            "ALTER SYSTEM SET {name} = {value}"
        )))
        .execute(&monitor)
        .await
        .unwrap();
    }
    sqlx::query("SELECT pg_reload_conf()")
        .execute(&monitor)
        .await
        .unwrap();
    monitor.close().await;
    let monitor_url = format!(
        "postgres://autoctl_node@127.0.0.1:{}/pg_auto_failover?sslmode=disable",
        formation.monitor_port
    );
    for node in &formation.nodes {
        succeed(
            formation
                .autoctl()
                .args(["create", "postgres", "--pgdata"])
                .arg(&node.data)
                .args(["--pgport", &node.port.to_string(), "--pghost"])
                .arg(&formation.dir)
                .args(["--listen", "127.0.0.1", "--hostname", "127.0.0.1"])
                .args(["--name", &node.name, "--dbname", "kontor"])
                .args(["--auth", "trust", "--no-ssl", "--monitor", &monitor_url]),
            &format!("pg_autoctl create postgres ({})", node.name),
        );
        *node.keeper.lock().unwrap() = Some(formation.run(&node.data, &node.name));
        if node.name == "node1" {
            // The others are made from the first only once it runs alone.
            let deadline = Instant::now() + BOUND;
            while !formation.state().is_some_and(|state| {
                state
                    .iter()
                    .any(|n| n.reported == "single" && n.assigned == "single")
            }) {
                assert!(
                    Instant::now() < deadline,
                    "the first node did not start{}",
                    formation.logs()
                );
                std::thread::sleep(Duration::from_millis(200));
            }
        }
    }
    let formation = Arc::new(formation);
    let state = formation
        .wait_for("the formation did not come up", whole)
        .await;
    let primary = formation
        .nodes
        .iter()
        .find(|n| n.name == primary_name(&state))
        .unwrap();
    let admin = kontor::store::connect(superuser(primary.port).database("kontor"), 1)
        .await
        .unwrap();
    kontor::store::cluster::ensure_role(&admin, "kontor")
        .await
        .unwrap();
    sqlx::query("ALTER DATABASE kontor OWNER TO kontor")
        .execute(&admin)
        .await
        .unwrap();
    let sync: String = sqlx::query_scalar("SHOW synchronous_standby_names")
        .fetch_one(&admin)
        .await
        .unwrap();
    assert!(
        sync.starts_with("ANY 1"),
        "the standby is in the quorum: {sync}"
    );
    admin.close().await;
    eprintln!(
        "the formation (a monitor and {} data nodes; {sync}) came up in {:?}",
        formation.nodes.len(),
        started.elapsed()
    );
    formation
}

/// What the load's clients saw, shared between them.
#[derive(Default)]
struct Ledger {
    /// Each acknowledged (2xx) write: when the request that got the answer was sent, and
    /// when the answer came.
    acknowledged_at: Mutex<Vec<(Instant, Instant)>>,
    /// 503s answered `database_unavailable`, and `overloaded`, every one with Retry-After.
    unavailable: AtomicUsize,
    overloaded: AtomicUsize,
    /// Requests sent again after a 503 (with the same Idempotency-Key for writes).
    retries: AtomicUsize,
    /// Undos acknowledged (`rewound`).
    undos: AtomicUsize,
}

impl Ledger {
    fn acknowledged(&self, sent: Instant) {
        self.acknowledged_at
            .lock()
            .unwrap()
            .push((sent, Instant::now()));
    }

    /// When the first write sent after `since` was acknowledged (an answer arriving just
    /// after a kill may be for a commit made before it).
    fn first_after(&self, since: Instant) -> Option<Instant> {
        self.acknowledged_at
            .lock()
            .unwrap()
            .iter()
            .filter(|(sent, _)| *sent > since)
            .map(|(_, at)| *at)
            .min()
    }

    fn count(&self) -> usize {
        self.acknowledged_at.lock().unwrap().len()
    }

    /// Whether `reply` is a 503 as promised while there is no primary (with Retry-After),
    /// counting it; fails the test on any other failure (a 500 above all).
    fn unavailable(&self, reply: &Reply, what: &str) -> bool {
        if reply.status != 503 {
            assert!(
                reply.status.is_success(),
                "{what}: only success or 503 with Retry-After, never {}: {}",
                reply.status,
                reply.text
            );
            return false;
        }
        assert!(
            reply.headers.contains_key("retry-after"),
            "{what}: a 503 without Retry-After: {reply:?}"
        );
        match reply.body["code"].as_str() {
            Some("database_unavailable") => self.unavailable.fetch_add(1, Ordering::Relaxed),
            Some("overloaded") => self.overloaded.fetch_add(1, Ordering::Relaxed),
            _ => panic!("{what}: a 503 of another kind: {}", reply.text),
        };
        self.retries.fetch_add(1, Ordering::Relaxed);
        true
    }
}

/// The pause before a client sends again after a 503.
const RETRY: Duration = Duration::from_millis(100);

async fn get_retrying(app: &TestApp, ledger: &Ledger, path: &str, user: &User) -> Value {
    loop {
        let reply = app.get(path).as_user(user).send().await;
        if !ledger.unavailable(&reply, path) {
            return reply.body;
        }
        tokio::time::sleep(RETRY).await;
    }
}

/// An action (or an undo) a client was told was accepted: the version it was played at and
/// the events the answer listed (seq, type, actor), and the seat that played it.
struct Acknowledged {
    at: i64,
    version: i64,
    events: Vec<(i64, String, Option<i64>)>,
    seat: usize,
}

/// The type of the event an undo appends; an undo's answer names its version, not its events.
const REWOUND: &str = "kontor.rewound";

/// Whether an event of the log is the one a client was told of: an undo's answer names no
/// actor, so its rewind is matched by type.
fn same_event(logged: &(String, Option<i64>), told: &(String, Option<i64>)) -> bool {
    logged.0 == told.0 && (told.0 == REWOUND || logged.1 == told.1)
}

/// Sends `request` until it is answered with anything but a 503 (counted in `ledger`, which
/// fails the test on any other failure); the answer, and when the request that got it was
/// sent.
async fn until_answered<F, Fut>(ledger: &Ledger, what: &str, request: F) -> (Reply, Instant)
where
    F: Fn() -> Fut,
    Fut: std::future::Future<Output = Reply>,
{
    loop {
        let sent = Instant::now();
        let reply = request().await;
        if !ledger.unavailable(&reply, what) {
            return (reply, sent);
        }
        tokio::time::sleep(RETRY).await;
    }
}

/// One action by a pending seat of `game` (chosen by the bots), sent again after a 503 with
/// the same key until answered; `None` when the game is over.
async fn act_one(
    app: &TestApp,
    ledger: &Ledger,
    game: Uuid,
    players: &[User],
    rng: &mut kontor::games::GameRng,
) -> Option<Acknowledged> {
    let path = format!("/games/{game}");
    let detail = get_retrying(app, ledger, &path, &players[0]).await;
    if detail["status"] != "active" {
        return None;
    }
    let pending = detail["pending"].as_array().unwrap();
    let seat = pending[rng.index(pending.len())].as_u64().unwrap() as usize;
    let mine = get_retrying(app, ledger, &path, &players[seat]).await;
    let action = crate::bots::flying_dutchman(&mine["legal"], &mine, rng);
    let at = mine["version"].as_i64().unwrap();
    let key = format!("action-at-{at}");
    let (reply, sent) = until_answered(ledger, "an action", || {
        app.act(&players[seat], game)
            .version(at)
            .key(&key)
            .send(&action)
    })
    .await;
    ledger.acknowledged(sent);
    Some(Acknowledged {
        at,
        seat,
        version: reply.body["version"].as_i64().unwrap(),
        events: reply.body["events"]
            .as_array()
            .unwrap()
            .iter()
            .map(|e| {
                (
                    e["seq"].as_i64().unwrap(),
                    e["type"].as_str().unwrap().to_string(),
                    e["actor"].as_i64(),
                )
            })
            .collect(),
    })
}

/// `seat` takes back its move that left the game at `version` (the table's default undo
/// setting, `own`), sent again after a 503 until answered: a retry of an undo that applied
/// gets the same answer. `None` when the rules refuse it (a barrier: something was revealed
/// or drawn; or the server played a move for another seat after it), which changes nothing.
async fn undo_one(
    app: &TestApp,
    ledger: &Ledger,
    game: Uuid,
    players: &[User],
    seat: usize,
    version: i64,
) -> Option<Acknowledged> {
    let path = format!("/games/{game}/undo");
    let body = json!({ "at_version": version });
    let (reply, sent) = loop {
        let sent = Instant::now();
        let reply = app
            .post(&path)
            .as_user(&players[seat])
            .json(&body)
            .send()
            .await;
        // A refusal is an answer too (checked below); anything else as for every write.
        if reply.status == 409 || !ledger.unavailable(&reply, "an undo") {
            break (reply, sent);
        }
        tokio::time::sleep(RETRY).await;
    };
    if reply.status == 409 {
        let code = reply.body["code"].as_str().unwrap_or_default();
        assert!(
            [
                "undo_barrier",
                "undo_nothing_to_undo",
                "undo_disabled",
                "undo_needs_consent"
            ]
            .contains(&code),
            "an undo refused as only the rules refuse it: {}",
            reply.text
        );
        return None;
    }
    ledger.acknowledged(sent);
    ledger.undos.fetch_add(1, Ordering::Relaxed);
    assert_eq!(reply.body["status"], "rewound", "{}", reply.text);
    Some(Acknowledged {
        at: version,
        seat,
        version: reply.body["version"].as_i64().unwrap(),
        events: vec![(version + 1, REWOUND.to_string(), None)],
    })
}

/// A new game of The Flying Dutchman for `players`, made through the API as the load's
/// clients do: each request sent again after a 503 (the creation with the same
/// Idempotency-Key; a seat taken by a request whose answer was lost is found taken).
async fn start_game(app: &TestApp, ledger: &Ledger, players: &[User], key: &str) -> Uuid {
    let create = json!({"kind": "flying-dutchman", "seats": players.len(), "options": {}});
    let (created, sent) = until_answered(ledger, "creating a game", || {
        app.post("/games")
            .as_user(&players[0])
            .key(key)
            .json(&create)
            .send()
    })
    .await;
    ledger.acknowledged(sent);
    let game: Uuid = created.body["id"].as_str().unwrap().parse().unwrap();
    for player in &players[1..] {
        let path = format!("/games/{game}/join");
        let mut retried = false;
        loop {
            let reply = app
                .post(&path)
                .as_user(player)
                .json(&json!({}))
                .send()
                .await;
            let lost_answer = retried
                && reply.status == 409
                && matches!(
                    reply.body["code"].as_str(),
                    Some("already_seated" | "wrong_status")
                );
            if lost_answer || !ledger.unavailable(&reply, "joining a game") {
                break;
            }
            retried = true;
            tokio::time::sleep(RETRY).await;
        }
    }
    game
}

/// One client playing games for `players` until `stop`: a new game whenever one ends. What
/// it was told, game by game.
async fn play(
    app: Arc<TestApp>,
    ledger: Arc<Ledger>,
    stop: Arc<AtomicBool>,
    players: Vec<User>,
    seed: u64,
) -> Vec<(Uuid, Vec<Acknowledged>)> {
    let mut rng = kontor::games::GameRng::from_u64(seed);
    let mut games = Vec::new();
    while !stop.load(Ordering::Relaxed) {
        let key = format!("game-{seed}-{}", games.len());
        let game = start_game(&app, &ledger, &players, &key).await;
        let mut told = Vec::new();
        while !stop.load(Ordering::Relaxed) {
            let Some(acknowledged) = act_one(&app, &ledger, game, &players, &mut rng).await else {
                break;
            };
            // Now and then the player takes the move back, as after a misclick.
            let (seat, version) = (acknowledged.seat, acknowledged.version);
            told.push(acknowledged);
            if rng.index(UNDO_ONE_IN) == 0
                && let Some(undone) = undo_one(&app, &ledger, game, &players, seat, version).await
            {
                told.push(undone);
            }
        }
        games.push((game, told));
    }
    games
}

/// One client writing at the table of `game` until `stop`, each message sent again after a
/// 503 with the same key; the messages it was told were sent (id, text).
async fn chat(
    app: Arc<TestApp>,
    ledger: Arc<Ledger>,
    stop: Arc<AtomicBool>,
    game: Uuid,
    players: Vec<User>,
) -> Vec<(i64, String)> {
    let mut told = Vec::new();
    let path = format!("/games/{game}/chat/table/messages");
    for n in 0.. {
        if stop.load(Ordering::Relaxed) {
            break;
        }
        let text = format!("message {n} of {game}");
        let key = format!("chat-{n}");
        let body = json!({ "text": text });
        let (reply, sent) = until_answered(&ledger, "a chat message", || {
            app.post(&path)
                .as_user(&players[n % players.len()])
                .key(&key)
                .json(&body)
                .send()
        })
        .await;
        ledger.acknowledged(sent);
        assert_eq!(reply.body["text"], text.as_str());
        told.push((reply.body["id"].as_i64().unwrap(), text));
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    told
}

/// Opens a game's live stream from the SSE id `last`, waiting (bounded) while the server
/// answers 503.
async fn open_stream(app: &TestApp, path: &str, token: &str, last: &str) -> Stream {
    let deadline = Instant::now() + BOUND;
    loop {
        match Stream::try_open_from(&app.address, path, token, Some(last)).await {
            Ok(stream) => return stream,
            Err(status) => assert_eq!(status, 503, "a stream is opened or answered 503"),
        }
        assert!(Instant::now() < deadline, "the stream could not be opened");
        tokio::time::sleep(RETRY).await;
    }
}

/// Follows a game's live stream as a client does: resumed from the last SSE id (`V`, or
/// `V.C` once chat came) whenever the server ends it. Publishes the last version seen.
async fn follow(
    app: Arc<TestApp>,
    path: String,
    token: String,
    seen: tokio::sync::watch::Sender<i64>,
    reopened: Arc<AtomicUsize>,
) {
    let mut last = seen.borrow().to_string();
    let mut stream = open_stream(&app, &path, &token, &last).await;
    loop {
        match stream.next(Duration::from_secs(5)).await {
            Some(event) => {
                if let Some(id) = event.raw_id {
                    let version: i64 = id.split('.').next().unwrap().parse().unwrap();
                    seen.send_if_modified(|v| {
                        let newer = version > *v;
                        *v = (*v).max(version);
                        newer
                    });
                    last = id;
                }
            }
            None => {
                reopened.fetch_add(1, Ordering::Relaxed);
                stream = open_stream(&app, &path, &token, &last).await;
            }
        }
    }
}

/// Waits (bounded) until the followed stream has seen `version`.
async fn stream_reaches(seen: &mut tokio::sync::watch::Receiver<i64>, version: i64, what: &str) {
    let reached = tokio::time::timeout(BOUND, seen.wait_for(|v| *v >= version))
        .await
        .is_ok();
    assert!(
        reached,
        "{what}: the stream stayed at {}, short of {version}",
        *seen.borrow()
    );
}

/// Waits (bounded) until a write is acknowledged after `since`; how long after it.
async fn writes_back(ledger: &Ledger, since: Instant, what: &str) -> Duration {
    let deadline = Instant::now() + BOUND;
    loop {
        if let Some(at) = ledger.first_after(since) {
            return at - since;
        }
        assert!(Instant::now() < deadline, "{what}: no write was accepted");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

/// The pid in the first line of `<data>/postmaster.pid`, if it is there.
fn postmaster_pid(data: &Path) -> Option<libc::pid_t> {
    let text = std::fs::read_to_string(data.join("postmaster.pid")).ok()?;
    text.lines().next()?.trim().parse().ok()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn play_survives_killed_primaries_and_a_switchover_with_pg_auto_failover() {
    prepare_process();
    let began = Instant::now();
    let formation = formation().await;
    let url = |port: u16| format!("postgres://kontor@127.0.0.1:{port}/kontor");
    let addresses = formation
        .nodes
        .iter()
        .map(|n| url(n.port))
        .collect::<Vec<_>>()
        .join(",");
    let follower = Follower::start(
        &addresses,
        &formation.dir,
        &[
            ("KONTOR_DB_POOL_SIZE", "8"),
            ("KONTOR_DB_ACQUIRE_TIMEOUT_MS", "1000"),
            // The test's clock stands still: no refill, so a burst as large as the test's chat.
            ("KONTOR_CHAT_BURST", "100000"),
            ("KONTOR_CHAT_DAILY_MAX", "100000"),
            ("KONTOR_REGISTRATIONS_PER_ADDRESS", "100"),
        ],
    )
    .await;
    let status = follower.status.clone();
    let app = follower.app.clone();

    // The load: clients playing games, two writing chat, a live stream followed. The
    // followed game is played by the test itself, one action after each kill, so that the
    // stream is seen to carry what was played after every failover.
    let mut seats = Vec::new();
    for group in 0..GAMES + 2 {
        let mut players = Vec::new();
        for seat in 0..4 {
            players.push(app.register(&format!("p{group}s{seat}")).await);
        }
        seats.push(players);
    }
    let ledger = Arc::new(Ledger::default());
    let stop = Arc::new(AtomicBool::new(false));
    let watchers = seats[GAMES].clone();
    let watched = start_game(&app, &ledger, &watchers, "watched").await;
    let talkers = seats[GAMES + 1].clone();
    let talked = start_game(&app, &ledger, &talkers, "talked").await;
    let mut rng = kontor::games::GameRng::from_u64(7);
    let mut watched_told = vec![
        act_one(&app, &ledger, watched, &watchers, &mut rng)
            .await
            .unwrap(),
    ];
    let (seen_tx, mut seen) = tokio::sync::watch::channel(watched_told[0].version);
    let reopened = Arc::new(AtomicUsize::new(0));
    let following = tokio::spawn(follow(
        app.clone(),
        format!("/games/{watched}/stream"),
        watchers[0].token.clone(),
        seen_tx,
        reopened.clone(),
    ));
    let playing: Vec<_> = (0..GAMES)
        .map(|g| {
            tokio::spawn(play(
                app.clone(),
                ledger.clone(),
                stop.clone(),
                seats[g].clone(),
                100 + g as u64,
            ))
        })
        .collect();
    let chatting: Vec<_> = [(watched, &watchers), (talked, &talkers)]
        .into_iter()
        .map(|(game, players)| {
            tokio::spawn(chat(
                app.clone(),
                ledger.clone(),
                stop.clone(),
                game,
                players.clone(),
            ))
        })
        .collect();
    let some_play = |ledger: Arc<Ledger>, more: usize| async move {
        let target = ledger.count() + more;
        let deadline = Instant::now() + BOUND;
        while ledger.count() < target {
            assert!(Instant::now() < deadline, "the load made no progress");
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    };
    some_play(ledger.clone(), 50).await;

    let kills = std::env::var("KONTOR_FAILOVER_KILLS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(KILLS);
    let mut failovers = Vec::new();
    let mut rejoins = Vec::new();
    for kill in 1..=kills {
        let state = formation
            .wait_for("the formation is whole before a kill", whole)
            .await;
        let primary = primary_name(&state);
        let (node, killed) = formation.kill(&primary);
        let back = writes_back(&ledger, killed, &format!("kill {kill}")).await;
        // The live stream carries what is played after the failover.
        let played = act_one(&app, &ledger, watched, &watchers, &mut rng)
            .await
            .unwrap();
        stream_reaches(
            &mut seen,
            played.version,
            &format!("the stream after kill {kill}"),
        )
        .await;
        watched_told.push(played);
        // The other node took over; the killed one's keeper started again: it rejoins.
        formation
            .wait_for("the standby took over", move |state| {
                state
                    .iter()
                    .any(|n| n.name != primary && n.assigned.ends_with("primary"))
            })
            .await;
        let restarted = Instant::now();
        *node.keeper.lock().unwrap() = Some(formation.run(&node.data, &node.name));
        formation
            .wait_for("the old primary rejoined as a standby", whole)
            .await;
        let rejoined = restarted.elapsed();
        eprintln!(
            "kill {kill} of {}: writes accepted again {back:?} after the kill; \
             the old primary a standby again {rejoined:?} after its keeper restarted",
            node.name
        );
        failovers.push(back);
        rejoins.push(rejoined);
        some_play(ledger.clone(), 20).await;
    }

    // Two faults, one after the other, with three data nodes or more: the primary lost, and
    // the node that took over lost too before the first is back. Every commit was on two
    // nodes, so the last one holds every acknowledged write; it takes writes once a standby
    // is back in the quorum (or at once, with more nodes).
    if formation.nodes.len() >= 3 {
        let state = formation
            .wait_for("the formation is whole before two faults", whole)
            .await;
        let first = primary_name(&state);
        let (first_node, first_killed) = formation.kill(&first);
        let back = writes_back(&ledger, first_killed, "the first of two faults").await;
        let state = formation
            .wait_for("a standby took over", move |state| {
                state
                    .iter()
                    .any(|n| n.name != first && n.assigned == "primary" && n.reported == "primary")
            })
            .await;
        let second = primary_name(&state);
        let (second_node, second_killed) = formation.kill(&second);
        // Give the monitor time to see the second loss before the first node comes back.
        tokio::time::sleep(Duration::from_secs(15)).await;
        let restarted = Instant::now();
        *first_node.keeper.lock().unwrap() =
            Some(formation.run(&first_node.data, &first_node.name));
        let again = writes_back(&ledger, restarted, "after two faults").await;
        let played = act_one(&app, &ledger, watched, &watchers, &mut rng)
            .await
            .unwrap();
        stream_reaches(&mut seen, played.version, "the stream after two faults").await;
        watched_told.push(played);
        *second_node.keeper.lock().unwrap() =
            Some(formation.run(&second_node.data, &second_node.name));
        formation.wait_for("both lost nodes rejoined", whole).await;
        eprintln!(
            "two faults: writes accepted again {back:?} after the first; after the second, \
             {again:?} after the first lost node's keeper restarted ({:?} after the second \
             kill)",
            again + (restarted - second_killed)
        );
        some_play(ledger.clone(), 20).await;
    }

    // A planned switchover under the same load: clients see nothing but retries.
    let state = formation
        .wait_for("the formation is whole before the switchover", whole)
        .await;
    let before = primary_name(&state);
    let switched = Instant::now();
    let output = {
        let mut command = formation.autoctl();
        command
            .args(["perform", "switchover", "--pgdata"])
            .arg(&formation.monitor_data);
        tokio::task::spawn_blocking(move || command.output().unwrap())
            .await
            .unwrap()
    };
    assert!(
        output.status.success(),
        "pg_autoctl perform switchover: {}{}",
        String::from_utf8_lossy(&output.stderr),
        formation.logs()
    );
    let switchover = switched.elapsed();
    let state = formation
        .wait_for("the formation is whole after the switchover", whole)
        .await;
    assert_ne!(primary_name(&state), before, "the primary moved");
    let played = act_one(&app, &ledger, watched, &watchers, &mut rng)
        .await
        .unwrap();
    stream_reaches(&mut seen, played.version, "the stream after the switchover").await;
    watched_told.push(played);
    some_play(ledger.clone(), 20).await;
    let gap = {
        // The longest time without an acknowledged write from the switchover's start.
        let mut during: Vec<Instant> = ledger
            .acknowledged_at
            .lock()
            .unwrap()
            .iter()
            .map(|(_, at)| *at)
            .filter(|at| *at > switched)
            .collect();
        during.sort();
        let mut gap = during.first().map(|t| *t - switched).unwrap_or_default();
        for pair in during.windows(2) {
            gap = gap.max(pair[1] - pair[0]);
        }
        gap
    };
    eprintln!(
        "switchover: pg_autoctl took {switchover:?}; the longest pause between acknowledged \
         writes {gap:?}"
    );

    // The load stopped: every client finishes what it was sending.
    stop.store(true, Ordering::Relaxed);
    let mut played = vec![(watched, watched_told)];
    for task in playing {
        played.extend(task.await.unwrap());
    }
    let mut chatted = Vec::new();
    for (task, game) in chatting.into_iter().zip([watched, talked]) {
        chatted.push((game, task.await.unwrap()));
    }

    // Nothing acknowledged lost, nothing doubled: the log holds exactly what clients were
    // told, read from the primary.
    let pool = &follower.pool;
    let (mut actions, mut lost, mut doubled) = (0, 0, 0);
    for (game, told) in &played {
        let log: Vec<(i64, String, Option<i16>)> = sqlx::query_as(
            "SELECT seq, type, actor FROM game_events WHERE game_id = $1 ORDER BY seq",
        )
        .bind(game)
        .fetch_all(pool)
        .await
        .unwrap();
        let log: BTreeMap<i64, (String, Option<i64>)> = log
            .into_iter()
            .map(|(seq, kind, actor)| (seq, (kind, actor.map(i64::from))))
            .collect();
        let Some(first) = told.first() else { continue };
        let mut expected = BTreeMap::new();
        for (i, action) in told.iter().enumerate() {
            actions += 1;
            if i > 0 {
                assert_eq!(
                    action.at,
                    told[i - 1].version,
                    "game {game}: each action was played at the version the last one left"
                );
            }
            for (seq, kind, actor) in &action.events {
                if !log
                    .get(seq)
                    .is_some_and(|logged| same_event(logged, &(kind.clone(), *actor)))
                {
                    lost += 1;
                    eprintln!("game {game}: acknowledged event {seq} {kind} is not in the log");
                }
                expected.insert(*seq, (kind.clone(), *actor));
            }
            let undone = action
                .events
                .first()
                .is_some_and(|(_, kind, _)| kind == REWOUND);
            if undone && action.version > action.at + 1 {
                // An undo's answer names its version, not its events: after the rewind, the
                // moves the server then played on its own for a seat with a single choice.
                for (seq, event) in log.range(action.at + 2..=action.version) {
                    expected.insert(*seq, event.clone());
                }
            }
        }
        for (seq, event) in log.range(first.at + 1..) {
            if !expected
                .get(seq)
                .is_some_and(|told| same_event(event, told))
            {
                doubled += 1;
                eprintln!("game {game}: event {seq} {event:?} was acknowledged to nobody");
            }
        }
    }
    let (mut messages, mut lost_messages, mut doubled_messages) = (0, 0, 0);
    for (game, told) in &chatted {
        let kept: Vec<(i64, String)> = sqlx::query_as(
            "SELECT id, body FROM chat_messages WHERE game_id = $1 AND channel = 'table'",
        )
        .bind(game)
        .fetch_all(pool)
        .await
        .unwrap();
        let mut count: HashMap<&str, usize> = HashMap::new();
        for (_, body) in &kept {
            *count.entry(body.as_str()).or_default() += 1;
        }
        for message in told {
            messages += 1;
            if !kept.contains(message) {
                lost_messages += 1;
            }
        }
        doubled_messages += count.values().filter(|n| **n > 1).count();
        doubled_messages += kept.len().saturating_sub(told.len());
    }
    eprintln!(
        "{kills} kills and a switchover in {:?}: {} games, {actions} acknowledged actions \
         ({lost} lost, {doubled} events acknowledged to nobody or doubled), {messages} \
         acknowledged chat messages ({lost_messages} lost, {doubled_messages} doubled), {} \
         acknowledged undos; \
         503 database_unavailable {}, overloaded {}, requests sent again {}; the stream \
         reopened {} times; failovers the server saw {}; writes accepted again after each kill \
         {failovers:?}, the old primary rejoined after {rejoins:?}",
        began.elapsed(),
        played.len(),
        ledger.undos.load(Ordering::Relaxed),
        ledger.unavailable.load(Ordering::Relaxed),
        ledger.overloaded.load(Ordering::Relaxed),
        ledger.retries.load(Ordering::Relaxed),
        reopened.load(Ordering::Relaxed),
        status.failovers(),
    );
    assert_eq!(
        (lost, doubled),
        (0, 0),
        "no acknowledged action lost or doubled"
    );
    assert_eq!(
        (lost_messages, doubled_messages),
        (0, 0),
        "no acknowledged chat message lost or doubled"
    );
    assert!(actions > 0 && messages > 0);
    assert!(
        ledger.undos.load(Ordering::Relaxed) > 0,
        "the load took moves back too"
    );
    assert!(
        status.failovers() > kills as u64,
        "the server saw every failover, and the switchover"
    );
    following.abort();

    follower.stop().await;
    eprintln!("the test took {:?}", began.elapsed());
}
