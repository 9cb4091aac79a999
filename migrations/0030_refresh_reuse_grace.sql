-- When a refresh token was spent by a refresh (not by a logout or a login ended). A page left
-- while its refresh was under way never receives the new token, and its next load sends the
-- spent one again: within a short grace after the rotation that is the same browser, not a
-- thief, and it gets a new pair instead of ending the login (see service::accounts::signin).
ALTER TABLE refresh_tokens ADD COLUMN rotated_at timestamptz;
