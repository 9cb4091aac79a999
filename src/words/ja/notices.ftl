## The notices of a game: see the English file for what each message and variable is.

notice-your_turn =
    .label = 「あなたの番」メール
    .subject = { $game }{ $with }であなたの番です
    .body =
        <b>{ $game }</b>{ $with }であなたの番です。

        { $deadline ->
            [none] {""}
           *[other] <b>{ $deadline }</b>（{ $deadline_in }）までに手を指してください。
        }

notice-reminder =
    .label = 期限のリマインダー
    .subject =
        { $deadline ->
            [none] リマインダー: { $game }があなたの手を待っています
           *[other] リマインダー: { $game }の手番の期限は{ $deadline_in }です
        }
    .body =
        <b>{ $game }</b>{ $with }のあなたの手番は、{ $deadline ->
            [none] まだあなたを待っています。
           *[other] <b>{ $deadline }</b>（{ $deadline_in }）が期限です。過ぎるとゲームの時間切れのルールが適用されます。
        }

notice-invited =
    .label = 招待のメール
    .subject =
        { $inviter ->
            [none] { $game }に招待されました
           *[other] { $inviter }さんから{ $game }に招待されました
        }
    .body =
        <b>{ $inviter ->
            [none] ほかのプレイヤー
           *[other] { $inviter }
        }</b>さんから<b>{ $game }</b>に招待されました。

        { $seated ->
            [none] {""}
           *[other] 着席済み: { $seated }
        }

        { $game_page ->
            [yes] 席が空いているうちに、ゲームのページから参加してください。
           *[no] {""}
        }

notice-game_started =
    .label = 「ゲーム開始」メール
    .subject = { $game }{ $with }が始まりました
    .body = <b>{ $game }</b>{ $with }のゲームが始まりました。

notice-game_over =
    .label = ゲーム結果のメール
    .subject =
        { $result ->
            [none] { $game }{ $with }が終わりました
           *[other] { $game }が終わりました: { $result }
        }
    .body =
        <b>{ $game }</b>{ $with }のゲームが終わりました{ $result ->
            [none] 。
           *[other] 。{ $result }。
        }

        { $standings ->
            [yes] 最終順位:
           *[no] {""}
        }

        <standings/>

        { $game_page ->
            [yes] ゲームのシードが公開されました。すべてのシャッフルとダイスを誰でもゲームのページで検証できます。
           *[no] {""}
        }

game-result =
    { $outcome ->
        [won] あなたの勝ちです
        [shared] { $others }と同点で優勝しました
       *[placed] { $winners }の勝ち、あなたは{ $players }人中{ $rank }位でした
    }

standing-line =
    { $rank ->
        [none] {""}
       *[other] { $rank }位{" "}
    }{ $name }{ $you ->
        [yes] （あなた）
       *[no] {""}
    }{ $score ->
        [none] {""}
       *[other] : { $score }
    }

notice-player_left =
    .label = 「プレイヤー退出」メール
    .subject =
        { $player ->
            [none] { $game }からプレイヤーが退出しました
           *[other] { $player }が{ $game }から退出しました
        }
    .body =
        <b>{ $player ->
            [none] ほかのプレイヤー
           *[other] { $player }
        }</b>がアカウントを削除し、<b>{ $game }</b>のゲームから退出しました。

        { $policy ->
            [forfeit] 放棄された席のルールにより、この席は棄権となります。ボットが最後までプレイし、順位は最下位です。ゲームは続きます。
           *[bot] 放棄された席のルールにより、これからはボットがこの席をプレイします。ゲームは続きます。
        }

notice-chat_mention =
    .label = チャットのメンション
    .subject =
        { $author ->
            [none] プレイヤー
           *[other] { $author }
        }が{ $game }の{ $channel ->
            [spectators] 観戦者チャット
            [private] プライベートチャット
           *[table] テーブルのチャット
        }であなたをメンションしました
    .body =
        <b>{ $author ->
            [none] プレイヤー
           *[other] { $author }
        }</b>が<b>{ $game }</b>{ $with }の{ $channel ->
            [spectators] 観戦者チャット
            [private] プライベートチャット
           *[table] テーブルのチャット
        }であなたをメンションしました:

        <quote/>

        { $written ->
            [none] {""}
           *[other] { $written }に書かれました。
        }

        { $channel ->
            [private] プライベートチャットは、その二人の席だけが読めます。
           *[other] {""}
        }

        返信するには、ゲームのページでチャットを開いてください。

mention-line = { $headline }:「{ $excerpt }」

notice-rematch_offered =
    .label = 再戦の申し込み
    .subject =
        { $by ->
            [none] プレイヤー
           *[other] { $by }
        }が{ $game }の再戦を申し込みました
    .body =
        <b>{ $by ->
            [none] プレイヤー
           *[other] { $by }
        }</b>が<b>{ $game }</b>{ $with }の再戦を申し込みました。

        ゲームのページで受けるか断ってください。全員が受けると、席を一つずつずらして新しいゲームが始まります{ $until ->
            [none] {""}
           *[other] （回答の期限: { $until }）
        }。

notice-undo_requested =
    .label = 手の取り消しの求め
    .subject =
        { $by ->
            [none] プレイヤー
           *[other] { $by }
        }が{ $game }で手の取り消しを求めています
    .body =
        <b>{ $by ->
            [none] プレイヤー
           *[other] { $by }
        }</b>が<b>{ $game }</b>{ $with }{ $moves ->
            [none] の直近の手
           *[other] の直近{ $moves }手
        }{ $yours ->
            [none] {""}
            [0] {""}
           *[other] （うち{ $yours }手はあなたの手）
        }の取り消しを求めています。{ $to_version ->
            [none] {""}
           *[other] ゲームはバージョン{ $to_version }の状態に戻ります。
        }

        あなたの同意が必要です。{ $deadline ->
            [none] ゲームのページで同意するか断ってください。
           *[other] <b>{ $deadline }</b>（{ $deadline_in }）までに、ゲームのページで同意するか断ってください。
        }

        一人でも断ると、手は取り消されません。期限までに全員が答えないか、その前に誰かが手を指すと、この求めは失効します。

notice-reason = Kontorの{ $label }の設定が「すぐに送る」(immediately)なので、このメールをお送りしています。
