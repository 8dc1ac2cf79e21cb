/**
 * One worker of peer-connections.reliability.ts's flood, in a process of its own: one process may
 * not open the ~20,000 connections the flood holds at once (the descriptor limit that the flood
 * itself is about), several can. It opens `count` half-open requests to `url`, all at once, from
 * the `addresses` loopback addresses 127.0.<block>.1…, each held until the server closes it, and
 * prints one JSON line: how many were refused at accept (closed without a byte), timed out (a 408),
 * answered otherwise, or never connected.
 *
 * Usage: half-open-flood.ts <url> <count> <block> <addresses>
 */
import { halfOpen, type HalfOpen } from '../support/half-open.ts';

const [url = '', count = '0', block = '1', addresses = '16'] = process.argv.slice(2);
const tally = { refused: 0, timedOut: 0, other: 0, connectErrors: 0 };
const from = (i: number): string => `127.0.${block}.${(i % Number(addresses)) + 1}`;

async function attempt(i: number): Promise<void> {
  let connection: HalfOpen;
  try {
    connection = await halfOpen(url, from(i));
  } catch {
    tally.connectErrors++;
    return;
  }
  const { answer } = await connection.closed;
  if (answer === '') tally.refused++;
  else if (answer.startsWith('HTTP/1.1 408 ')) tally.timedOut++;
  else tally.other++;
}

const attempts: Promise<void>[] = [];
for (let i = 0; i < Number(count); i++) {
  attempts.push(attempt(i));
  // Let the event loop breathe every few hundred connects, as a real flood's sender would.
  if (i % 200 === 199) await new Promise((resolve) => setImmediate(resolve));
}
await Promise.all(attempts);
process.stdout.write(`${JSON.stringify(tally)}\n`);
