/**
 * `svc-node tunnel ...` (DESIGN §8): configure the SSH reverse tunnel, show the key to put in the
 * SSH account's authorized_keys, start, stop and status; thin over `/v1/node/tunnel`.
 */
import { CliError, ownerRequest } from './owner-client.ts';
import { print } from './output.ts';
import type { TunnelView } from '../../contract/node/tunnel.ts';

export interface TunnelFlags {
  host?: string | undefined;
  port?: string | undefined;
  user?: string | undefined;
  'remote-port'?: string | undefined;
  'public-url'?: string | undefined;
  'host-key'?: string | undefined;
}

const USAGE = {
  set: 'usage: svc-node tunnel set --host <ssh host> --user <account> --remote-port <port> [--port 22] [--public-url URL] [--host-key SHA256:...] [--json]',
  any: 'usage: svc-node tunnel set|key|start|stop|status ... (see svc-node --help)',
};

function number(value: string | undefined, flag: string): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0 || n > 65535) throw new CliError(`${flag} must be a port number (0-65535)`);
  return n;
}

function statusText(view: TunnelView): string {
  const { state, public_url, detail } = view.status;
  return [`tunnel ${state}${public_url ? ` at ${public_url}` : ''}`, detail].filter(Boolean).join('\n');
}

export async function tunnel(dataDir: string, json: boolean, flags: TunnelFlags, sub?: string): Promise<void> {
  switch (sub) {
    case 'set': {
      const remotePort = number(flags['remote-port'], '--remote-port');
      if (!flags.host || !flags.user || remotePort === undefined) throw new CliError(USAGE.set);
      const port = number(flags.port, '--port');
      const body = {
        host: flags.host,
        username: flags.user,
        remote_port: remotePort,
        ...(port === undefined ? {} : { port }),
        ...(flags['public-url'] ? { public_url: flags['public-url'] } : {}),
        ...(flags['host-key'] ? { host_key_sha256: flags['host-key'] } : {}),
      };
      const view = await ownerRequest<TunnelView>(dataDir, 'PUT', '/v1/node/tunnel', body);
      return print(
        view,
        json,
        `tunnel set to ${view.config?.username}@${view.config?.host}:${view.config?.port}\nauthorize this key there:\n${view.public_key}`,
      );
    }
    case 'key': {
      const view = await ownerRequest<TunnelView>(dataDir, 'GET', '/v1/node/tunnel');
      return print({ public_key: view.public_key }, json, view.public_key);
    }
    case 'start':
    case 'stop':
    case 'status': {
      const view =
        sub === 'status'
          ? await ownerRequest<TunnelView>(dataDir, 'GET', '/v1/node/tunnel')
          : await ownerRequest<TunnelView>(dataDir, 'POST', `/v1/node/tunnel/${sub}`);
      return print(view, json, statusText(view));
    }
    default:
      throw new CliError(USAGE.any);
  }
}
