/**
 * The command line's requests to a node (`svc-node team join` and `team connect` to the node an
 * invite names, and the owner commands to the node on their data dir) go out through the node's
 * own outbound client (remote-client.ts), so they get its guarantees: a 3xx is a failure and
 * nothing is sent to where it points (a join code and its signature never follow a redirect), the
 * whole request has a time budget, and the answer has a size cap, enforced while it streams in.
 *
 * The URL is the user's choice (the line an owner handed them, their own node), so it may be on
 * loopback or the LAN, like a peer the owner set: no public-address rule. One client per request,
 * closed after it, so a command never keeps a socket (or its own exit) waiting.
 */
import { systemDnsResolver, type DnsResolver } from '../dns/resolver.ts';
import { DEFAULT_REMOTE_CLIENT_OPTIONS, RemoteClient, type RemoteAnswer, type RemoteRequest } from './remote-client.ts';

export interface CliRequest {
  method: RemoteRequest['method'];
  /** A JSON body, sent as application/json. */
  json?: string;
  headers?: Readonly<Record<string, string>>;
  /** The largest answer body accepted, in bytes. */
  maxBytes: number;
  /** The whole request: connecting, sending and reading the answer. */
  timeoutMs: number;
}

/** The answer to one request to `url` (an http(s) URL), or the RemoteError saying why there is none. */
export async function requestNode(url: URL, request: CliRequest, resolver: DnsResolver = systemDnsResolver): Promise<RemoteAnswer> {
  const client = new RemoteClient(resolver, {
    timeoutMs: request.timeoutMs,
    connectTimeoutMs: Math.min(DEFAULT_REMOTE_CLIENT_OPTIONS.connectTimeoutMs, request.timeoutMs),
  });
  try {
    return await client.request(
      { url: url.origin, via: 'peer' },
      {
        method: request.method,
        path: `${url.pathname}${url.search}`,
        maxBytes: request.maxBytes,
        ...(request.json === undefined ? {} : { json: request.json }),
        ...(request.headers === undefined ? {} : { headers: request.headers }),
      },
    );
  } finally {
    client.close();
  }
}
