/**
 * The owner's identity routes (`/v1/node/identities...`): every identity of the node, a persistent
 * identity made in one of its projects, a day-long session key the UI acts as an identity with,
 * and identity backups (the seed sealed under the owner's passphrase, with both logs).
 */
import { z } from 'zod';
import { EncryptionKeyAssertion, EncryptionKeySummary } from '../core/encryption-keys.ts';
import { DidLogEntry } from '../core/did.ts';
import { AcceptsPlaintext, AgentLogEntry, Identity, reachability, Reachability } from '../core/identities.ts';
import { identityName } from './fields.ts';

export { AgentIdParams } from '../core/identities.ts';

/** An identity as the owner's list shows it: with its end-to-end encryption key's health. */
export const NodeIdentity = Identity.extend({ encryption_key: EncryptionKeySummary });
export type NodeIdentity = z.output<typeof NodeIdentity>;

export const IdentityList = z.object({ identities: z.array(NodeIdentity) });
export type IdentityList = z.output<typeof IdentityList>;

/** `POST /v1/node/identities`: always persistent; its address is `<project namespace>/<name>`. */
export const CreateIdentityBody = z.strictObject({
  project_id: z.uuid(),
  name: identityName,
  address_reachability: reachability.optional(),
  human_name: z.string().max(64).optional(),
});
export type CreateIdentityInput = z.input<typeof CreateIdentityBody>;

/** `PATCH /v1/node/identities/{agent_id}`: the settings the owner decides for an identity; an absent field keeps its value. */
export const NodeSettingsBody = z.strictObject({ accepts_plaintext: AcceptsPlaintext.optional() });
export type NodeSettingsInput = z.output<typeof NodeSettingsBody>;

/** `POST /v1/node/identities/{agent_id}/session-key`: a key acting as the identity for 24 h. */
export const SessionKey = z.object({ api_key: z.string(), api_key_id: z.string(), expires_at: z.string() });
export type SessionKey = z.output<typeof SessionKey>;

export const BACKUP_FORMAT = 'svc-node.identity-backup';

const passphrase = z.string().min(10, 'use a passphrase of at least 10 characters').max(1024);

export const ExportIdentityBody = z.strictObject({ passphrase });

/** An identity backup's audit log entries: restored verbatim (their signatures cover the original agent_id). */
const BackupAgentLogEntry = AgentLogEntry.extend({ log_id: z.uuid(), operation: z.string() });

/** `POST /v1/node/identities/{agent_id}/export` answers it; `POST /v1/node/identities/import` takes it. */
export const IdentityBackup = z.object({
  format: z.literal(BACKUP_FORMAT),
  v: z.literal(1),
  identity: z.object({
    agent_id: z.uuid(),
    name: z.string().min(1).max(64),
    did_aw: z.string(),
    address_reachability: Reachability,
    /** Absent from backups made before the setting existed: such an identity accepts plaintext, the default. */
    accepts_plaintext: AcceptsPlaintext.optional(),
    human_name: z.string().max(64),
    role: z.string().max(50).nullable(),
    program: z.string().max(256).nullable(),
    context: z.record(z.string(), z.unknown()).nullable(),
    created_at: z.string(),
  }),
  did_log: z.array(DidLogEntry).min(1).max(10_000),
  agent_log: z.array(BackupAgentLogEntry).max(100_000),
  /** The seed, sealed under the passphrase inside custody. */
  key: z.string().min(1).max(8192),
  /**
   * The identity's end-to-end encryption keys, oldest first and the current one last: their
   * assertions as published, and the private keys sealed together under the passphrase. Absent
   * from backups made before encryption keys; such an identity gets a fresh key when restored.
   */
  encryption_keys: z.object({ assertions: z.array(EncryptionKeyAssertion).min(1).max(10_000), keys: z.string().min(1).max(1_000_000) }).optional(),
});
export type IdentityBackup = z.output<typeof IdentityBackup>;

/**
 * `POST /v1/node/identities/import`. The backup is checked on its own once the rest is (its
 * problems are located from the backup's root, `body.format`, as they have always been).
 */
export const ImportIdentityBody = z.strictObject({
  project_id: z.uuid(),
  passphrase,
  backup: z.unknown(),
});

/** A restored identity, with a fresh API key (shown once). */
export const ImportedIdentity = Identity.extend({ api_key: z.string() });
export type ImportedIdentity = z.output<typeof ImportedIdentity>;
