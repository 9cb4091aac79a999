## What leaves the server other than mail: see the English file.

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
