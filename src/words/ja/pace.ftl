## What the server played for a player on its own while they were away (forced moves, moves
## their standing orders played, orders dropped), in the turn mail, the "game over" mail and
## the digest's line. Texts are placed as they are: $command and $reason are the messages
## below, already in words.

# The short summary beside the headline: $what (orders, forced, changed), $moves.
pace-summary =
    { $what ->
        [changed] 指示に変更がありました
        [orders] 不在の間にあなたの指示で{ $moves }手を指しました
       *[forced] 強制手{ $moves }手を自動で指しました
    }

# The digest's line of a turn or "game over" notice with news: $headline, $summary.
pace-news-line = { $headline }（{ $summary }）

# The paragraph before the list: $count, $shown (none: the list shows all).
pace-intro = 前回の手番メール以降、サーバーがあなたの代わりに指した手と指示の変更（全{ $count }件{ $shown ->
        [none] {""}
       *[other] 、最新{ $shown }件
    }）:

# One piece of news: $kind (forced, played, dropped), $command, $reason, $version.
pace-line =
    { $kind ->
        [forced] { $command }しかありませんでした: { $reason }（バージョン{ $version }）。
        [played] あなたの指示で指しました: { $command }（バージョン{ $version }）。
       *[dropped] 指示を取り消しました: { $reason }。ご自身で決めてください。
    }

# Why a move was forced or an order dropped: $code, with its parameters; $raw: an unknown code.
pace-reason =
    { $code ->
        [no_cubes] キューブを持っていません
        [cannot_outbid] { $company }の最高入札{ $high_bid }を上回れません（キューブ{ $cubes }個）
        [cannot_build] { $company }が敷設できる路線がありません
        [only_link] { $company }が敷設できる路線は{ $link }だけでした
        [only_path] 大陸横断ルートは一つしか残っていませんでした
        [no_goods] { $company }が取れる商品キューブがありません
        [only_goods] { $company }が取れる商品キューブは{ $city }のものだけでした
        [outbid] { $company }の最高入札が上限の{ $high_bid }に達しました
        [only_pass] 蹄鉄も鍛冶屋カードも使えるコントールカードもありません
        [only_destination] 幽霊船の行き先は{ $to }だけでした
        [no_horseshoes] 蹄鉄を持っていません
        [no_shares] 株券カードを持っていません
        [bids_before] このラウンドであなたより前に{ $count }人が入札しました（指示の上限を超えています）
        [refused] ルールがその手を認めませんでした（{ $message }）
        [undone] 手の取り消しであなたの手が戻されました
        [invalid_now] 手の取り消しの後、指示が合わなくなりました（{ $message }）
        [seat_left] ゲームから退出しました
       *[other] （{ $raw }）
    }

# A command in words: $game (steel-driver or other), $type, its fields; $raw: an unknown type.
pace-command =
    { $game ->
        [steel-driver] { $type ->
            [pass_pawn] ポーンを渡す
            [open_auction] { $company }の競りを{ $bid }で始める
            [bid] { $bid }を入札する
            [pass_bid] 競りをパスする
            [build] { $link }を敷設する
            [pass_build] 敷設をパスする
            [choose_path] 大陸横断ルートを選ぶ
            [take_goods] { $city }の商品キューブを取る
            [pass_delivery] 商品キューブを取らない
           *[other] { $raw }
        }
       *[other] { $type ->
            [pass] パスする
            [use_kontor] コントールを使う
            [use_smith] 鍛冶屋を使う
            [bid] 封印入札をする
            [return_shares] 株券カードを2枚戻す
            [move] 幽霊船を{ $to }へ動かす
            [declare] { $to }を宣言する
            [make_offer] { $to }を提案する
            [accept_offer] 提案を受ける
            [drop_out] 延長戦から降りる
            [take_income] 収入を得る（{ $colour }）
            [decline_income] 収入を得ない
           *[other] { $raw }
        }
    }
