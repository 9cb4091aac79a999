//! Chat mentions by mail (issue 22), through the real SMTP receiver, the real server and
//! PostgreSQL: the mail in the recipient's language with the message quoted as plain text,
//! the `chat_mention` preference (off, digest), and the checks made just before sending (a
//! message hidden by a moderator, a block made since, a channel the recipient cannot read).

use crate::smtp::Received;
use crate::support::*;
use chrono::{TimeZone, Utc};
use kontor::service::notices::mention::{self, MentionNotice};
use serde_json::json;
use uuid::Uuid;

const TEXT: &str = "@bert @carla look <b>here</b> & there";

/// A started Flying Dutchman game of anna, bert and carla, without the start's own mail.
async fn game(f: &MailedApp) -> (Uuid, User, User, User) {
    let app = &f.app;
    let anna = app.register("anna").await;
    let bert = app.register("bert").await;
    let carla = app.register("carla").await;
    let game = app
        .start_game(
            "flying-dutchman",
            json!({}),
            &[anna.clone(), bert.clone(), carla.clone()],
        )
        .await;
    sqlx::query("DELETE FROM mail_outbox WHERE game_id = $1")
        .bind(game)
        .execute(&app.pool)
        .await
        .unwrap();
    (game, anna, bert, carla)
}

async fn seat_of(app: &TestApp, game: Uuid, user: &User) -> i16 {
    sqlx::query_scalar("SELECT seat FROM game_seats WHERE game_id = $1 AND user_id = $2")
        .bind(game)
        .bind(user.id)
        .fetch_one(&app.pool)
        .await
        .unwrap()
}

/// A message of `author` in `channel`, as the chat stores it; its id.
async fn message(app: &TestApp, game: Uuid, channel: &str, author: &User, text: &str) -> i64 {
    let seat = seat_of(app, game, author).await;
    sqlx::query_scalar(
        "INSERT INTO chat_messages
             (game_id, channel, author_id, author_seat, body, at_version, idempotency_key,
              request_hash)
         SELECT $1, $2, $3, $4, $5, g.version, gen_random_uuid()::text, '\\x00'
           FROM games g WHERE g.id = $1
         RETURNING id",
    )
    .bind(game)
    .bind(channel)
    .bind(author.id)
    .bind(seat)
    .bind(text)
    .fetch_one(&app.pool)
    .await
    .unwrap()
}

/// Queues the mentions of message `id` to `recipients`, in a transaction of its own, as the
/// chat service does in its send transaction.
async fn mention(
    app: &TestApp,
    game: Uuid,
    id: i64,
    channel: &str,
    author: &User,
    text: &str,
    recipients: &[&User],
) {
    let mut tx = app.pool.begin().await.unwrap();
    mention::queue(
        &mut tx,
        &MentionNotice {
            game_id: game,
            game_kind: "flying-dutchman".into(),
            message_id: id,
            channel: channel.into(),
            author_name: author.name.clone(),
            author_id: author.id,
            text: text.into(),
            at: Utc.with_ymd_and_hms(2026, 12, 1, 12, 0, 0).unwrap(),
            recipients: recipients.iter().map(|u| u.id).collect(),
        },
    )
    .await
    .unwrap();
    tx.commit().await.unwrap();
}

/// (status, skip_reason) of a user's chat_mention rows, oldest first.
async fn mentions_of(app: &TestApp, user: &User) -> Vec<(String, Option<String>)> {
    sqlx::query_as(
        "SELECT status, skip_reason FROM mail_outbox
          WHERE user_id = $1 AND kind = 'chat_mention' ORDER BY id",
    )
    .bind(user.id)
    .fetch_all(&app.pool)
    .await
    .unwrap()
}

fn to(received: &[Received], user: &User) -> Vec<Received> {
    let address = format!("{}@example.org", user.name);
    received
        .iter()
        .filter(|r| r.to.iter().any(|t| t.contains(&address)))
        .cloned()
        .collect()
}

fn status(s: &str, reason: Option<&str>) -> (String, Option<String>) {
    (s.to_string(), reason.map(str::to_string))
}

#[tokio::test]
async fn a_mention_is_mailed_in_the_recipients_language_with_the_text_as_plain_text() {
    let f = spawn_mailed_app(&[]).await;
    let app = &f.app;
    let (game, anna, bert, carla) = game(&f).await;
    app.put("/me/profile")
        .as_user(&bert)
        .json(&json!({"language": "ja", "time_zone": "Asia/Tokyo"}))
        .send()
        .await
        .assert_ok();
    let id = message(app, game, "table", &anna, TEXT).await;
    // The author among the recipients is left out.
    mention(app, game, id, "table", &anna, TEXT, &[&anna, &bert, &carla]).await;
    // Twice for one message: still one mail each.
    mention(app, game, id, "table", &anna, TEXT, &[&bert, &carla]).await;
    let report = f.notifier.deliver_due(10).await.unwrap();
    assert_eq!((report.claimed, report.sent), (2, 2), "{report:?}");
    let received = f.sink.received();
    assert!(to(&received, &anna).is_empty());

    let en = to(&received, &carla)[0].mail();
    assert_eq!(
        en.header("Subject"),
        Some("anna mentioned you at the table in The Flying Dutchman")
    );
    assert_eq!(en.header("X-Kontor-Notice"), Some("chat_mention"));
    assert!(
        en.header("List-Unsubscribe")
            .is_some_and(|h| h.contains(".chat_mention.")),
        "{:?}",
        en.header("List-Unsubscribe")
    );
    let text = en.text();
    assert!(text.starts_with("Hello carla,"), "{text}");
    assert!(text.contains(&format!("> {TEXT}")), "{text}");
    assert!(text.contains(&format!("/games/{game}")), "{text}");
    assert!(text.contains("Written Tue, 1 Dec 2026 12:00 UTC"), "{text}");
    assert!(text.contains("Unsubscribe from chat mentions"), "{text}");
    // Quoted as text in the HTML part, never as markup.
    let html = en.html();
    assert!(
        html.contains("@bert @carla look &lt;b&gt;here&lt;/b&gt; &amp; there"),
        "{html}"
    );
    assert!(!html.contains("<b>here"), "{html}");

    let ja = to(&received, &bert)[0].mail();
    let text = ja.text();
    assert!(text.starts_with("bertさん"), "{text}");
    assert!(
        text.contains("さまよえるオランダ人")
            && text.contains("テーブルのチャットであなたをメンションしました"),
        "{text}"
    );
    assert!(text.contains(&format!("> {TEXT}")), "{text}");
    // Written at 12:00 UTC: 21:00 in Tokyo, named so.
    assert!(text.contains("21:00（Asia/Tokyo）"), "{text}");
    assert!(
        text.contains("チャットのメンションの配信を停止する"),
        "{text}"
    );
    assert_eq!(mentions_of(app, &bert).await, [status("sent", None)]);

    // A private channel says so.
    let (a, b) = (
        seat_of(app, game, &anna).await,
        seat_of(app, game, &carla).await,
    );
    let channel = format!("private:{}-{}", a.min(b), a.max(b));
    let id = message(app, game, &channel, &anna, "@carla between us").await;
    mention(
        app,
        game,
        id,
        &channel,
        &anna,
        "@carla between us",
        &[&carla],
    )
    .await;
    assert_eq!(f.notifier.deliver_due(10).await.unwrap().sent, 1);
    let private = to(&f.sink.received(), &carla)[1].mail();
    assert_eq!(
        private.header("Subject"),
        Some("anna mentioned you privately in The Flying Dutchman")
    );
    assert!(
        private
            .text()
            .contains("Only the two of you can read this private channel."),
        "{}",
        private.text()
    );
}

#[tokio::test]
async fn the_preference_off_mails_nothing_and_digest_lists_the_mention_in_the_digest() {
    let f = spawn_mailed_app(&[]).await;
    let app = &f.app;
    let (game, anna, bert, carla) = game(&f).await;
    // The default is immediately.
    let prefs = app
        .get("/me/notifications")
        .as_user(&bert)
        .send()
        .await
        .assert_ok()
        .clone();
    assert_eq!(prefs["chat_mention"], "immediately");
    let prefs = app
        .put("/me/notifications")
        .as_user(&bert)
        .json(&json!({"chat_mention": "off"}))
        .send()
        .await
        .assert_ok()
        .clone();
    assert_eq!(prefs["chat_mention"], "off");
    app.put("/me/notifications")
        .as_user(&bert)
        .json(&json!({"chat_mention": "sometimes"}))
        .send()
        .await
        .assert_problem(400, "invalid_body");
    app.put("/me/notifications")
        .as_user(&carla)
        .json(&json!({"chat_mention": "digest"}))
        .send()
        .await
        .assert_ok();

    let id = message(app, game, "table", &anna, TEXT).await;
    mention(app, game, id, "table", &anna, TEXT, &[&bert, &carla]).await;
    // Recorded for the other channels, never mailed.
    assert_eq!(
        mentions_of(app, &bert).await,
        [status("skipped", Some("off"))]
    );
    assert_eq!(mentions_of(app, &carla).await, [status("held", None)]);
    assert_eq!(f.notifier.deliver_due(10).await.unwrap().claimed, 0);

    // A second one, hidden by a moderator before the digest: not listed.
    let hidden = message(app, game, "table", &anna, "@carla something rude").await;
    mention(
        app,
        game,
        hidden,
        "table",
        &anna,
        "@carla something rude",
        &[&carla],
    )
    .await;
    sqlx::query("INSERT INTO chat_hidden (message_id, reason) VALUES ($1, 'abuse')")
        .bind(hidden)
        .execute(&app.pool)
        .await
        .unwrap();

    let morning = Utc.with_ymd_and_hms(2026, 12, 1, 7, 0, 0).unwrap();
    assert_eq!(f.notifier.queue_digests(morning).await.unwrap(), 1);
    let report = f.notifier.deliver_due(10).await.unwrap();
    assert_eq!(report.sent, 1, "{report:?}");
    let digest = f.sink.received()[0].mail();
    // (The list wraps long lines: compared word by word.)
    let text = digest
        .text()
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ");
    assert!(
        text.contains(
            "anna mentioned you at the table in The Flying Dutchman: \u{201c}@bert @carla look \
             <b>here</b> & there\u{201d}"
        ),
        "{text}"
    );
    assert!(!text.contains("something rude"), "{text}");
    assert!(
        digest.html().contains("look &lt;b&gt;here&lt;/b&gt;"),
        "{}",
        digest.html()
    );
    assert_eq!(
        mentions_of(app, &carla).await,
        [status("digested", None), status("skipped", Some("hidden"))]
    );
    assert!(to(&f.sink.received(), &bert).is_empty());
}

#[tokio::test]
async fn a_hidden_message_a_block_since_or_an_unreadable_channel_skips_the_mail() {
    let f = spawn_mailed_app(&[]).await;
    let app = &f.app;
    let (game, anna, bert, carla) = game(&f).await;

    // Hidden by a moderator after it was queued: nobody is mailed its text.
    let id = message(app, game, "table", &anna, "@bert @carla buy my gold").await;
    mention(
        app,
        game,
        id,
        "table",
        &anna,
        "@bert @carla buy my gold",
        &[&bert, &carla],
    )
    .await;
    sqlx::query("INSERT INTO chat_hidden (message_id, reason) VALUES ($1, 'spam')")
        .bind(id)
        .execute(&app.pool)
        .await
        .unwrap();
    let report = f.notifier.deliver_due(10).await.unwrap();
    assert_eq!((report.claimed, report.skipped), (2, 2), "{report:?}");
    assert_eq!(
        mentions_of(app, &bert).await,
        [status("skipped", Some("hidden"))]
    );

    // carla blocks anna after the message: carla gets no mail of it, bert does.
    let id = message(app, game, "table", &anna, TEXT).await;
    mention(app, game, id, "table", &anna, TEXT, &[&bert, &carla]).await;
    app.put("/me/blocks/anna")
        .as_user(&carla)
        .send()
        .await
        .assert_ok();
    let report = f.notifier.deliver_due(10).await.unwrap();
    assert_eq!((report.sent, report.skipped), (1, 1), "{report:?}");
    assert_eq!(
        mentions_of(app, &carla).await,
        [
            status("skipped", Some("hidden")),
            status("skipped", Some("blocked"))
        ]
    );
    assert_eq!(to(&f.sink.received(), &bert).len(), 1);

    // A private channel of anna and bert is never mailed to carla, whoever queued it.
    let (a, b) = (
        seat_of(app, game, &anna).await,
        seat_of(app, game, &bert).await,
    );
    let channel = format!("private:{}-{}", a.min(b), a.max(b));
    let id = message(app, game, &channel, &bert, "@carla secret plan").await;
    mention(
        app,
        game,
        id,
        &channel,
        &bert,
        "@carla secret plan",
        &[&carla],
    )
    .await;
    assert_eq!(f.notifier.deliver_due(10).await.unwrap().skipped, 1);
    assert_eq!(
        mentions_of(app, &carla).await.last(),
        Some(&status("skipped", Some("unreadable")))
    );
    assert!(
        f.sink
            .received()
            .iter()
            .all(|r| !r.data.contains("secret plan"))
    );
}

// ---------------------------------------------------------------------------------------
// Through the chat's send path: the chat service picks the recipients itself.

/// Sends `text` to `channel` as `user` with the `Idempotency-Key` `key`.
async fn say(
    app: &TestApp,
    user: &User,
    game: Uuid,
    channel: &str,
    key: &str,
    text: &str,
) -> Reply {
    app.post(&format!("/games/{game}/chat/{channel}/messages"))
        .as_user(user)
        .key(key)
        .json(&json!({"text": text}))
        .send()
        .await
}

trait Created {
    fn assert_created(&self);
}

impl Created for Reply {
    fn assert_created(&self) {
        assert_eq!(self.status, 201, "{}", self.text);
    }
}

/// A mailed app whose chat lets the tests talk without waiting.
async fn chatty() -> MailedApp {
    spawn_mailed_app(&[("KONTOR_CHAT_BURST", "100")]).await
}

#[tokio::test]
async fn a_sent_message_mails_the_seats_it_mentions_who_may_read_its_channel() {
    let f = chatty().await;
    let app = &f.app;
    let (game, anna, bert, carla) = game(&f).await;
    let spec = app.register("spec").await;
    app.put("/me/profile")
        .as_user(&bert)
        .json(&json!({"language": "ja", "time_zone": "Asia/Tokyo"}))
        .send()
        .await
        .assert_ok();

    // At the table: bert and carla, named in any case and followed by punctuation. Not the
    // author naming herself, not `a@anna` inside a word, not the spectator `spec`.
    let table = "@Bert, look! @CARLA: a@anna @anna @spec";
    let sent = say(app, &anna, game, "table", "k1", table).await;
    assert_eq!(sent.status, 201, "{}", sent.body);
    // A retry replays the message and queues nothing more.
    let retry = say(app, &anna, game, "table", "k1", table).await;
    assert_eq!(retry.status, 200, "{}", retry.body);
    let queued: i64 = sqlx::query_scalar(
        "SELECT count(*) FROM mail_outbox WHERE game_id = $1 AND kind = 'chat_mention'",
    )
    .bind(game)
    .fetch_one(&app.pool)
    .await
    .unwrap();
    assert_eq!(queued, 2);

    // In the private channel of anna and bert: bert only, though carla is named too.
    let (a, b) = (
        seat_of(app, game, &anna).await,
        seat_of(app, game, &bert).await,
    );
    let private = format!("private:{}-{}", a.min(b), a.max(b));
    say(
        app,
        &anna,
        game,
        &private,
        "k2",
        "@bert @carla secret deal?",
    )
    .await
    .assert_created();
    // The spectators' channel is not the seats' while the game runs: nobody.
    say(
        app,
        &spec,
        game,
        "spectators",
        "k3",
        "@anna @bert @spec hello",
    )
    .await
    .assert_created();

    let report = f.notifier.deliver_due(10).await.unwrap();
    assert_eq!((report.sent, report.skipped), (3, 0), "{report:?}");
    let received = f.sink.received();
    assert!(to(&received, &anna).is_empty());
    assert!(to(&received, &spec).is_empty());
    assert!(mentions_of(app, &anna).await.is_empty());
    assert!(mentions_of(app, &spec).await.is_empty());

    let carlas = to(&received, &carla);
    assert_eq!(carlas.len(), 1);
    let mail = carlas[0].mail();
    assert_eq!(
        mail.header("Subject"),
        Some("anna mentioned you at the table in The Flying Dutchman")
    );
    assert!(
        mail.text().contains(&format!("> {table}")),
        "{}",
        mail.text()
    );
    // The private text reaches nobody but bert.
    for other in [&anna, &carla, &spec] {
        assert!(
            to(&received, other)
                .iter()
                .all(|r| !r.data.contains("secret deal"))
        );
    }

    // The two mails to bert are queued by two sends, but the mailer may
    // deliver them in either order; tell them apart by what they quote.
    let berts = to(&received, &bert);
    assert_eq!(berts.len(), 2);
    let (private, public): (Vec<_>, Vec<_>) = berts
        .iter()
        .partition(|r| r.mail().text().contains("secret deal"));
    assert_eq!((private.len(), public.len()), (1, 1));
    let ja = public[0].mail();
    let text = ja.text();
    assert!(text.starts_with("bertさん"), "{text}");
    assert!(
        text.contains("テーブルのチャットであなたをメンションしました"),
        "{text}"
    );
    assert!(text.contains(&format!("> {table}")), "{text}");
    assert!(
        private[0]
            .mail()
            .text()
            .contains("> @bert @carla secret deal?")
    );
}

#[tokio::test]
async fn a_player_blocked_either_way_with_the_author_is_not_mailed() {
    let f = chatty().await;
    let app = &f.app;
    let (game, anna, bert, carla) = game(&f).await;
    // carla blocked anna; anna blocked bert.
    app.put("/me/blocks/anna")
        .as_user(&carla)
        .send()
        .await
        .assert_ok();
    say(app, &anna, game, "table", "k1", "@bert @carla hello")
        .await
        .assert_created();
    assert!(mentions_of(app, &carla).await.is_empty());
    assert_eq!(mentions_of(app, &bert).await, [status("pending", None)]);

    app.put("/me/blocks/bert")
        .as_user(&anna)
        .send()
        .await
        .assert_ok();
    say(app, &anna, game, "table", "k2", "@bert @carla again")
        .await
        .assert_created();
    // Nothing new for either.
    assert!(mentions_of(app, &carla).await.is_empty());
    assert_eq!(mentions_of(app, &bert).await.len(), 1);
    // bert's first mail, queued before anna blocked him, is skipped at delivery.
    let report = f.notifier.deliver_due(10).await.unwrap();
    assert_eq!((report.sent, report.skipped), (0, 1), "{report:?}");
    assert!(f.sink.received().is_empty());
}
