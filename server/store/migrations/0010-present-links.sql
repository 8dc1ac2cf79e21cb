-- Present links (spec §3, §4.7; docs/adr/0006-library-and-document-surfaces.md): a capability URL
-- that shows one document to anyone holding it, until it expires or is revoked. A read link is
-- pinned to one version; an editable link opens an editor over the latest version.
--
-- The token itself is never stored: the key is its sha256 (hex), so a leaked database (or
-- backup) does not leak live links. The token is shown once, in the mint response; a lost token
-- is replaced by minting another. `link_id` names a link in listings without revealing it.
--
-- The minter's identity is kept so that saves through an editable link are attributed to them.

CREATE TABLE present_links (
  token_sha256        TEXT PRIMARY KEY,
  link_id             TEXT NOT NULL UNIQUE,
  team_id             TEXT NOT NULL,
  document_id         TEXT NOT NULL REFERENCES documents (document_id) ON DELETE CASCADE,
  version_number      INTEGER NOT NULL CHECK (version_number >= 1),
  editable            INTEGER NOT NULL CHECK (editable IN (0, 1)),
  expires_at          TEXT NOT NULL,
  revoked_at          TEXT,
  created_by_did_key  TEXT NOT NULL,
  created_by_did_aw   TEXT,
  created_by_address  TEXT,
  created_by_alias    TEXT NOT NULL,
  certificate_id      TEXT NOT NULL,
  created_at          TEXT NOT NULL
) STRICT;

CREATE INDEX present_links_by_team ON present_links (team_id, created_at DESC);
CREATE INDEX present_links_by_document ON present_links (document_id);
