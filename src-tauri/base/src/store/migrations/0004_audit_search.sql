-- Full-text index over the audit log, so searching stays fast however long the log grows. The
-- trigram tokenizer matches any substring of three or more characters (as the old LIKE search
-- did); triggers keep it in step with the append-only log and with retention's deletes.
CREATE VIRTUAL TABLE audit_text USING fts5(
    server, subject, decision, step, detail,
    content = 'audit', content_rowid = 'id', tokenize = 'trigram'
);
INSERT INTO audit_text (audit_text) VALUES ('rebuild');

CREATE TRIGGER audit_text_insert AFTER INSERT ON audit BEGIN
    INSERT INTO audit_text (rowid, server, subject, decision, step, detail)
    VALUES (new.id, new.server, new.subject, new.decision, new.step, new.detail);
END;

CREATE TRIGGER audit_text_delete AFTER DELETE ON audit BEGIN
    INSERT INTO audit_text (audit_text, rowid, server, subject, decision, step, detail)
    VALUES ('delete', old.id, old.server, old.subject, old.decision, old.step, old.detail);
END;
