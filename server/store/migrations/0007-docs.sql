-- The document surface (spec §4.7; docs/adr/0006-library-and-document-surfaces.md). Documents are
-- team-scoped and unique per (team, slug); versions are append-only and numbered 1..n. Nothing
-- here is ever updated in place except the document row's pointer to its latest version.
--
-- Storage: the latest body is kept in full on the document row, so current reads and
-- appends are O(1) in the history length. Each version row stores either a full snapshot (every
-- 64th version: 1, 65, 129, ...) or a delta against the previous version: the common prefix and
-- suffix lengths in UTF-8 bytes and the changed middle. Payloads are deflate-raw compressed when
-- that makes them smaller (`compressed`). Version n = its snapshot plus at most 63 deltas; the
-- sha256 of every version's body is recorded and checked on reconstruction.

CREATE TABLE documents (
  document_id     TEXT PRIMARY KEY,
  team_id         TEXT NOT NULL,
  slug            TEXT NOT NULL,
  title           TEXT NOT NULL,
  -- The current version's body, UTF-8 bytes exactly as received.
  body            BLOB NOT NULL,
  current_version INTEGER NOT NULL,
  created_at      TEXT NOT NULL,
  updated_at      TEXT NOT NULL,
  UNIQUE (team_id, slug)
) STRICT;

CREATE INDEX documents_by_update ON documents (team_id, updated_at DESC, slug);

CREATE TABLE document_versions (
  document_id            TEXT NOT NULL REFERENCES documents (document_id) ON DELETE CASCADE,
  version_number         INTEGER NOT NULL,
  version_id             TEXT NOT NULL UNIQUE,
  -- 'snapshot': payload is the whole body; 'delta': payload is the middle between
  -- prefix_len bytes kept from the start and suffix_len bytes kept from the end of version n-1.
  kind                   TEXT NOT NULL CHECK (kind IN ('snapshot', 'delta')),
  prefix_len             INTEGER NOT NULL DEFAULT 0,
  suffix_len             INTEGER NOT NULL DEFAULT 0,
  payload                BLOB NOT NULL,
  compressed             INTEGER NOT NULL CHECK (compressed IN (0, 1)),
  body_bytes             INTEGER NOT NULL,
  body_sha256            TEXT NOT NULL,
  source                 TEXT NOT NULL CHECK (source IN ('api', 'template', 'present-link')),
  created_by_did_key     TEXT,
  created_by_did_aw      TEXT,
  created_by_address     TEXT,
  created_by_alias       TEXT,
  certificate_id         TEXT,
  created_by_editor_name TEXT,
  created_at             TEXT NOT NULL,
  PRIMARY KEY (document_id, version_number)
) STRICT;
