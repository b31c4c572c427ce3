-- The public registration form's submissions, kept as applications (issue 30). A
-- submission is stored here before anything goes to the service; the portal's intake sends
-- it on its own while the form stays under its hourly cap and its NIS is new, and keeps the
-- rest (past the cap, a NIS that exists, a refusal) for finance staff to approve or reject.
-- The parent gets the same answer whichever it is. Portable between SQLite and PostgreSQL.

-- +goose Up
CREATE TABLE registration_applications (
    id            TEXT PRIMARY KEY,
    -- reference is the number the parent is given ("PD-7K3M9QXT").
    reference     TEXT NOT NULL UNIQUE,
    nis           TEXT NOT NULL,
    student_name  TEXT NOT NULL,
    contact_name  TEXT NOT NULL DEFAULT '',
    phone         TEXT NOT NULL DEFAULT '',
    email         TEXT NOT NULL DEFAULT '',
    description   TEXT NOT NULL DEFAULT '',
    template_id   TEXT NOT NULL,
    template_name TEXT NOT NULL,
    -- components are the fees as the form showed them (JSON), total their sum.
    components    TEXT NOT NULL,
    total         BIGINT NOT NULL,
    ip            TEXT NOT NULL DEFAULT '',
    -- new (waiting for the intake), sending (at the service), pending (for staff),
    -- registered, rejected.
    state         TEXT NOT NULL,
    -- hold is why a pending one waits for staff (over_cap, nis_known, refused, ...).
    hold          TEXT NOT NULL DEFAULT '',
    -- sent_at: when it last went to the service; auto: sent without a person.
    sent_at       TIMESTAMP,
    auto          BOOLEAN NOT NULL DEFAULT FALSE,
    bill_id       TEXT NOT NULL DEFAULT '',
    -- decided_by: the staff member who approved or rejected it; reason: a rejection's.
    decided_by    TEXT NOT NULL DEFAULT '',
    decided_at    TIMESTAMP,
    reason        TEXT NOT NULL DEFAULT '',
    created_at    TIMESTAMP NOT NULL,
    updated_at    TIMESTAMP NOT NULL
);

CREATE INDEX registration_applications_state ON registration_applications (state, created_at);
CREATE INDEX registration_applications_auto ON registration_applications (auto, sent_at);
CREATE INDEX registration_applications_created ON registration_applications (created_at);

-- +goose Down
DROP TABLE registration_applications;
