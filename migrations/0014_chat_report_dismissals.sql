-- Who resolved a chat report, and a moderator's word on it (issue 22): a report is resolved
-- when its message is hidden or a moderator dismisses it. NULL resolved_by: the operator at
-- the command line (or a report resolved before this migration).
ALTER TABLE chat_reports
    ADD COLUMN resolved_by uuid REFERENCES users (id),
    ADD COLUMN resolution_note text;
