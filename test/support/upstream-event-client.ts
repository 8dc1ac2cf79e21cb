/**
 * Upstream's Go event-stream client, as a test client: what it sends and how it reads, rule for
 * rule, from its source (awebai/aweb, cli/go/awid/events.go: `Client.EventStream`,
 * `parseAgentEvent`, `coalesceChannel`; its line reader is the same package's `SSEStream`). Go
 * itself cannot run in CI, so this follows the source instead of running it:
 *
 * - the request: `GET /v1/events/stream?deadline=<RFC 3339, whole seconds, UTC>`, `Accept:
 *   text/event-stream`, `Cache-Control: no-cache`, and team-certificate DIDKey auth (compact v1,
 *   the body hash of an empty body), upstream's header names renamed to this node's as
 *   test/support/upstream-client.ts does; a non-2xx answer is an error;
 * - the reader: lines split at "\n" with "\r\n" trimmed; a blank line ends an event when it has a
 *   name or data; `:` lines are comments; `field: value` with one leading space dropped and the
 *   field name trimmed; `event`, `data` (joined with "\n"), `id` and `retry` kept; at EOF, an
 *   event with a name or data is still returned;
 * - the decoder: an event without a name is skipped, as is every name it does not know (so
 *   `mail_message` and `chat_message` are skipped); a known one's data is decoded into Go
 *   structs: a missing or null field is its zero value, a field of the wrong JSON type is an
 *   error that ends the stream, as Go's `json.Unmarshal` makes it.
 */
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { signRequest, type UpstreamMember } from './upstream-client.ts';

/** upstream's AgentEvent, its JSON tags as keys (zero values omitted, as `omitempty` does). */
export interface AgentEvent {
  type: string;
  agent_id?: string;
  team_id?: string;
  wake_mode?: string;
  channel?: string;
  message_id?: string;
  conversation_id?: string;
  from_alias?: string;
  from_stable_id?: string;
  from_did?: string;
  from_address?: string;
  session_id?: string;
  subject?: string;
  content_mode?: string;
  message_version?: number;
  encrypted?: boolean;
  unread_count?: number;
  sender_waiting?: boolean;
  signal_id?: string;
  text?: string;
}

type GoType = 'string' | 'int' | 'bool';

/** `json.Unmarshal` into a struct of these fields: zero values for missing or null, errors for wrong types. */
function decode(eventName: string, data: string, fields: Record<string, GoType>): Record<string, string | number | boolean> {
  let payload: unknown;
  try {
    payload = JSON.parse(data);
  } catch (error) {
    throw new Error(`parse ${eventName} event: ${String(error)}`, { cause: error });
  }
  if (payload === null) payload = {};
  if (typeof payload !== 'object' || Array.isArray(payload)) throw new Error(`parse ${eventName} event: json: cannot unmarshal into Go struct`);
  const out: Record<string, string | number | boolean> = {};
  for (const [key, type] of Object.entries(fields)) {
    const value = (payload as Record<string, unknown>)[key];
    if (value === undefined || value === null) {
      out[key] = type === 'string' ? '' : type === 'int' ? 0 : false;
      continue;
    }
    const ok = type === 'string' ? typeof value === 'string' : type === 'int' ? Number.isInteger(value) : typeof value === 'boolean';
    if (!ok) throw new Error(`parse ${eventName} event: json: cannot unmarshal ${typeof value} into Go struct field .${key} of type ${type}`);
    out[key] = value as string | number | boolean;
  }
  return out;
}

const MAIL_FIELDS: Record<string, GoType> = {
  message_id: 'string',
  conversation_id: 'string',
  from_alias: 'string',
  from_stable_id: 'string',
  from_did: 'string',
  from_address: 'string',
  subject: 'string',
  content_mode: 'string',
  message_version: 'int',
  encrypted: 'bool',
  wake_mode: 'string',
  channel: 'string',
  unread_count: 'int',
};
const CHAT_FIELDS: Record<string, GoType> = {
  message_id: 'string',
  conversation_id: 'string',
  from_alias: 'string',
  from_stable_id: 'string',
  from_did: 'string',
  from_address: 'string',
  session_id: 'string',
  wake_mode: 'string',
  channel: 'string',
  unread_count: 'int',
  sender_waiting: 'bool',
};

/** Drops zero values, as the struct's `omitempty` tags do when it is encoded. */
function withoutZeros(event: Record<string, unknown>): AgentEvent {
  return Object.fromEntries(Object.entries(event).filter(([, v]) => v !== '' && v !== 0 && v !== false)) as unknown as AgentEvent;
}

/** upstream's parseAgentEvent: the typed event, or null for one it skips. */
export function parseAgentEvent(rawName: string, rawData: string): AgentEvent | null {
  const eventName = rawName.trim();
  const data = rawData.trim();
  if (eventName === '') return null;
  switch (eventName) {
    case 'connected': {
      const p = decode(eventName, data, { agent_id: 'string', team_id: 'string' });
      return withoutZeros({ type: 'connected', agent_id: p.agent_id, team_id: p.team_id });
    }
    case 'actionable_mail': {
      const p = decode(eventName, data, MAIL_FIELDS);
      return withoutZeros({ type: eventName, ...p, channel: coalesceChannel(p.channel as string, eventName) });
    }
    case 'actionable_chat': {
      const p = decode(eventName, data, CHAT_FIELDS);
      return withoutZeros({ type: eventName, ...p, channel: coalesceChannel(p.channel as string, eventName) });
    }
    case 'control_pause':
    case 'control_resume':
    case 'control_interrupt':
      return withoutZeros({ type: eventName, signal_id: decode(eventName, data, { signal_id: 'string' }).signal_id });
    case 'error': {
      let payload: unknown;
      try {
        payload = JSON.parse(data);
      } catch (error) {
        throw new Error(`parse error event: ${String(error)}`, { cause: error });
      }
      return { type: 'error', text: JSON.stringify(payload) };
    }
    // work_available, claim_update, claim_removed, app_event: upstream knows them; this node sends none.
    default:
      return null;
  }
}

function coalesceChannel(value: string, eventType: string): string {
  const trimmed = value.trim();
  if (trimmed !== '') return trimmed;
  return eventType === 'actionable_mail' ? 'mail' : eventType === 'actionable_chat' ? 'chat' : '';
}

/** IsActionableCoordination: what wakes upstream's CLI. */
export const isActionableCoordination = (event: AgentEvent): boolean => event.type === 'actionable_mail' || event.type === 'actionable_chat';

export interface AgentEventStream {
  /** The next typed event; rejects on a decoding error, or with "EOF" when the stream ends. */
  next(ms?: number): Promise<AgentEvent>;
  close(): void;
}

/** Go's time.RFC3339 in UTC: whole seconds, `Z`. */
const rfc3339 = (date: Date): string => `${date.toISOString().slice(0, 19)}Z`;

/** upstream's Client.EventStream with team-certificate auth. */
export function openAgentEventStream(baseUrl: string, member: UpstreamMember, deadline: Date): Promise<AgentEventStream> {
  const path = `/v1/events/stream?deadline=${encodeURIComponent(rfc3339(deadline))}`;
  const headers = { accept: 'text/event-stream', 'cache-control': 'no-cache', ...signRequest(member, 'GET', path, '', { mode: 'compact' }) };
  const target = new URL(baseUrl);
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: target.hostname, port: target.port, path, method: 'GET', headers, agent: false }, (res) => {
      const status = res.statusCode ?? 0;
      if (status < 200 || status >= 300) {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (body += chunk));
        res.on('end', () => reject(new Error(`APIError ${status}: ${body.slice(0, 1024)}`)));
        return;
      }
      resolve(agentEvents(res, () => req.destroy()));
    });
    req.on('error', reject);
    req.end();
  });
}

/** The SSEStream reader and the AgentEventStream decoder over one response. */
function agentEvents(res: IncomingMessage, close: () => void): AgentEventStream {
  res.setEncoding('utf8');
  let buffer = '';
  let ended = false;
  const waiters: (() => void)[] = [];
  const wake = () => {
    for (const waiter of waiters.splice(0)) waiter();
  };
  res.on('data', (chunk: string) => {
    buffer += chunk;
    wake();
  });
  const finish = () => {
    ended = true;
    wake();
  };
  res.on('end', finish);
  res.on('close', finish);
  res.on('error', finish);

  /** ReadString('\n'): a whole line, or null at EOF (with what is left as a last partial line). */
  async function readLine(limit: number): Promise<string | null> {
    for (;;) {
      const at = buffer.indexOf('\n');
      if (at >= 0) {
        const line = buffer.slice(0, at + 1);
        buffer = buffer.slice(at + 1);
        return line;
      }
      if (ended) return null;
      const left = limit - Date.now();
      if (left <= 0) throw new Error('timed out waiting for an event');
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, left);
        waiters.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
  }

  /** SSEStream.Next. */
  async function nextRaw(limit: number): Promise<{ event: string; data: string } | null> {
    let eventName = '';
    const dataLines: string[] = [];
    for (;;) {
      const raw = await readLine(limit);
      if (raw === null) return eventName !== '' || dataLines.length > 0 ? { event: eventName, data: dataLines.join('\n') } : null;
      const line = raw.replace(/[\r\n]+$/, '');
      if (line === '') {
        if (eventName === '' && dataLines.length === 0) continue;
        return { event: eventName, data: dataLines.join('\n') };
      }
      if (line.startsWith(':')) continue;
      const colon = line.indexOf(':');
      let field = colon < 0 ? line : line.slice(0, colon);
      let value = colon < 0 ? '' : line.slice(colon + 1);
      if (value.startsWith(' ')) value = value.slice(1);
      field = field.trim();
      if (field === '') continue;
      if (field === 'event') eventName = value;
      else if (field === 'data') dataLines.push(value);
      // `id` and `retry` are read and kept by upstream's SSEEvent; its event decoder uses neither.
    }
  }

  return {
    async next(ms = 5000) {
      const limit = Date.now() + ms;
      for (;;) {
        const raw = await nextRaw(limit);
        if (raw === null) throw new Error('EOF');
        const event = parseAgentEvent(raw.event, raw.data);
        if (event !== null) return event;
      }
    },
    close,
  };
}
