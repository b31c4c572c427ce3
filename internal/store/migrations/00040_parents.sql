-- Parents in the loop (issue 28). The portal keeps each student's parents' contacts itself
-- (the service knows only the student's phone and e-mail): a name, a WhatsApp number and
-- an e-mail, with an opt-out per channel. An empty whatsapp means the phone the service
-- holds for the student, which schools fill with the parent's number.
--
-- parent_links is each student's link to the parent page (/p/{token}): only a hash of
-- the token is kept. The token is a keyed hash of the NIS and generation, so the portal
-- can put it in a message again; renewing moves generation on and the old link dies.

-- +goose Up
CREATE TABLE parent_contacts (
    nis              TEXT PRIMARY KEY,
    name             TEXT NOT NULL DEFAULT '',
    whatsapp         TEXT NOT NULL DEFAULT '',     -- normalised (08…/+62…); '' : the student's phone
    email            TEXT NOT NULL DEFAULT '',
    whatsapp_opt_out BOOLEAN NOT NULL DEFAULT FALSE,
    email_opt_out    BOOLEAN NOT NULL DEFAULT FALSE,
    updated_at       TIMESTAMP NOT NULL,
    updated_by       TEXT NOT NULL DEFAULT ''
);

CREATE TABLE parent_links (
    nis        TEXT PRIMARY KEY,
    token_hash TEXT NOT NULL,       -- hex SHA-256 of the token
    generation BIGINT NOT NULL,     -- moves on at each renewal
    created_at TIMESTAMP NOT NULL,
    created_by TEXT NOT NULL DEFAULT ''
);

CREATE UNIQUE INDEX parent_links_token_hash ON parent_links (token_hash);

-- +goose Down
DROP TABLE parent_links;
DROP TABLE parent_contacts;
