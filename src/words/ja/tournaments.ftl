## The tournament notices: see the English file for what each message and variable is.

notice-tournament_started =
    .label = 「トーナメント開始」メール
    .subject = トーナメント「{ $name }」（{ $game }）が始まりました
    .body =
        トーナメント「<b>{ $name }</b>」が始まりました（<b>{ $game }</b>、全{ $rounds }ラウンド、{ $players }人参加）。

        第1ラウンドのあなたのゲーム: <b>{ $game }</b>{ $with }。

        { tournament-round-ends }

        { tournament-page }

notice-tournament_round =
    .label = 「次のラウンド」メール
    .subject = トーナメント「{ $name }」（{ $game }）の第{ $round }ラウンドの卓が決まりました
    .body =
        トーナメント「<b>{ $name }</b>」の第{ $round }ラウンド（全{ $rounds }ラウンド）の卓が決まりました。あなたのゲーム: <b>{ $game }</b>{ $with }。

        { $standing ->
            [yes] 第{ $previous_round }ラウンドを終えて、あなたは{ $players }人中{ $position }位（{ $points }点）です。
           *[no] {""}
        }

        { tournament-round-ends }

        { tournament-page }

notice-tournament_finished =
    .label = トーナメントの最終順位
    .subject =
        { $placed ->
            [yes] トーナメント「{ $name }」（{ $game }）が終わりました: { $players }人中{ $position }位
           *[no] トーナメント「{ $name }」（{ $game }）が終わりました
        }
    .body =
        トーナメント「<b>{ $name }</b>」が全{ $rounds }ラウンドを終えました。

        { $standing ->
            [yes] あなたの最終順位は{ $players }人中<b>{ $position }位</b>（{ $points }点）です。
           *[no] {""}
        }

        { $withdrawn ->
            [yes] あなたは途中で棄権しました。順位は棄権までのラウンドの得点によります。
           *[no] {""}
        }

        { $podium ->
            [yes] 最終順位の上位:
           *[no] {""}
        }

        <podium/>

        { tournament-page }

notice-tournament_cancelled =
    .label = 「トーナメント中止」メール
    .subject = トーナメント「{ $name }」（{ $game }）は参加者が足りず中止になりました
    .body =
        トーナメント「<b>{ $name }</b>」（<b>{ $game }</b>）は中止になりました。参加受付の締切までに{ $players }人が参加しましたが、1卓には{ $seats }人が必要です。ゲームは作られていません。

        { $organiser ->
            [yes] あなたが主催したトーナメントです。参加受付の期間を長くして新しく開くと、より多くのプレイヤーが集まるかもしれません。
           *[no] {""}
        }

        { tournament-page }

podium-line = { $place }. { $name } — { $points }点

tournament-round-ends =
    { $round_deadline ->
        [none] {""}
       *[other] このラウンドは、すべてのゲームが終わるか、<b>{ $round_deadline }</b>（{ $round_deadline_in }）に終わります。その時点で続いているゲームは続きますが、得点には数えません。
    }

tournament-page =
    { $tournament_link ->
        [none] {""}
       *[other] 順位表とすべての卓: <a { $tournament_link }>トーナメントのページ</a>
    }
