## What every text uses: dates, lists, the parts every mail has.

# A moment in the reader's time zone, which is named: "Tue, 1 Dec 2026 21:00 Asia/Tokyo".
# $weekday 1 (Monday) to 7, $month 1 to 12, $time "21:00", $zone the zone's name.
datetime =
    { $weekday ->
        [1] Mon
        [2] Tue
        [3] Wed
        [4] Thu
        [5] Fri
        [6] Sat
       *[7] Sun
    }, { $day } { $month ->
        [1] Jan
        [2] Feb
        [3] Mar
        [4] Apr
        [5] May
        [6] Jun
        [7] Jul
        [8] Aug
        [9] Sep
        [10] Oct
        [11] Nov
       *[12] Dec
    } { $year } { $time } { $zone }

# A day: "2026-12-01".
date =
    { $year }-{ $month ->
        [1] 01
        [2] 02
        [3] 03
        [4] 04
        [5] 05
        [6] 06
        [7] 07
        [8] 08
        [9] 09
       *[other] { $month }
    }-{ $day ->
        [1] 01
        [2] 02
        [3] 03
        [4] 04
        [5] 05
        [6] 06
        [7] 07
        [8] 08
        [9] 09
       *[other] { $day }
    }

# How far off a moment is: $unit now, minutes, hours or days.
from-now =
    { $unit ->
        [now] now
        [minutes] in { $count } { $count ->
            [one] minute
           *[other] minutes
        }
        [hours] in { $count } hours
       *[days] in { $count } days
    }

# A list of names: "a, b and c" is list-and with $init "a, b" (joined by list-comma).
list-and = { $init } and { $last }
list-comma = {", "}

# The others at the table, after the game's name.
with-opponents = {" "}with { $names }

# A game whose kind this server does not know by name.
game-unknown = your game

mail-greeting = Hello { $name },
mail-open-game = Open the game

# The small print of a mail: why it came ($reason), what $what is, and the one-click links.
mail-footer = { $reason } <a { $unsubscribe }>Unsubscribe from { $what }</a> (one click, no login needed) or <a { $unsubscribe_all }>from all mail from Kontor</a>. <a { $preferences }>Choose what mail you get</a>.
