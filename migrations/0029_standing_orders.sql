-- Standing orders and forced moves (issue 37).
--
-- A seat's standing orders are private to it, like notes: one row per game and seat, read by
-- its owner and by the command path (which plays them), never by any other reader. What the
-- server played for the seat or dropped of its orders is kept in `news` (the latest 100), for
-- its owner's page and for the next "your turn" mail (`mailed_through`: the version up to
-- which the news has been in a mail).
CREATE TABLE game_orders (
    game_id        uuid NOT NULL REFERENCES games (id),
    seat           smallint NOT NULL,
    -- The seat's player when the row was written: the my-data export and the account's
    -- deletion find a user's orders by it.
    user_id        uuid NOT NULL,
    -- [{"id": n, "order": {...}}, ...], in the order set: the game's `Order` type.
    orders         jsonb NOT NULL DEFAULT '[]',
    -- The next id an order of this game gets is one more than the greatest ever given.
    next_id        bigint NOT NULL DEFAULT 1,
    news           jsonb NOT NULL DEFAULT '[]',
    mailed_through bigint NOT NULL DEFAULT 0,
    updated_at     timestamptz NOT NULL,
    PRIMARY KEY (game_id, seat)
);
CREATE INDEX game_orders_by_user ON game_orders (user_id);

-- Every change of a game's orders moves this number on (never the version: an order is
-- nobody else's business). An append is written only if it is still the number its command
-- was decided with, so a command never plays with orders changed meanwhile.
ALTER TABLE games ADD COLUMN orders_revision bigint NOT NULL DEFAULT 0;

-- A command the server played on its own: {"kind": "forced", "reason": {...}} or
-- {"kind": "order", "order": {...}}. NULL: a command submitted as such.
ALTER TABLE game_commands ADD COLUMN auto jsonb;
CREATE INDEX game_commands_auto ON game_commands (game_id, first_seq) WHERE auto IS NOT NULL;
