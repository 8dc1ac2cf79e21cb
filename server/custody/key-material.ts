/**
 * Every key custody holds, with its material: what a recovery kit carries out of one node and
 * custody takes back in on another. Material exists unwrapped only between custody and the kit's
 * sealer (or opener) in the same process, and whoever holds it wipes the buffers after use.
 */
import { createHash } from 'node:crypto';
import type { KeyPurpose } from './key-store.ts';

/** A signing key as it leaves custody for a kit: its seed, or null once destroyed. */
export interface SigningKeyMaterial {
  key_id: string;
  purpose: KeyPurpose;
  did_key: string;
  created_at: string;
  destroyed_at: string | null;
  seed: Buffer | null;
}

/** An X25519 encryption key as it leaves custody for a kit: its private key, or null once destroyed. */
export interface EncryptionKeyMaterial {
  key_id: string;
  public_key: Buffer;
  created_at: string;
  archived_at: string | null;
  destroyed_at: string | null;
  private_key: Buffer | null;
}

export interface KeyMaterial {
  signing: SigningKeyMaterial[];
  encryption: EncryptionKeyMaterial[];
  /** The 32-byte key that seals the node's backups. */
  backupKey: Buffer;
}

/** Zeroes every secret of `material`. */
export function wipeKeyMaterial(material: KeyMaterial): void {
  for (const key of material.signing) key.seed?.fill(0);
  for (const key of material.encryption) key.private_key?.fill(0);
  material.backupKey.fill(0);
}

/** What a key's state is, without its material: enough to tell whether a kit still holds every key as it is. */
export interface KeyState {
  kind: 'signing' | 'encryption';
  key_id: string;
  archived: boolean;
  destroyed: boolean;
}

/**
 * One digest of every key's id and state: it changes when a key is made, rotated out (archived)
 * or destroyed, and never otherwise, so comparing it with the one a kit recorded needs no clock.
 */
export function keyStatesDigest(states: KeyState[]): string {
  const lines = states.map((s) => `${s.kind} ${s.key_id} ${s.archived ? 'archived' : 'current'} ${s.destroyed ? 'destroyed' : 'held'}`).sort();
  return createHash('sha256').update(lines.join('\n')).digest('hex');
}
