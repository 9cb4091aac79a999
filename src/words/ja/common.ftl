## What every text uses: dates, lists, the parts every mail has.

# 「2026年12月1日（火）21:00（Asia/Tokyo）」
datetime =
    { $year }年{ $month }月{ $day }日（{ $weekday ->
        [1] 月
        [2] 火
        [3] 水
        [4] 木
        [5] 金
        [6] 土
       *[7] 日
    }）{ $time }（{ $zone }）

date = { $year }年{ $month }月{ $day }日

from-now =
    { $unit ->
        [now] 今
        [minutes] { $count }分後
        [hours] { $count }時間後
       *[days] { $count }日後
    }

list-and = { $init }、{ $last }
list-comma = 、

with-opponents = （{ $names }と対戦）

game-unknown = あなたのゲーム

mail-greeting = { $name }さん、こんにちは。
mail-open-game = ゲームを開く

mail-footer = { $reason }<a { $unsubscribe }>{ $what }の配信を停止する</a>（ワンクリック、ログイン不要）か、<a { $unsubscribe_all }>Kontorからのすべてのメールを停止する</a>ことができます。<a { $preferences }>受け取るメールを選ぶ</a>
