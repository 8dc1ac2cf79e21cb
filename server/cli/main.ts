/**
 * The `svc-node` command line: `serve` runs a node; the owner commands talk to the node running
 * on `--data DIR` through its node.json.
 */
import { Resolver } from 'node:dns/promises';
import { parseArgs, type ParseArgsConfig } from 'node:util';
import { NODE_VERSION } from '../version.ts';
import { backup } from './backup.ts';
import { defaultDataDir } from './data-dir.ts';
import { CliError, ownerCall, ownerRequest } from './owner-client.ts';
import { print } from './output.ts';
import { device } from './device.ts';
import { kit } from './kit.ts';
import { peer } from './peer.ts';
import { serve } from './serve.ts';
import { team } from './team.ts';
import { tunnel } from './tunnel.ts';
import type { Namespace } from '../../contract/core/namespaces.ts';
import type { CreatedProject, UiLink } from '../../contract/node/owner.ts';

const USAGE = `usage: svc-node <command> [options]

  serve [--data DIR] [--port N (default 7420; 0 = any free)] [--host H] [--public-port M] [--custody key-file|passphrase|keyring] [--log]
        [--dns-server IP[:PORT]]
        run the headless node; prints one "svc-node ready {...}" line when it listens; with
        --dns-server every DNS question (TXT and addresses) goes to that name server
  project create <slug> [--name NAME] [--namespace DOMAIN] [--json]
        create a project; prints its project-authority key (shown once)
  namespace create <domain> [--controller <did:key>] [--json]
        consent to a namespace on this node: controlled by <did:key> (which signs its address
        writes), or without --controller by a key the node creates and holds
  team create <name> --domain <domain> [--json]
        create the team <name>:<domain>; the node holds its key
  team add-member <team_id> --did-key <did:key> --alias <alias> [--lifetime persistent|ephemeral]
        [--did-aw <did:svc:...>] [--address <domain/name>] [--scope S ...] [--json]
        issue a certificate for a member who keeps its own key; scopes: docs:read, docs:write,
        library:read, library:write (these four by default), library:publish, library:approve, team:admin
  team invite <team_id> --alias <alias> [--lifetime persistent|ephemeral] [--address <domain/name>]
        [--expires-in SECONDS] [--json]
        a one-time join code (a day by default) and the one line the agent runs to join
  team invites <team_id> [--json]
        the team's invites that still work (their codes are never shown again)
  team cancel-invite <team_id> <invite_id> [--json]
        stop an invite's code working
  team join <join_url> <code> [--dir DIR (default .aw)] [--did-aw <did:svc:...>] [--json]
        run by the agent on its own machine: generates its key there (or reuses DIR/signing.key),
        signs the code with it, gets its certificate, connects, and writes DIR/ as upstream's
        tools read it; a persistent agent names its did:svc (its key must be its current key)
  team connect <core_url> [--dir DIR (default .aw)] [--team <team_id>] [--json]
        run by the agent: connects again with the key and certificate a join left in DIR (a join
        whose connect failed) and writes DIR/ as upstream's tools read it
  team revoke <team_id> <certificate_id> [--json]
        revoke a certificate and the editable present links it minted
  team list [--json]
  team members <team_id> [--json]
        the team's certificates with their presence and scopes, and what each scope grants
  peer add <domain> <url> [--json]
        mail to <domain> goes to the node at <url> (before DNS is asked)
  peer list [--json]
  peer remove <domain> [--json]
  tunnel set --host <ssh host> --user <account> --remote-port <port> [--port 22] [--public-url URL]
        [--host-key SHA256:...] [--json]
        expose this node through an SSH reverse tunnel to a host you control
  tunnel key [--json]
        the line to add to that account's ~/.ssh/authorized_keys (the private key stays here)
  tunnel start|stop|status [--json]
  kit create --out FILE [--force] [--json]
        write a recovery kit of the node: every key and the state that runs its identities, sealed
        under a passphrase (SVC_NODE_KIT_PASSPHRASE, or asked: a generated one is offered)
  kit restore FILE --data NEW_DIR [--backup BACKUP_DIR | --link URL --code CODE] [--json]
        make NEW_DIR a data dir of the same node from the kit (then: serve --data NEW_DIR); with
        --backup, its mail, chat, documents and the rest of its history from the newest backup there;
        with --link, as a device linked to a live one (device link there gives URL and CODE), with
        everything that device holds
  device link [--json]
        a one-time code (ten minutes) and the line to run on a new device to link it to this node
  device join <url> <code> --data NEW_DIR [--name NAME] [--json]
        run on the new device: makes NEW_DIR a linked device of the node at <url>, with the same
        identities, keys and history (then: serve --data NEW_DIR)
  device list [--json]
        the devices that hold this node's identities, with when each was last seen
  device revoke <device_id> [--rotate-keys] [--json]
        a lost or retired device receives nothing from this node from now on; with --rotate-keys
        every identity whose keys the node holds gets new ones too (for a device someone else may have)
  backup --to DIR [--json]
        back the node's database up into DIR (made 0700 when absent): sealed chunks under the
        node's backup key, only those not already there written, and a manifest; backups older
        than the retention rule keeps (7 days, then weekly for 8 weeks, monthly for a year) pruned
  ui    print a fresh one-time link that opens the UI in a browser
  version

  Owner commands talk to the node running on --data DIR (default: ${defaultDataDir()}).
`;

/** A stable default, so agents on this machine keep one URL for the node; `--port 0` picks any. */
export const DEFAULT_PORT = 7420;

const OPTIONS = {
  data: { type: 'string' },
  port: { type: 'string' },
  host: { type: 'string' },
  'public-port': { type: 'string' },
  custody: { type: 'string' },
  'dns-server': { type: 'string' },
  name: { type: 'string' },
  namespace: { type: 'string' },
  domain: { type: 'string' },
  controller: { type: 'string' },
  'did-key': { type: 'string' },
  alias: { type: 'string' },
  lifetime: { type: 'string' },
  'did-aw': { type: 'string' },
  address: { type: 'string' },
  scope: { type: 'string', multiple: true },
  'expires-in': { type: 'string' },
  dir: { type: 'string' },
  team: { type: 'string' },
  user: { type: 'string' },
  'remote-port': { type: 'string' },
  'public-url': { type: 'string' },
  'host-key': { type: 'string' },
  out: { type: 'string' },
  force: { type: 'boolean' },
  'rotate-keys': { type: 'boolean' },
  to: { type: 'string' },
  backup: { type: 'string' },
  link: { type: 'string' },
  code: { type: 'string' },
  json: { type: 'boolean' },
  log: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
} satisfies ParseArgsConfig['options'];

function port(value: string | undefined, flag: string, fallback: number): number {
  if (value === undefined) return fallback;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0 || n > 65535) throw new CliError(`${flag} must be a port number (0-65535)`);
  return n;
}

/** `IP`, `IP:PORT` or `[IPv6]:PORT`, as node:dns takes a name server. */
function dnsServer(value: string): string {
  try {
    new Resolver().setServers([value]);
  } catch {
    throw new CliError('--dns-server must be a name server address: IP, IP:PORT or [IPv6]:PORT');
  }
  return value;
}

async function run(argv: string[]): Promise<void> {
  const { values, positionals } = parseArgs({ args: argv, options: OPTIONS, allowPositionals: true, strict: true });
  const [command, sub, arg, arg2] = positionals;
  const dataDir = values.data ?? defaultDataDir();
  const json = values.json ?? false;
  if (values.help || command === undefined) {
    process.stdout.write(USAGE);
    return;
  }
  switch (command) {
    case 'serve':
      return serve({
        dataDir,
        host: values.host ?? '127.0.0.1',
        port: port(values.port, '--port', DEFAULT_PORT),
        publicPort: values['public-port'] === undefined ? null : port(values['public-port'], '--public-port', 0),
        custody: values.custody,
        log: values.log ?? false,
        dnsServer: values['dns-server'] === undefined ? null : dnsServer(values['dns-server']),
      });
    case 'project': {
      if (sub !== 'create' || !arg) throw new CliError('usage: svc-node project create <slug> [--name NAME] [--namespace DOMAIN] [--json]');
      const project = await ownerRequest<CreatedProject>(dataDir, 'POST', '/v1/node/projects', {
        slug: arg,
        ...(values.name ? { name: values.name } : {}),
        ...(values.namespace ? { namespace: values.namespace } : {}),
      });
      const { project_id, slug, api_key, namespace } = project;
      return print({ project_id, slug, api_key, namespace }, json, `project ${slug} (${project_id})\napi key (shown once): ${api_key}`);
    }
    case 'namespace': {
      if (sub !== 'create' || !arg) throw new CliError('usage: svc-node namespace create <domain> [--controller <did:key>] [--json]');
      const { status, body: namespace } = await ownerCall<Namespace>(dataDir, 'POST', '/v1/node/namespaces', {
        domain: arg,
        ...(values.controller ? { controller_did: values.controller } : {}),
      });
      // 200: the node already had it with this controller; nothing changed.
      const already = status === 200 ? ' is already on this node, unchanged:' : '';
      return print(namespace, json, `namespace ${namespace.domain}${already} (${namespace.verification_status}), controller ${namespace.controller_did}`);
    }
    case 'team':
      return team(dataDir, json, values, sub, arg, arg2);
    case 'peer':
      return peer(dataDir, json, sub, arg, arg2);
    case 'tunnel':
      return tunnel(dataDir, json, values, sub);
    case 'kit':
      return kit(dataDir, json, values, sub, arg);
    case 'device':
      return device(dataDir, json, values, sub, arg, arg2);
    case 'backup':
      return backup(dataDir, json, values.to);
    case 'ui': {
      const { ui_url } = await ownerRequest<UiLink>(dataDir, 'POST', '/v1/node/ui-link');
      return print({ ui_url }, json, ui_url);
    }
    case 'version':
      return print({ version: NODE_VERSION }, json, NODE_VERSION);
    default:
      throw new CliError(`unknown command "${command}"\n${USAGE}`);
  }
}

/** One line for the user: the message, with a hint where the fix is known. */
function describe(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  if ((error as NodeJS.ErrnoException).code === 'EADDRINUSE') {
    return `${error.message}: another program uses that port; pass --port N, or --port 0 for any free port`;
  }
  return error.message;
}

run(process.argv.slice(2)).catch((error: unknown) => {
  process.stderr.write(`svc-node: ${describe(error)}\n`);
  process.exit(1);
});
