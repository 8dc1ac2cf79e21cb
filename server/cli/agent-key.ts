/**
 * The agent's own Ed25519 key on its machine, in upstream's file layout: `DIR/signing.key`, a PEM
 * "ED25519 PRIVATE KEY" block holding the base64 seed, mode 0600. Never sent anywhere: only its
 * did:key and signatures leave the machine.
 */
import { randomBytes, type KeyObject } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { didKeyFromPublicKey } from '../crypto/did-key.ts';
import { privateKeyFromSeed, rawPublicKey, SEED_LENGTH } from '../crypto/ed25519.ts';
import { CliError } from './cli-error.ts';
import { shellCommand } from './output.ts';

const PEM_LABEL = 'ED25519 PRIVATE KEY';

export interface AgentKey {
  key: KeyObject;
  didKey: string;
  path: string;
}

function keyOf(seed: Buffer, path: string): AgentKey {
  const key = privateKeyFromSeed(seed);
  return { key, didKey: didKeyFromPublicKey(rawPublicKey(key)), path };
}

function readSeed(path: string): Buffer {
  const body = readFileSync(path, 'utf8')
    .replace(/-----[^-]+-----/g, '')
    .replace(/\s+/g, '');
  const seed = Buffer.from(body, 'base64');
  if (seed.length !== SEED_LENGTH) throw new CliError(`${path} does not hold an Ed25519 seed`);
  return seed;
}

/** The key in `dir`, made now when there is none (a join on a new machine). */
export function loadOrCreateAgentKey(dir: string): AgentKey {
  const path = join(dir, 'signing.key');
  if (existsSync(path)) return keyOf(readSeed(path), path);
  const seed = randomBytes(SEED_LENGTH);
  mkdirSync(dir, { recursive: true });
  writeFileSync(path, `-----BEGIN ${PEM_LABEL}-----\n${seed.toString('base64')}\n-----END ${PEM_LABEL}-----\n`, { mode: 0o600 });
  return keyOf(seed, path);
}

/** The key in `dir`, which must be there (connecting again after a join). */
export function loadAgentKey(dir: string): AgentKey {
  const path = join(dir, 'signing.key');
  if (!existsSync(path))
    throw new CliError(`no key at ${path}: join first (${shellCommand('svc-node', 'team', 'join')} <join_url> <code> ${shellCommand('--dir', dir)})`);
  return keyOf(readSeed(path), path);
}
