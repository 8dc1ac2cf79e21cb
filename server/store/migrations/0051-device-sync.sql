-- What linked devices sync through (docs/adr/0010-device-sync-op-log.md): every change to a
-- synced table while the node has another device, as the row it left (or its key, when it was
-- deleted), in the order each device made them. A device's own changes are written here by
-- triggers in the change's own transaction, so none can be missed; the changes of the other
-- devices are kept beside them once applied, so each device can pass on what another missed.
-- Owned by server/devices/sync/op-log-store.ts; the triggers by capture-store.ts.
CREATE TABLE device_ops (
  origin    TEXT NOT NULL,     -- the device that made the change
  seq       INTEGER NOT NULL,  -- its number among that device's changes, rising
  lamport   INTEGER NOT NULL,  -- the Lamport time: orders changes across devices
  tbl       TEXT NOT NULL,
  op        TEXT NOT NULL CHECK (op IN ('upsert', 'delete')),
  key       TEXT NOT NULL,     -- JSON array of the row's key columns
  row       TEXT,              -- JSON object of the row's columns after the change; null for a delete
  at        TEXT NOT NULL,
  PRIMARY KEY (origin, seq)
) STRICT, WITHOUT ROWID;
CREATE INDEX device_ops_at ON device_ops (at);

-- Each synced row's last change (its Lamport time and device): a change from another device is
-- applied only when it is later, so every device ends with the same last writer.
CREATE TABLE sync_clock (
  tbl      TEXT NOT NULL,
  key      TEXT NOT NULL,
  lamport  INTEGER NOT NULL,
  origin   TEXT NOT NULL,
  PRIMARY KEY (tbl, key)
) STRICT, WITHOUT ROWID;
