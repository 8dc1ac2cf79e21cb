/**
 * A peer that answers lookups and takes no delivery: a loopback proxy in front of a node that
 * forwards GETs (key and address lookups) and drops every other request, as a node that went down
 * just after its keys were found would look. Tests of envelopes that must bounce once their five
 * minutes pass point a domain of the sending node's peer table at it.
 */
import { createServer, request as httpRequest } from 'node:http';
import type { AddressInfo } from 'node:net';

/** Starts the gate in front of `target` (a node's URL); answers its URL and a stop. */
export async function startLookupOnlyGate(target: string): Promise<{ url: string; close(): Promise<void> }> {
  const to = new URL(target);
  const gate = createServer((request, response) => {
    if (request.method !== 'GET') return void request.socket.destroy();
    const forwarded = httpRequest(
      { host: to.hostname, port: to.port, method: 'GET', path: request.url, headers: { ...request.headers, host: to.host } },
      (answer) => {
        response.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(response);
      },
    );
    forwarded.on('error', () => response.destroy());
    forwarded.end();
  });
  await new Promise<void>((resolve) => gate.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(gate.address() as AddressInfo).port}`,
    close: () =>
      new Promise<void>((resolve) => {
        gate.closeAllConnections();
        gate.close(() => resolve());
      }),
  };
}
