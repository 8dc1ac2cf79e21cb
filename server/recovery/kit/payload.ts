/**
 * What a recovery kit seals: every key custody holds (with its material, destroyed ones as rows
 * without it), the backup key, the node's state rows (state-store.ts) and the schema version they
 * are in. JSON, blobs and key material as base64; read back through a strict schema, bounded in
 * every field, once the tag check has passed.
 */
import { z } from 'zod';
import type { KeyMaterial } from '../../custody/key-material.ts';
import { RecoveryKitError } from './kit-error.ts';
import type { KitTable, SqlValue, StateRow } from './state-store.ts';

export interface KitContents {
  /** The newest migration of the database the rows came from. */
  schemaVersion: number;
  nodeId: string;
  keys: KeyMaterial;
  tables: KitTable[];
}

const base64 = z
  .string()
  .max(128)
  .regex(/^[A-Za-z0-9+/]*={0,2}$/);
const time = z.string().max(64);
const id = z.string().min(1).max(256);
const bytes32 = base64.refine((value) => Buffer.from(value, 'base64').length === 32, 'must be 32 bytes');

const SigningKey = z.strictObject({
  key_id: id,
  purpose: z.enum(['identity', 'namespace', 'team', 'tunnel']),
  did_key: id,
  created_at: time,
  destroyed_at: time.nullable(),
  seed: bytes32.nullable(),
});

const EncryptionKey = z.strictObject({
  key_id: id,
  public_key: bytes32,
  created_at: time,
  archived_at: time.nullable(),
  destroyed_at: time.nullable(),
  private_key: bytes32.nullable(),
});

/** A blob column's value. */
const Blob = z.strictObject({ b64: z.string() });
const Value = z.union([z.string(), z.number(), z.null(), Blob]);

const Payload = z.strictObject({
  schema_version: z.int().min(1),
  node_id: id,
  keys: z.strictObject({ signing: z.array(SigningKey), encryption: z.array(EncryptionKey), backup_key: bytes32 }),
  state: z.array(z.strictObject({ table: z.string().max(64), rows: z.array(z.record(z.string().max(64), Value)) })),
});

const fromBase64 = (value: string): Buffer => Buffer.from(value, 'base64');

function encodeValue(value: SqlValue): z.input<typeof Value> {
  if (Buffer.isBuffer(value)) return { b64: value.toString('base64') };
  if (typeof value === 'bigint') return Number(value);
  return value;
}

const decodeValue = (value: z.output<typeof Value>): SqlValue => (value !== null && typeof value === 'object' ? fromBase64(value.b64) : value);

/** The payload's bytes. The key material is copied into them: the caller wipes `contents.keys` and the bytes after sealing. */
export function encodePayload(contents: KitContents): Buffer {
  const { keys } = contents;
  const payload: z.input<typeof Payload> = {
    schema_version: contents.schemaVersion,
    node_id: contents.nodeId,
    keys: {
      signing: keys.signing.map(({ seed, ...key }) => ({ ...key, seed: seed === null ? null : seed.toString('base64') })),
      encryption: keys.encryption.map(({ public_key, private_key, ...key }) => ({
        ...key,
        public_key: public_key.toString('base64'),
        private_key: private_key === null ? null : private_key.toString('base64'),
      })),
      backup_key: keys.backupKey.toString('base64'),
    },
    state: contents.tables.map(({ table, rows }) => ({
      table,
      rows: rows.map((row) => Object.fromEntries(Object.entries(row).map(([column, value]) => [column, encodeValue(value)]))),
    })),
  };
  return Buffer.from(JSON.stringify(payload));
}

/** The contents of an opened kit's payload; a payload that passed the tag check but not this schema was made by no svc-node. */
export function decodePayload(bytes: Buffer): KitContents {
  let parsed: unknown;
  try {
    parsed = JSON.parse(bytes.toString('utf8'));
  } catch {
    throw new RecoveryKitError('not_a_kit', 'the recovery kit opened, but what it holds is not JSON');
  }
  const result = Payload.safeParse(parsed);
  if (!result.success)
    throw new RecoveryKitError('not_a_kit', `the recovery kit opened, but what it holds is damaged (${result.error.issues[0]?.path.join('.')})`);
  const { keys, state } = result.data;
  return {
    schemaVersion: result.data.schema_version,
    nodeId: result.data.node_id,
    keys: {
      signing: keys.signing.map((key) => ({ ...key, seed: key.seed === null ? null : fromBase64(key.seed) })),
      encryption: keys.encryption.map((key) => ({
        ...key,
        public_key: fromBase64(key.public_key),
        private_key: key.private_key === null ? null : fromBase64(key.private_key),
      })),
      backupKey: fromBase64(keys.backup_key),
    },
    tables: state.map(({ table, rows }) => ({
      table,
      rows: rows.map((row): StateRow => Object.fromEntries(Object.entries(row).map(([column, value]) => [column, decodeValue(value)]))),
    })),
  };
}
