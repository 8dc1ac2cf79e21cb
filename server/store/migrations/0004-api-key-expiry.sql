-- Keys the owner mints for the UI act as an identity for a day, then stop working.
ALTER TABLE api_keys ADD COLUMN label TEXT;
ALTER TABLE api_keys ADD COLUMN expires_at TEXT;
