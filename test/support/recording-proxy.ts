/**
 * A plain HTTP proxy on loopback that stands where one node reaches another (the peer table
 * points at it), forwards each request to the node behind it, and keeps every byte that crossed
 * in either direction: what a network observer between two nodes would see.
 */
import { createServer, request as httpRequest, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface RecordingProxy {
  /** `http://127.0.0.1:<port>`: the address to give the peer table. */
  url: string;
  /** Every request (line, headers and body) and every answer (status, headers and body), in order. */
  readonly recorded: Buffer[];
  /** Method and path of each request forwarded. */
  readonly requests: string[];
  close(): Promise<void>;
}

async function bodyOf(stream: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

const headerText = (headers: IncomingMessage['headers']): string =>
  Object.entries(headers)
    .map(([name, value]) => `${name}: ${String(value)}`)
    .join('\n');

export async function startRecordingProxy(target: string): Promise<RecordingProxy> {
  const to = new URL(target);
  const recorded: Buffer[] = [];
  const requests: string[] = [];
  const server = createServer((request, response) => {
    void (async () => {
      const body = await bodyOf(request);
      requests.push(`${request.method} ${request.url}`);
      recorded.push(Buffer.from(`${request.method} ${request.url}\n${headerText(request.headers)}\n\n`), body);
      const forwarded = httpRequest(
        { host: to.hostname, port: to.port, method: request.method, path: request.url, headers: { ...request.headers, host: to.host } },
        (answer) => {
          void bodyOf(answer).then((answerBody) => {
            recorded.push(Buffer.from(`${answer.statusCode}\n${headerText(answer.headers)}\n\n`), answerBody);
            response.writeHead(answer.statusCode ?? 502, answer.headers).end(answerBody);
          });
        },
      );
      forwarded.on('error', () => response.destroy());
      forwarded.end(body);
    })();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    recorded,
    requests,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
