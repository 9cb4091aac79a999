-- Usernames are unique by their confusable skeleton as well as by their caseless key: the
-- skeleton of Unicode TR39 (UTS #39, section 4) maps every character to the one it can be
-- taken for, so `аdmin` (Cyrillic а), `ａdmin` (fullwidth) and `admin` have one skeleton,
-- and a lookalike of a name (or of a deleted account's `deleted-player-N`) is refused.
--
-- The server computes skeletons (src/auth/identity.rs, with the confusables table that SQL
-- does not have), so this column starts empty (NULL, which the unique index lets repeat) and
-- the server fills it for every account right after migrating
-- (store::users::backfill_username_skeletons): the oldest of any accounts that already look
-- alike keeps the skeleton, the younger get one nobody can register (they keep their names
-- and logins; only new names are compared).
ALTER TABLE users ADD COLUMN username_skeleton text;
CREATE UNIQUE INDEX users_username_skeleton_key ON users (username_skeleton);

-- The imports of a user within a day are counted at each import (KONTOR_IMPORTS_PER_DAY).
CREATE INDEX games_imports ON games (created_by, created_at) WHERE sandbox;
