-- The state cache and the stored answers are opaque to SQL: keep them as JSON text, which
-- costs nothing to parse on the way in or to print on the way out (jsonb does both on every
-- action), and keep rows of up to a page inline and uncompressed.
ALTER TABLE game_state ALTER COLUMN state TYPE text USING state::text;
ALTER TABLE game_state SET (toast_tuple_target = 8160);
ALTER TABLE game_commands ALTER COLUMN response TYPE text USING response::text;
ALTER TABLE game_commands SET (toast_tuple_target = 8160);
