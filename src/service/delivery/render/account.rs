//! How the account's own mails read (see `service::notices::account` for what they are).

use crate::service::delivery::render::{Block, Rendered, link, t, to_html, to_text, when};
use crate::service::notices::account::AccountMailKind;
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

fn para(text: String) -> Block {
    Block::Para(vec![t(text)])
}

/// A sentence ending in a link, written out.
fn link_line(text: &str, url: String) -> Block {
    Block::Para(vec![t(format!("{text} ")), link(url.clone(), url)])
}

/// Renders an account mail; `Err` says why it cannot be (its link's token is no longer
/// stored: the mail was already sent or gave up).
pub fn render(
    kind: AccountMailKind,
    language: Language,
    ctx: &AccountContext,
) -> Result<Rendered, String> {
    let name = ctx.recipient_name;
    let token = ctx.data.get("token").and_then(Value::as_str);
    let expires = ctx
        .data
        .get("expires_at")
        .and_then(Value::as_str)
        .and_then(|s| DateTime::parse_from_rfc3339(s).ok())
        .map(|d| when(d.with_timezone(&Utc), ctx.zone, language));
    let link = |page: &str| -> Result<String, String> {
        let token = token.ok_or_else(|| {
            format!(
                "the {} link's token is no longer stored (only its hash is kept once a mail \
                 was sent or gave up); ask for a new link",
                kind.as_str()
            )
        })?;
        Ok(format!("{}/{page}?token={token}", ctx.base_url))
    };
    let reset_page = format!("{}/reset-password", ctx.base_url);
    let ja = language == Language::Ja;
    let greeting = if ja {
        format!("{name} さん")
    } else {
        format!("Hello {name},")
    };
    let footer = Block::Footer(vec![t(if ja {
        "このメールはアカウントに関するお知らせです。通知の設定にかかわらず送信されます。"
            .to_string()
    } else {
        "This mail is about your Kontor account itself, so it is sent whatever your \
         notification preferences."
            .to_string()
    })]);
    let (subject, parts) = match kind {
        AccountMailKind::VerifyEmail => {
            let change = ctx.data.get("change").and_then(Value::as_bool) == Some(true);
            let url = link("verify-email")?;
            let until = expires.unwrap_or_default();
            if ja {
                (
                    "Kontor：メールアドレスの確認".to_string(),
                    vec![
                        para(greeting),
                        para(if change {
                            "Kontor のアカウントのメールアドレスをこのアドレスに変更する依頼がありました。確認すると変更が有効になります。".to_string()
                        } else {
                            "このメールアドレスが Kontor のアカウントのものであることを確認してください。".to_string()
                        }),
                        Block::Action {
                            label: "メールアドレスを確認する".into(),
                            url,
                        },
                        para(format!(
                            "このリンクは {until} まで、一度だけ使えます。心当たりがない場合は、このメールを無視してください。何も変わりません。"
                        )),
                        footer,
                    ],
                )
            } else {
                (
                    "Confirm your email address for Kontor".to_string(),
                    vec![
                        para(greeting),
                        para(if change {
                            "you asked to change the email address of your Kontor account to this one. The change takes effect when you confirm it.".to_string()
                        } else {
                            "please confirm that this address belongs to your Kontor account."
                                .to_string()
                        }),
                        Block::Action {
                            label: "Confirm the address".into(),
                            url,
                        },
                        para(format!(
                            "The link works once, until {until}. If you did not ask for this, ignore this mail: nothing changes."
                        )),
                        footer,
                    ],
                )
            }
        }
        AccountMailKind::PasswordReset => {
            let url = link("reset-password")?;
            let until = expires.unwrap_or_default();
            if ja {
                (
                    "Kontor：パスワードの再設定".to_string(),
                    vec![
                        para(greeting),
                        para("Kontor のアカウントのパスワード再設定が依頼されました。".into()),
                        Block::Action {
                            label: "新しいパスワードを設定する".into(),
                            url,
                        },
                        para(format!(
                            "このリンクは {until} まで、一度だけ使えます。新しいパスワードを設定すると、すべての端末からログアウトし、アカウントのすべての API トークンが無効になります。心当たりがない場合は、このメールを無視してください。パスワードは変わりません。"
                        )),
                        footer,
                    ],
                )
            } else {
                (
                    "Reset your Kontor password".to_string(),
                    vec![
                        para(greeting),
                        para("someone (probably you) asked to reset the password of your Kontor account.".into()),
                        Block::Action { label: "Choose a new password".into(), url },
                        para(format!("The link works once, until {until}. A new password signs out every device and revokes every API token of the account. If you did not ask for this, ignore this mail: your password stays as it is.")),
                        footer,
                    ],
                )
            }
        }
        AccountMailKind::EmailChanged => {
            let new = ctx
                .data
                .get("new_address")
                .and_then(Value::as_str)
                .unwrap_or("***");
            let done = ctx.data.get("done").and_then(Value::as_bool) == Some(true);
            if done && ja {
                (
                    "Kontor：メールアドレスが変更されました".to_string(),
                    vec![
                        para(greeting),
                        para(format!(
                            "Kontor のアカウントのメールアドレスは {new} に変更されました。このアドレスには今後メールは届きません。"
                        )),
                        para(
                            "心当たりがない場合は、あなたのパスワードを知る誰かが変更しました。このサーバーの運営者に連絡してください。"
                                .to_string(),
                        ),
                        footer,
                    ],
                )
            } else if done {
                (
                    "The email address of your Kontor account was changed".to_string(),
                    vec![
                        para(greeting),
                        para(format!(
                            "your Kontor account's address is now {new}. This address gets no more mail from it."
                        )),
                        para(
                            "If this was not you, someone who knew your password changed it: ask this server's operator for help."
                                .to_string(),
                        ),
                        footer,
                    ],
                )
            } else if ja {
                (
                    "Kontor：メールアドレスの変更".to_string(),
                    vec![
                        para(greeting),
                        para(format!(
                            "Kontor のアカウントのメールアドレスを {new} に変更する依頼がありました。新しいアドレスが確認されると変更が有効になります。"
                        )),
                        link_line(
                            "心当たりがない場合は、すぐにパスワードを再設定してください：",
                            reset_page,
                        ),
                        footer,
                    ],
                )
            } else {
                (
                    "The email address of your Kontor account is being changed".to_string(),
                    vec![
                        para(greeting),
                        para(format!(
                            "your Kontor account's address is being changed to {new}. The change takes effect once the new address is confirmed."
                        )),
                        link_line("If this was not you, reset your password now:", reset_page),
                        footer,
                    ],
                )
            }
        }
        AccountMailKind::PasswordChanged => {
            let reset = ctx.data.get("how").and_then(Value::as_str) == Some("reset");
            if ja {
                (
                    "Kontor：パスワードが変更されました".to_string(),
                    vec![
                        para(greeting),
                        para(if reset {
                            "メールで送られたリンクから Kontor のアカウントのパスワードが再設定されました。すべての端末からログアウトし、すべての API トークンを無効にしました。".to_string()
                        } else {
                            "Kontor のアカウントのパスワードが変更されました。ほかの端末からはすべてログアウトしました。".to_string()
                        }),
                        link_line(
                            "心当たりがない場合は、すぐにパスワードを再設定してください：",
                            reset_page,
                        ),
                        footer,
                    ],
                )
            } else {
                (
                    "Your Kontor password was changed".to_string(),
                    vec![
                        para(greeting),
                        para(if reset {
                            "the password of your Kontor account was just reset with a link mailed to you. Every device was signed out and every API token revoked.".to_string()
                        } else {
                            "the password of your Kontor account was just changed. Every other device was signed out.".to_string()
                        }),
                        link_line("If this was not you, reset your password now:", reset_page),
                        footer,
                    ],
                )
            }
        }
        AccountMailKind::WebhookDisabled => {
            let url = ctx.data.get("url").and_then(Value::as_str).unwrap_or("?");
            let gone = ctx.data.get("reason").and_then(Value::as_str) == Some("gone");
            let settings = format!("{}/settings", ctx.base_url);
            if ja {
                (
                    "Kontor：Webhook を停止しました".to_string(),
                    vec![
                        para(greeting),
                        para(format!(
                            "Webhook のエンドポイント {url} への送信を停止しました。{}",
                            if gone {
                                "受信側が 410 Gone（もう存在しない）と答えたためです。"
                            } else {
                                "配信が最後の再試行まで失敗し続けたためです。"
                            }
                        )),
                        link_line(
                            "受信側を直したら、設定の「Webhook」で有効に戻し、配信の記録から再送できます：",
                            settings,
                        ),
                        footer,
                    ],
                )
            } else {
                (
                    "Kontor stopped sending to your webhook".to_string(),
                    vec![
                        para(greeting),
                        para(format!(
                            "Kontor switched off your webhook endpoint {url}: {}",
                            if gone {
                                "it answered 410 Gone, which says it is no more."
                            } else {
                                "a delivery kept failing until its last retry."
                            }
                        )),
                        link_line(
                            "Once the receiver works, switch the endpoint on again in Settings → Webhooks; its delivery log can redeliver what it missed:",
                            settings,
                        ),
                        footer,
                    ],
                )
            }
        }
    };
    Ok(Rendered {
        text: to_text(&parts, language),
        html: to_html(&subject, &parts, language),
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
            assert!(ja.text.contains("<anna> さん"));
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
