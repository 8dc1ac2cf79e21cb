/**
 * Namespace and address calls as an outside controller makes them: each a DIDKey-signed request
 * over `{domain, name?, operation, timestamp}` (DESIGN §5).
 */
import { didKeyHeaders, type TestKey } from './keys.ts';
import { expectOk } from './expect.ts';
import type { ApiResponse, NodeEndpoint, TestNode } from './node.ts';

export type AddressOperation = 'register_address' | 'update_address' | 'reassign_address' | 'delete_address';

export interface SignOptions {
  /** The X-SVC-Timestamp (and signed timestamp); a fresh one when absent. */
  at?: string;
  /** Replaces the signed headers entirely (missing or forged credentials). */
  headers?: Record<string, string>;
}

export function registerNamespace(
  t: TestNode,
  key: TestKey,
  domain: string,
  body: Record<string, unknown> = {},
  options: SignOptions = {},
): Promise<ApiResponse> {
  return t.request('POST', '/v1/namespaces', {
    body: { domain, ...body },
    headers: options.headers ?? didKeyHeaders(key, { domain, operation: 'register' }, options.at),
  });
}

const ROUTES: Record<AddressOperation, (domain: string, name: string) => [string, string]> = {
  register_address: (domain) => ['POST', `/v1/namespaces/${domain}/addresses`],
  update_address: (domain, name) => ['PUT', `/v1/namespaces/${domain}/addresses/${name}`],
  reassign_address: (domain, name) => ['POST', `/v1/namespaces/${domain}/addresses/${name}/reassign`],
  delete_address: (domain, name) => ['DELETE', `/v1/namespaces/${domain}/addresses/${name}`],
};

/**
 * One signed address operation. `signAs` (default: the operation itself) lets a test sign one
 * operation and send it to another route.
 */
export function addressCall(
  t: TestNode,
  key: TestKey,
  operation: AddressOperation,
  domain: string,
  name: string,
  body?: Record<string, unknown>,
  options: SignOptions & { signAs?: AddressOperation } = {},
): Promise<ApiResponse> {
  const [method, path] = ROUTES[operation](domain, name);
  const headers = options.headers ?? didKeyHeaders(key, { domain, name, operation: options.signAs ?? operation }, options.at);
  return t.request(method, path, { headers, ...(body === undefined ? {} : { body }) });
}

export const assignAddress = (t: TestNode, key: TestKey, domain: string, body: { name: string } & Record<string, unknown>, options?: SignOptions) =>
  addressCall(t, key, 'register_address', domain, body.name, body, options);

/**
 * The `_svcid` record of `domain`: it names `controllerDid` (null removes the record) and, with
 * `node`, the origin of the node the namespace lives on.
 */
export function setDnsController(t: TestNode, domain: string, controllerDid: string | null, node?: string): void {
  if (controllerDid === null) delete t.dns.records[`_svcid.${domain}`];
  else t.dns.records[`_svcid.${domain}`] = [[`svcid=v1; controller=${controllerDid};${node === undefined ? '' : ` node=${node};`}`]];
}

/**
 * Gives the node a public origin that DNS can name: the tunnel's public URL, configured (owner
 * API) but never started, as a node whose tunnel is down still has it.
 */
export async function setPublicOrigin(t: NodeEndpoint, origin: string): Promise<void> {
  expectOk(await t.owner('PUT', '/v1/node/tunnel', { host: 'tunnel.invalid', username: 'svc', remote_port: 8080, public_url: origin }));
}

/** The owner consents to `domain` with an outside controller (`svc-node namespace create --controller`). */
export function registerByOwner(t: NodeEndpoint, domain: string, controllerDid: string): Promise<ApiResponse> {
  return t.owner('POST', '/v1/node/namespaces', { domain, controller_did: controllerDid });
}
