-- Every action inserts into game_events, game_commands and (for its turn mail) mail_outbox.
-- A foreign key makes each such row re-read and key-share-lock its games or users row, and a
-- lock on a users row is itself a write to that row (and to the WAL). These keys guard against
-- nothing that can happen: nothing deletes games or users, and every append inserts through
-- the head row it has just moved. The tables written once per game or per user keep theirs.
ALTER TABLE game_events DROP CONSTRAINT game_events_game_id_fkey;
ALTER TABLE game_commands DROP CONSTRAINT game_commands_game_id_fkey;
ALTER TABLE game_commands DROP CONSTRAINT game_commands_user_id_fkey;
ALTER TABLE mail_outbox DROP CONSTRAINT mail_outbox_user_id_fkey;
