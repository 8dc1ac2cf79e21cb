-- Document theme and assets (spec §4.7; docs/adr/0006-library-and-document-surfaces.md).
--
-- Assets are team-owned and never deleted (their public URLs are immutable). Images arrive whole
-- (base64 in JSON, at most 256 KiB) and are ready at once. Videos start as `pending_upload` with
-- a one-time upload token (only its SHA-256 is kept; cleared once used) and become `ready` when
-- the bytes are PUT to the node's own upload URL; no third-party host is involved.
CREATE TABLE docs_assets (
  asset_id             TEXT PRIMARY KEY,
  team_id              TEXT NOT NULL,
  kind                 TEXT NOT NULL CHECK (kind IN ('image', 'video')),
  content_type         TEXT NOT NULL,
  status               TEXT NOT NULL CHECK (status IN ('pending_upload', 'ready')),
  data                 BLOB,
  bytes                INTEGER,
  filename             TEXT,
  max_duration_seconds INTEGER,
  upload_token_sha256  TEXT UNIQUE,
  upload_expires_at    TEXT,
  created_at           TEXT NOT NULL,
  updated_at           TEXT NOT NULL
) STRICT;

CREATE INDEX docs_assets_by_team ON docs_assets (team_id, created_at);

-- One theme per team. `tokens` is the sanitised token JSON with the preset (or null) under the
-- key `preset`, as upstream keeps it; header and footer are replaced wholesale on every PUT.
CREATE TABLE docs_themes (
  team_id       TEXT PRIMARY KEY,
  tokens        TEXT NOT NULL,
  logo_asset_id TEXT REFERENCES docs_assets (asset_id),
  header        TEXT,
  footer        TEXT,
  updated_at    TEXT NOT NULL
) STRICT;
