## The account's own mails: see the English file for what each message and variable is.

account-verify_email =
    .subject = Kontor：メールアドレスの確認
    .body =
        { $change ->
            [yes] Kontor のアカウントのメールアドレスをこのアドレスに変更する依頼がありました。確認すると変更が有効になります。
           *[no] このメールアドレスが Kontor のアカウントのものであることを確認してください。
        }

        <button { $url }>メールアドレスを確認する</button>

        このリンクは { $until } まで、一度だけ使えます。心当たりがない場合は、このメールを無視してください。何も変わりません。

account-password_reset =
    .subject = Kontor：パスワードの再設定
    .body =
        Kontor のアカウントのパスワード再設定が依頼されました。

        <button { $url }>新しいパスワードを設定する</button>

        このリンクは { $until } まで、一度だけ使えます。新しいパスワードを設定すると、すべての端末からログアウトし、アカウントのすべての API トークンが無効になります。心当たりがない場合は、このメールを無視してください。パスワードは変わりません。

account-email_changed =
    .subject =
        { $done ->
            [yes] Kontor：メールアドレスが変更されました
           *[no] Kontor：メールアドレスの変更
        }
    .body =
        { $done ->
            [yes] Kontor のアカウントのメールアドレスは { $new } に変更されました。このアドレスには今後メールは届きません。
           *[no] Kontor のアカウントのメールアドレスを { $new } に変更する依頼がありました。新しいアドレスが確認されると変更が有効になります。
        }

        { $done ->
            [yes] 心当たりがない場合は、あなたのパスワードを知る誰かが変更しました。このサーバーの運営者に連絡してください。
           *[no] { account-not-you }
        }

account-password_changed =
    .subject = Kontor：パスワードが変更されました
    .body =
        { $how ->
            [reset] メールで送られたリンクから Kontor のアカウントのパスワードが再設定されました。すべての端末からログアウトし、すべての API トークンを無効にしました。
           *[changed] Kontor のアカウントのパスワードが変更されました。ほかの端末からはすべてログアウトしました。
        }

        { account-not-you }

account-webhook_disabled =
    .subject = Kontor：Webhook を停止しました
    .body =
        Webhook のエンドポイント { $address } への送信を停止しました。{ $reason ->
            [gone] 受信側が 410 Gone（もう存在しない）と答えたためです。
           *[failing] 配信が最後の再試行まで失敗し続けたためです。
        }

        受信側を直したら、設定の「Webhook」で有効に戻し、配信の記録から再送できます： <a { $settings }>{ $settings }</a>

account-not-you = 心当たりがない場合は、すぐにパスワードを再設定してください： <a { $reset_page }>{ $reset_page }</a>

account-footer = このメールはアカウントに関するお知らせです。通知の設定にかかわらず送信されます。
