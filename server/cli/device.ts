/**
 * `svc-node device link|join|list|revoke`: the owner's devices (docs/command-line.md, "Linked
 * devices"). link, list and revoke are owner commands (they talk to the node running on --data);
 * join runs in this process and makes a new data dir (server/devices/join.ts), which `svc-node
 * serve --data NEW_DIR` then runs.
 */
import type { Device, DeviceLinkCreated, DeviceList } from '../../contract/node/devices.ts';
import type { IdentityList } from '../../contract/node/identities.ts';
import { joinDevice } from '../devices/join.ts';
import { CliError } from './cli-error.ts';
import { asRestoreRefusal } from './restore-refusal.ts';
import { ownerRequest } from './owner-client.ts';
import { print, terminalText } from './output.ts';

const USAGE = {
  join: 'usage: svc-node device join <url> <code> --data NEW_DIR [--name NAME] [--json]',
  revoke: 'usage: svc-node device revoke <device_id> [--rotate-keys] [--json]',
  any: 'usage: svc-node device link|join|list|revoke ... (see svc-node --help)',
};

export interface DeviceFlags {
  data?: string | undefined;
  name?: string | undefined;
  'rotate-keys'?: boolean | undefined;
}

async function link(dataDir: string, json: boolean): Promise<void> {
  const made = await ownerRequest<DeviceLinkCreated>(dataDir, 'POST', '/v1/node/devices/link');
  const text = [
    `On the new device, run (the code works once, until ${made.expires_at}; choose the folder it keeps its data in):`,
    '',
    `  ${made.command}`,
    '',
    'Then start it with: svc-node serve --data NEW_DIR',
  ].join('\n');
  return print(made, json, text);
}

async function join(json: boolean, flags: DeviceFlags, url: string | undefined, code: string | undefined): Promise<void> {
  if (!url || !code || !flags.data) throw new CliError(USAGE.join);
  try {
    const joined = await joinDevice({
      url,
      code,
      dataDir: flags.data,
      warn: (message) => process.stderr.write(`${message}\n`),
      ...(flags.name === undefined ? {} : { name: flags.name }),
    });
    const text = [
      `${joined.data_dir} is now the device "${terminalText(joined.name)}" (${joined.device_id}) of node ${joined.node_id},`,
      `linked to "${terminalText(joined.linked_to.name)}" at ${joined.linked_to.url}: ${joined.identities} identities, ${joined.keys} keys, ${joined.chunks} chunks of history.`,
      `start it with: svc-node serve --data ${joined.data_dir}`,
    ].join('\n');
    return print(joined, json, text);
  } catch (error) {
    throw asRestoreRefusal(error);
  }
}

function line(device: Device): string {
  const state =
    device.revoked_at !== null ? `revoked ${device.revoked_at}` : device.this_device ? 'this device' : `last seen ${device.last_seen_at ?? 'never'}`;
  return `${device.device_id}  ${terminalText(device.name)}  (${state}${device.url === null ? '' : `, at ${terminalText(device.url)}`})`;
}

async function list(dataDir: string, json: boolean): Promise<void> {
  const found = await ownerRequest<DeviceList>(dataDir, 'GET', '/v1/node/devices');
  return print(found, json, found.devices.map(line).join('\n'));
}

interface RotatedIdentity {
  agent_id: string;
  alias: string;
  new_did: string;
}

/**
 * Every identity whose keys the node holds gets new ones: a signing key (the retiring one signs
 * the did:svc log's entry and is destroyed) and an encryption key (the old one archived, so what
 * was sealed to it stays readable here). A revoked device that someone else holds keeps only keys
 * that no longer speak for anyone.
 */
async function rotateAll(dataDir: string): Promise<RotatedIdentity[]> {
  const { identities } = await ownerRequest<IdentityList>(dataDir, 'GET', '/v1/node/identities');
  const rotated: RotatedIdentity[] = [];
  for (const identity of identities) {
    if (identity.lifetime !== 'persistent' || identity.custody !== 'custodial' || identity.status !== 'active') continue;
    const id = encodeURIComponent(identity.agent_id);
    const signing = await ownerRequest<{ new_did: string }>(dataDir, 'POST', `/v1/node/identities/${id}/rotate`);
    await ownerRequest(dataDir, 'POST', `/v1/node/identities/${id}/encryption-key/rotate`);
    rotated.push({ agent_id: identity.agent_id, alias: identity.alias, new_did: signing.new_did });
  }
  return rotated;
}

async function revoke(dataDir: string, json: boolean, flags: DeviceFlags, deviceId: string | undefined): Promise<void> {
  if (!deviceId) throw new CliError(USAGE.revoke);
  const revoked = await ownerRequest<Device>(dataDir, 'DELETE', `/v1/node/devices/${encodeURIComponent(deviceId)}`);
  if (flags['rotate-keys'] !== true) {
    const text = `revoked ${line(revoked)}: it receives nothing from this node from now on.\nIf it may be in someone else's hands, run this again with --rotate-keys: every identity gets new keys.`;
    return print(revoked, json, text);
  }
  const rotated = await rotateAll(dataDir);
  const text = [
    `revoked ${line(revoked)}: it receives nothing from this node from now on.`,
    `${rotated.length} identities have new keys (the did:svc logs record each; peers take the new keys):`,
    ...rotated.map((identity) => `  ${terminalText(identity.alias)}  ${identity.new_did}`),
  ].join('\n');
  return print({ ...revoked, rotated }, json, text);
}

export async function device(dataDir: string, json: boolean, flags: DeviceFlags, sub?: string, arg?: string, arg2?: string): Promise<void> {
  switch (sub) {
    case 'link':
      return link(dataDir, json);
    case 'join':
      return join(json, flags, arg, arg2);
    case 'list':
      return list(dataDir, json);
    case 'revoke':
      return revoke(dataDir, json, flags, arg);
    default:
      throw new CliError(USAGE.any);
  }
}
