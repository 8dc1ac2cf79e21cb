/**
 * The recovery kit (`/v1/node/recovery-kit`): every key of the node and the state that runs its
 * identities, sealed under the owner's passphrase (docs/security.md, "The recovery kit"), and
 * whether the last kit still holds every key, for the app's reminder.
 */
import { z } from 'zod';

/** The shortest and longest passphrase a kit is sealed under (a generated one is seven words). */
export const KIT_PASSPHRASE_MIN = 10;
export const KIT_PASSPHRASE_MAX = 1024;

export const CreateRecoveryKitBody = z.strictObject({
  passphrase: z.string().min(KIT_PASSPHRASE_MIN, `use a passphrase of at least ${KIT_PASSPHRASE_MIN} characters`).max(KIT_PASSPHRASE_MAX),
});
export type CreateRecoveryKitInput = z.input<typeof CreateRecoveryKitBody>;

export const RecoveryKitCreated = z.object({
  /** The kit file's text: keep it somewhere other than this machine. */
  kit: z.string(),
  kit_id: z.string(),
  node_id: z.string(),
  created_at: z.string(),
  /** Identities whose rows the kit holds. */
  identities: z.int().min(0),
  /** Keys whose private material the kit holds. */
  keys: z.int().min(0),
});
export type RecoveryKitCreated = z.output<typeof RecoveryKitCreated>;

export const RecoveryKitStatus = z.object({
  /** When the last kit was made; null while none was. */
  last_created_at: z.string().nullable(),
  /** True when a key was made, rotated out or destroyed after the last kit (and while there is none): make one again. */
  keys_changed_since: z.boolean(),
});
export type RecoveryKitStatus = z.output<typeof RecoveryKitStatus>;
