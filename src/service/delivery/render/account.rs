//! How the account's own mails read (see `service::notices::account` for what they are; their
//! sentences are the catalogue's `account.ftl`, keyed by the kind's name).

use super::document::{Block, blocks, spans, to_html, to_text};
use super::{Rendered, greeting, when};
use crate::key;
use crate::service::notices::account::AccountMailKind;
use crate::words::catalogue::{Args, paragraphs, say};
use crate::words::language::Language;
use chrono::{DateTime, Utc};
use chrono_tz::Tz;
use serde_json::Value;

/// What an account mail is made from.
pub struct AccountContext<'a> {
    pub recipient_name: &'a str,
    pub data: &'a Value,
    /// `KONTOR_BASE_URL`: the web client's pages for the links.
    pub base_url: &'a str,
    /// The recipient's time zone, in which a link's expiry is written.
    pub zone: Tz,
}

/// The address an account mail goes to when it is not the account's own (a new address).
pub fn recipient_override(data: &Value) -> Option<&str> {
    data.get("to").and_then(Value::as_str)
}

/// Renders an account mail; `Err` says why it cannot be (its link's token is no longer
/// stored: the mail was already sent or gave up).
pub fn render(
    kind: AccountMailKind,
    language: Language,
    ctx: &AccountContext,
) -> Result<Rendered, String> {
    let data = ctx.data;
    let field = |name: &str| data.get(name).and_then(Value::as_str);
    let link = |page: &str| -> Result<String, String> {
        let token = field("token").ok_or_else(|| {
            format!(
                "the {} link's token is no longer stored (only its hash is kept once a mail \
                 was sent or gave up); ask for a new link",
                kind.as_str()
            )
        })?;
        Ok(format!("{}/{page}?token={token}", ctx.base_url))
    };
    let until = field("expires_at")
        .and_then(|s| DateTime::parse_from_rfc3339(s).ok())
        .map(|d| when(d.with_timezone(&Utc), ctx.zone, language))
        .unwrap_or_default();
    let args = Args::new().text("reset_page", format!("{}/reset-password", ctx.base_url));
    let args = match kind {
        AccountMailKind::VerifyEmail => args
            .text("url", link("verify-email")?)
            .text("until", until)
            .flag(
                "change",
                data.get("change").and_then(Value::as_bool) == Some(true),
            ),
        AccountMailKind::PasswordReset => args
            .text("url", link("reset-password")?)
            .text("until", until),
        AccountMailKind::EmailChanged => args
            .text("new", field("new_address").unwrap_or("***"))
            .flag(
                "done",
                data.get("done").and_then(Value::as_bool) == Some(true),
            ),
        AccountMailKind::PasswordChanged => args.choice(
            "how",
            match field("how") {
                Some("reset") => "reset",
                _ => "changed",
            },
        ),
        AccountMailKind::WebhookDisabled => args
            .text("address", field("url").unwrap_or("?"))
            .choice(
                "reason",
                match field("reason") {
                    Some("gone") => "gone",
                    _ => "failing",
                },
            )
            .text("settings", format!("{}/settings", ctx.base_url)),
    };
    let key = |pattern: &str| pattern.replace("{account}", kind.as_str());
    let subject = say(language, &key(key!("account-{account}.subject")), &args);
    let mut content = vec![greeting(ctx.recipient_name, language)];
    content.extend(blocks(
        paragraphs(language, &key(key!("account-{account}.body")), &args),
        &mut |_| Vec::new(),
    ));
    content.push(Block::Footer(
        paragraphs(language, key!("account-footer"), &Args::new())
            .into_iter()
            .flat_map(spans)
            .collect(),
    ));
    Ok(Rendered {
        text: to_text(&content, language),
        html: to_html(&subject, &content, language),
        subject,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::service::notices::MailKind;
    use crate::service::notices::account::{AccountMail, PasswordChange, mask_address};
    use serde_json::json;
    use uuid::Uuid;

    fn render_all(language: Language, zone: Tz) -> Vec<Rendered> {
        let user = Uuid::now_v7();
        let expires = DateTime::parse_from_rfc3339("2026-12-01T15:00:00Z")
            .unwrap()
            .with_timezone(&Utc);
        let mails = [
            AccountMail::verify_email(
                user,
                user,
                "nora@example.org",
                "kontor_ve_abc",
                expires,
                true,
            ),
            AccountMail::password_reset(user, user, "kontor_pw_def", expires),
            AccountMail::email_changed(user, user, "nora@example.org"),
            AccountMail::password_changed(user, user, PasswordChange::Reset),
            AccountMail::webhook_disabled(user, user, user, "https://bot.example/hook", "gone"),
        ];
        mails
            .iter()
            .map(|mail| {
                render(
                    mail.kind,
                    language,
                    &AccountContext {
                        recipient_name: "<anna>",
                        data: &mail.data,
                        base_url: "https://k.example",
                        zone,
                    },
                )
                .unwrap()
            })
            .collect()
    }

    #[test]
    fn every_account_mail_renders_in_english_and_japanese() {
        let en = render_all(Language::En, Tz::UTC);
        let ja = render_all(Language::Ja, Tz::Asia__Tokyo);
        assert!(
            en[0]
                .text
                .contains("https://k.example/verify-email?token=kontor_ve_abc")
        );
        assert!(
            ja[0]
                .text
                .contains("https://k.example/verify-email?token=kontor_ve_abc")
        );
        assert!(
            en[0].text.contains("Tue, 1 Dec 2026 15:00 UTC"),
            "{}",
            en[0].text
        );
        assert!(
            // The expiry in the recipient's zone, named.
            ja[0]
                .text
                .contains("2026年12月2日（水）00:00（Asia/Tokyo）"),
            "{}",
            ja[0].text
        );
        assert!(
            en[1]
                .text
                .contains("https://k.example/reset-password?token=kontor_pw_def")
        );
        assert!(ja[1].subject.contains("パスワード"));
        assert!(en[2].text.contains("n***@example.org"));
        assert!(!en[2].text.contains("nora@"));
        assert!(ja[2].text.contains("n***@example.org"));
        assert!(en[3].text.contains("reset with a link"));
        assert!(ja[3].text.contains("再設定されました"));
        for (en, ja) in en.iter().zip(&ja) {
            assert_ne!(en.subject, ja.subject);
            assert!(en.html.contains("lang=\"en\"") && ja.html.contains("lang=\"ja\""));
            assert!(en.html.contains("&lt;anna&gt;") && !en.html.contains("<anna>"));
            assert!(ja.text.contains("<anna>さん、こんにちは。"));
            assert!(!en.text.contains("nsubscribe"));
        }
    }

    #[test]
    fn a_link_whose_token_was_blanked_is_not_rendered() {
        let data = json!({"expires_at": "2026-12-01T15:00:00Z"});
        let ctx = AccountContext {
            recipient_name: "anna",
            data: &data,
            base_url: "https://k.example",
            zone: Tz::UTC,
        };
        assert!(render(AccountMailKind::PasswordReset, Language::En, &ctx).is_err());
        assert!(render(AccountMailKind::PasswordChanged, Language::En, &ctx).is_ok());
    }

    #[test]
    fn addresses_are_masked() {
        assert_eq!(mask_address("nora@example.org"), "n***@example.org");
        assert_eq!(mask_address("ü@x.jp"), "ü***@x.jp");
        assert_eq!(mask_address("nothing"), "***");
    }

    #[test]
    fn kinds_round_trip() {
        for kind in AccountMailKind::ALL {
            assert_eq!(AccountMailKind::parse(kind.as_str()), Some(kind));
            assert_eq!(
                MailKind::parse(kind.as_str()),
                Some(MailKind::Account(kind))
            );
        }
    }
}
