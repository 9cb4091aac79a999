## The daily digest: see the English file for what each message and variable is.

digest =
    .subject =
        { $waiting ->
            [0] Kontorのダイジェスト（{ $date }）
           *[other] Kontor: { $waiting }件のゲームがあなたの手を待っています
        }
    .body =
        { $waiting ->
            [0] あなたの手を待っているゲームはありません。
           *[other] 次の{ $waiting }件のゲームがあなたの手を待っています:
        }

        <waiting/>

        { $news ->
            [yes] 前回のダイジェストから:
           *[no] {""}
        }

        <news/>
    .reason = Kontorの通知設定の一部が「ダイジェスト」(digest)なので、このダイジェストをお送りしています。
    .what = 日次ダイジェスト

digest-waiting =
    <b>{ $game }</b>{ $opponents ->
        [none] {""}
       *[other] （{ $opponents }と対戦）
    }{ $since ->
        [none] {""}
       *[other] 、{ $since }からあなたの番
    }: <a { $url }>{ $url }</a>

digest-news =
    { $headline }{ $url ->
        [none] {""}
       *[other] : <a { $url }>{ $url }</a>
    }
