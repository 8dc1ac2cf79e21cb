/**
 * DNS-rebinding defence for the loopback listener: a request must name one of our own origins in
 * `Host`, and a browser request must come from one of them (or an explicitly allowed origin such
 * as the desktop renderer's `app://svc-node`, which then gets CORS headers).
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { forbidden } from '../errors.ts';

export interface HostPolicy {
  /** Hosts (`host:port`) a request may name; read per request because the port is known late. */
  hosts(): ReadonlySet<string>;
  /** Origins allowed to call the API from a browser, same-origin ones included. */
  origins(): ReadonlySet<string>;
}

const ALLOWED_HEADERS = 'authorization, content-type, x-svc-timestamp, x-svc-signed-payload, x-svcid-team-certificate';
const ALLOWED_METHODS = 'GET, POST, PUT, PATCH, DELETE, OPTIONS';

/** `host:port` spellings of a loopback listener. */
export function loopbackHosts(host: string, port: number): string[] {
  const names = new Set([host, '127.0.0.1', 'localhost', '[::1]']);
  return [...names].map((name) => `${name.includes(':') && !name.startsWith('[') ? `[${name}]` : name}:${port}`);
}

function applyCors(reply: FastifyReply, origin: string): void {
  reply.header('access-control-allow-origin', origin);
  reply.header('vary', 'Origin');
}

export function installHostGuard(app: FastifyInstance, policy: HostPolicy): void {
  app.addHook('onRequest', async (request: FastifyRequest, reply: FastifyReply) => {
    const host = (request.headers.host ?? '').toLowerCase();
    if (!policy.hosts().has(host)) throw forbidden('SVC_ERR_HOST_REFUSED', `Host "${host}" is not served here`);
    const origin = request.headers.origin;
    if (origin === undefined) return;
    if (!policy.origins().has(origin)) throw forbidden('SVC_ERR_HOST_REFUSED', `Origin "${origin}" is not allowed`);
    applyCors(reply, origin);
    if (request.method === 'OPTIONS') {
      reply
        .code(204)
        .header('access-control-allow-methods', ALLOWED_METHODS)
        .header('access-control-allow-headers', ALLOWED_HEADERS)
        .header('access-control-max-age', '600')
        .send();
    }
  });
}
