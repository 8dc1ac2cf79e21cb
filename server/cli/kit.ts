/**
 * `svc-node kit create` and `svc-node kit restore`: the recovery kit (docs/command-line.md,
 * "Recovery kit"). create is an owner command: the node seals the kit (the passphrase goes to it
 * over the owner API), and the CLI only writes the file. restore runs in this process, on a data
 * dir no node runs on (server/recovery/kit/restore.ts).
 */
import { randomBytes } from 'node:crypto';
import { closeSync, existsSync, fsyncSync, linkSync, openSync, readFileSync, renameSync, rmSync, statSync, writeSync } from 'node:fs';
import { resolve } from 'node:path';
import { KIT_PASSPHRASE_MAX, KIT_PASSPHRASE_MIN, type RecoveryKitCreated } from '../../contract/node/recovery-kit.ts';
import { KIT_MAX_BYTES } from '../recovery/kit/format.ts';
import { generatePhrase, PHRASE_BITS, PHRASE_WORDS } from '../recovery/kit/phrase.ts';
import { openRecoveryKit, restoreKit, type OpenedKit } from '../recovery/kit/restore.ts';
import { wipeKeyMaterial } from '../custody/key-material.ts';
import { joinDevice } from '../devices/join.ts';
import { CliError } from './cli-error.ts';
import { asRestoreRefusal } from './restore-refusal.ts';
import { askHidden, hasTerminal } from './hidden-input.ts';
import { ownerRequest } from './owner-client.ts';
import { print, terminalText } from './output.ts';

export const KIT_PASSPHRASE_ENV = 'SVC_NODE_KIT_PASSPHRASE';

const USAGE = {
  create: 'usage: svc-node kit create --out FILE [--data DIR] [--force] [--json]',
  restore: 'usage: svc-node kit restore FILE --data NEW_DIR [--backup BACKUP_DIR | --link URL --code CODE] [--json]',
  any: 'usage: svc-node kit create|restore ... (see svc-node --help)',
};

const NO_PASSPHRASE = `no passphrase: set ${KIT_PASSPHRASE_ENV}, or run the command in a terminal to be asked for it`;

export interface KitFlags {
  data?: string | undefined;
  /** `kit restore`: the backup folder the history comes from. */
  backup?: string | undefined;
  /** `kit restore --link URL --code CODE`: a live device of the node to link to instead (`device link` there gave both). */
  link?: string | undefined;
  code?: string | undefined;
  out?: string | undefined;
  force?: boolean | undefined;
}

function checked(passphrase: string): string {
  if (passphrase.length < KIT_PASSPHRASE_MIN) throw new CliError(`the passphrase is too short: use at least ${KIT_PASSPHRASE_MIN} characters`);
  if (passphrase.length > KIT_PASSPHRASE_MAX) throw new CliError(`the passphrase is too long: use at most ${KIT_PASSPHRASE_MAX} characters`);
  return passphrase;
}

/** For a new kit: the variable, else a generated phrase the person accepts with Enter, or one typed twice. */
async function newPassphrase(): Promise<string> {
  const given = process.env[KIT_PASSPHRASE_ENV];
  if (given !== undefined && given !== '') return checked(given);
  if (!hasTerminal()) throw new CliError(NO_PASSPHRASE);
  const phrase = generatePhrase();
  process.stderr.write(
    `A passphrase seals the kit; without it the kit cannot be opened. Suggested (${PHRASE_WORDS} words, about ${PHRASE_BITS} bits):\n\n  ${phrase}\n\n`,
  );
  const typed = await askHidden('Write it down and press Enter to use it, or type a passphrase of your own: ');
  if (typed === '') return phrase;
  checked(typed);
  if ((await askHidden('Type it again: ')) !== typed) throw new CliError('the two passphrases differ; nothing was written');
  return typed;
}

/** For an existing kit: the variable, else asked once. */
async function kitPassphrase(): Promise<string> {
  const given = process.env[KIT_PASSPHRASE_ENV];
  if (given !== undefined && given !== '') return given;
  if (!hasTerminal()) throw new CliError(NO_PASSPHRASE);
  return askHidden('Passphrase of the recovery kit: ');
}

/** Writes `text` to `file` with mode 0600 through a temporary file; an existing file is replaced only with `force`. */
function writeKitFile(file: string, text: string, force: boolean): void {
  const temp = `${file}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
  const fd = openSync(temp, 'wx', 0o600);
  try {
    writeSync(fd, text);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  try {
    if (force) renameSync(temp, file);
    // link() refuses an existing name, so a file made meanwhile is not replaced either.
    else linkSync(temp, file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') throw new CliError(`${file} exists; pass --force to replace it`);
    throw error;
  } finally {
    rmSync(temp, { force: true });
  }
}

async function create(dataDir: string, json: boolean, flags: KitFlags): Promise<void> {
  if (!flags.out) throw new CliError(USAGE.create);
  const file = resolve(flags.out);
  const force = flags.force ?? false;
  if (!force && existsSync(file)) throw new CliError(`${file} exists; pass --force to replace it`);
  const passphrase = await newPassphrase();
  const made = await ownerRequest<RecoveryKitCreated>(dataDir, 'POST', '/v1/node/recovery-kit', { passphrase });
  writeKitFile(file, made.kit, force);
  const { kit_id, created_at, identities, keys } = made;
  const text = `recovery kit ${kit_id} written to ${file}: ${identities} identities, ${keys} keys (${created_at})\nkeep it off this machine, and the passphrase apart from it`;
  return print({ file, kit_id, created_at, identities, keys }, json, text);
}

function readKitFile(file: string): string {
  let size: number;
  try {
    size = statSync(file).size;
  } catch {
    throw new CliError(`cannot read the recovery kit ${file}`);
  }
  if (size > KIT_MAX_BYTES) throw new CliError(`${file} is not an svc-node recovery kit: it is larger than ${KIT_MAX_BYTES} bytes`);
  return readFileSync(file, 'utf8');
}

async function restore(json: boolean, flags: KitFlags, file: string | undefined): Promise<void> {
  if (!file || !flags.data) throw new CliError(USAGE.restore);
  if ((flags.link === undefined) !== (flags.code === undefined) || (flags.link !== undefined && flags.backup !== undefined)) {
    throw new CliError(USAGE.restore);
  }
  const kit = readKitFile(resolve(file));
  const passphrase = await kitPassphrase();
  if (flags.link !== undefined && flags.code !== undefined) return restoreLinked(json, kit, passphrase, flags.data, flags.link, flags.code);
  try {
    const restored = await restoreKit({
      kit,
      passphrase,
      dataDir: flags.data,
      warn: (message) => process.stderr.write(`${message}\n`),
      ...(flags.backup === undefined ? {} : { backup: { dir: flags.backup } }),
    });
    const from = restored.backup_id === undefined ? '' : `, with the history of backup ${restored.backup_id}`;
    const lost =
      restored.keys_lost === undefined || restored.keys_lost === 0
        ? ''
        : `\n${restored.keys_lost} keys made after this kit were in the backup but not in the kit: they are lost, and what only they could open or sign stays so`;
    const text = `restored node ${restored.node_id} into ${restored.data_dir}${from}: ${restored.identities} identities, ${restored.keys} keys${lost}\nstart it with: svc-node serve --data ${restored.data_dir}`;
    return print(restored, json, text);
  } catch (error) {
    throw asRestoreRefusal(error);
  }
}

/**
 * With a device of the node still alive: the kit proves the person holds the node (it opens, and
 * names the same node as the device), and the new data dir is made as a device linked to the live
 * one, with everything it holds (server/devices/join.ts); the kit's keys are taken in beside.
 */
async function restoreLinked(json: boolean, text: string, passphrase: string, dataDir: string, url: string, code: string): Promise<void> {
  let opened: OpenedKit | null = null;
  try {
    opened = openRecoveryKit(text, passphrase);
    const joined = await joinDevice({
      url,
      code,
      dataDir,
      kit: { nodeId: opened.header.node_id, keys: opened.contents.keys },
      warn: (message) => process.stderr.write(`${message}\n`),
    });
    const lines = [
      `restored node ${joined.node_id} into ${joined.data_dir} as a device linked to "${terminalText(joined.linked_to.name)}" at ${joined.linked_to.url}:`,
      `${joined.identities} identities, ${joined.keys} keys, ${joined.chunks} chunks of history; it stays in step with that device.`,
      `start it with: svc-node serve --data ${joined.data_dir}`,
    ];
    return print({ ...joined, kit_id: opened.header.kit_id, linked: true }, json, lines.join('\n'));
  } catch (error) {
    throw asRestoreRefusal(error);
  } finally {
    if (opened !== null) wipeKeyMaterial(opened.contents.keys);
  }
}

export async function kit(dataDir: string, json: boolean, flags: KitFlags, sub?: string, arg?: string): Promise<void> {
  switch (sub) {
    case 'create':
      return create(dataDir, json, flags);
    case 'restore':
      return restore(json, flags, arg);
    default:
      throw new CliError(USAGE.any);
  }
}
