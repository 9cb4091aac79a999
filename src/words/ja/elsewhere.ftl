## What leaves the server other than mail: see the English file.

push-test = この端末に通知が届きます。
push-open-game = Kontorでゲームを開く

webhook-test = Kontorからのテストイベントです。このWebhookは動いています。

calendar-name = Kontor — あなたの手番
calendar-summary =
    { $opponents ->
        [none] あなたの手番: { $game }
       *[other] あなたの手番: { $game }（{ $opponents }と対戦）
    }
calendar-description =
    { $deadline ->
        [yes] この時刻にこの手の持ち時間が尽き、その後はゲームの時間設定に従って自動で手が指されます。
       *[no] このゲームには時間制限がありません。この日からあなたの手番です。
    }
    ゲームを開く: { $link }

## Refusals: see the English file.

refusal-webhook-url =
    このURLは使えません: { $reason ->
        [insecure_url] https:// のURLだけが使えます
        [blocked_address] { $detail } は公開されたインターネットのアドレスではありません
        [unresolvable] ホスト名を解決できませんでした（{ $detail }）
       *[invalid_url] 使えるURLではありません（{ $detail }）
    }
refusal-webhook-event-type = { $event_type } はイベントの種類ではありません。次のいずれかを使ってください: { $types }
refusal-too-many-test-sends = このアカウントはこの1時間のテスト送信(プッシュ通知とWebhookの合計)を使い切りました。{ $minutes }分後にもう一度お試しください
refusal-too-many-webhooks = 1つのアカウントが持てるWebhookのエンドポイントは{ $max }個までです。先にどれかを削除してください
refusal-webhook-not-found = このIDのWebhookのエンドポイントまたは配信はありません
refusal-delivery-under-way = この配信はまだ試行中です。成功か失敗が決まってから再送してください

refusal-push-endpoint =
    { $problem ->
        [too_long] エンドポイントが2048文字を超えています
        [not_absolute] エンドポイントが絶対URLではありません
        [not_https] エンドポイントは https:// のURLでなければなりません
        [credentials] エンドポイントにユーザー名やパスワードを含めることはできません
        [no_host] エンドポイントにホストがありません
       *[not_public] エンドポイントはプッシュサービスの公開されたホストでなければなりません
    }
refusal-push-p256dh = keys.p256dh がP-256の公開鍵ではありません（65バイト、base64url）
refusal-push-auth = keys.auth が base64url の16バイトではありません
refusal-too-many-push-subscriptions = プッシュ通知の登録はすでに{ $max }件あります。使わなくなったものを先に削除してください
refusal-push-subscription-not-found = このIDのプッシュ通知の登録はありません

## Refusals of undo: see the English file.

refusal-undo-not-own-moves = バージョン{ $to_version }より後に動いたのはほかのプレイヤーだけです。取り消せるのは自分の手（と、同意があればその後のほかの人の手）です
refusal-undo-declined = 前回の取り消しの依頼は断られ（バージョン{ $declined_at }）、その後だれも動いていません。次の手が指されてから、もう一度頼んでください
refusal-undo-target =
    { $why ->
        [undo_event] バージョン{ $version }は取り消しそのものの記録（依頼・回答・巻き戻し）で、手ではありません。戻せるのは手の終わり（たとえばバージョン{ $before }）です
        [undone] バージョン{ $version }は前の取り消しで取り消された手です。戻せるのは有効な手の終わり（たとえばバージョン{ $before }）です
        [nothing_after] バージョン{ $version }より後には何も指されていないので、そこへ戻して取り消すものはありません
       *[mid_move] バージョン{ $version }は手の途中です。戻せるのは手の終わり（たとえばバージョン{ $before }）です
    }
