/**
 * Every tool's output schema, as each official client checks it (support/mcp.ts): SDK 1.x reads
 * schemas as draft-07, the newer client as 2020-12, and a keyword the two read differently
 * (a tuple's `prefixItems` with `items: false`: "no items at all" to draft-07) turns every result
 * that uses it into a -32602 for the host.
 *
 * Two checks. With real data, every tool is called so that its result carries every field its
 * schema names (each property, at every depth, present and not null somewhere), and the client
 * checks each result. And every schema uses only keywords both drafts read alike, for the parts no
 * identity's data can reach.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { connectMcp, MCP_CLIENTS, type McpSession, type McpTool } from '../support/mcp.ts';
import { startTestNode, type TestNode } from '../support/node.ts';

interface Created {
  agent_id: string;
  api_key: string;
  alias: string;
}

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type Schema = { [key: string]: unknown };

const isObject = (value: unknown): value is Schema => typeof value === 'object' && value !== null && !Array.isArray(value);

/** Every property path a schema names (`.messages[].from_did`), through unions and arrays. */
function schemaPaths(schema: unknown, prefix = '', out = new Set<string>()): Set<string> {
  if (!isObject(schema)) return out;
  if (isObject(schema.properties)) {
    for (const [key, value] of Object.entries(schema.properties)) {
      out.add(`${prefix}.${key}`);
      schemaPaths(value, `${prefix}.${key}`, out);
    }
  }
  if (isObject(schema.items)) schemaPaths(schema.items, `${prefix}[]`, out);
  for (const union of ['anyOf', 'oneOf', 'allOf']) {
    if (Array.isArray(schema[union])) for (const member of schema[union]) schemaPaths(member, prefix, out);
  }
  return out;
}

/** Every property path a value carries with a value other than null. */
function valuePaths(value: Json, prefix = '', out = new Set<string>()): Set<string> {
  if (Array.isArray(value)) for (const item of value) valuePaths(item, `${prefix}[]`, out);
  else if (isObject(value)) {
    for (const [key, inner] of Object.entries(value)) {
      if (inner === null) continue;
      out.add(`${prefix}.${key}`);
      valuePaths(inner as Json, `${prefix}.${key}`, out);
    }
  }
  return out;
}

/**
 * The keywords a draft-07 validator (SDK 1.x) and a 2020-12 one (the newer client) read alike.
 * Anything else in an output schema (prefixItems, items: false, $defs, dependentSchemas,
 * unevaluatedProperties, a boolean schema...) needs a look at both before it ships.
 */
const PORTABLE_KEYWORDS = new Set([
  '$schema',
  'type',
  'properties',
  'required',
  'additionalProperties',
  'items',
  'enum',
  'const',
  'anyOf',
  'oneOf',
  'allOf',
  'minimum',
  'maximum',
  'exclusiveMinimum',
  'exclusiveMaximum',
  'minItems',
  'maxItems',
  'minLength',
  'maxLength',
  'pattern',
  'format',
  'default',
  'description',
  'title',
]);

/** Where a schema uses a keyword outside PORTABLE_KEYWORDS, or a boolean schema. */
function unportable(schema: unknown, at = '#'): string[] {
  if (typeof schema === 'boolean') return [`${at} is the boolean schema ${schema}`];
  if (!isObject(schema)) return [];
  const found: string[] = [];
  for (const [keyword, value] of Object.entries(schema)) {
    if (!PORTABLE_KEYWORDS.has(keyword)) found.push(`${at}/${keyword}`);
    if (keyword === 'properties' && isObject(value)) {
      for (const [name, inner] of Object.entries(value)) found.push(...unportable(inner, `${at}/properties/${name}`));
    } else if (keyword === 'items' || keyword === 'additionalProperties') {
      // additionalProperties: false is read alike by both; a boolean `items` is not.
      if (!(keyword === 'additionalProperties' && typeof value === 'boolean')) found.push(...unportable(value, `${at}/${keyword}`));
    } else if (['anyOf', 'oneOf', 'allOf'].includes(keyword) && Array.isArray(value)) {
      value.forEach((member, index) => found.push(...unportable(member, `${at}/${keyword}/${index}`)));
    }
  }
  return found;
}

/**
 * Fields these results cannot carry: the search hits of documents, profiles and blueprints (an
 * identity's search covers its mail and chats; test/api/search.test.ts covers those kinds over
 * HTTP), and the rest below. Their schema parts are still checked for portable keywords.
 */
const UNREACHABLE: Record<string, string[]> = {
  search: ['.results[].team_id', '.results[].slug', '.results[].version', '.results[].current', '.results[].profile_ref', '.results[].blueprint_ref'],
  // Mail from or to another node (test/federation covers it): nullable strings, null here.
  // The envelope goes only to a reader holding its own keys (test/api/e2ee-mail.test.ts); these hold none.
  check_inbox: ['.messages[].from_node', '.messages[].encrypted_envelope'],
  list_sent: ['.messages[].delivered_to', '.messages[].encrypted_envelope'],
  chat_history: ['.messages[].encrypted_envelope'],
  chat_pending: ['.pending[].last_encrypted_envelope'],
  chat_send: ['.reply.encrypted_envelope'],
  // Null by what the tool does: a message back in the inbox, or unread.
  unarchive_message: ['.archived_at'],
  mark_unread: ['.read_at', '.archived_at'],
};

describe.each(MCP_CLIENTS)('output schemas with MCP %s', (client) => {
  let t: TestNode;
  let projectKey: string;
  let alice: Created;
  let bob: Created;
  let aliceMcp: McpSession;
  let bobMcp: McpSession;
  let tools: McpTool[];
  /** What each tool's results carried, across every call below. */
  const seen = new Map<string, Set<string>>();

  beforeAll(async () => {
    t = await startTestNode();
    return () => t.stop();
  });
  beforeAll(async () => {
    await t.owner('POST', '/v1/node/namespaces', { domain: 'schemas.test' });
    projectKey = (await t.owner('POST', '/v1/node/projects', { slug: 'schemas', namespace: 'schemas.test' })).body.api_key;
    const init = async (name: string): Promise<Created> =>
      (await t.request('POST', '/v1/workspaces/init', { token: projectKey, body: { lifetime: 'persistent', name, role: 'tester', program: 'vitest' } })).body;
    alice = await init('alice');
    bob = await init('bob');
    aliceMcp = await connectMcp(t.url, alice.api_key, { client });
    return () => aliceMcp.close();
  });
  beforeAll(async () => {
    bobMcp = await connectMcp(t.url, bob.api_key, { client });
    return () => bobMcp.close();
  });
  beforeAll(async () => {
    tools = (await aliceMcp.client.listTools()).tools;
  });

  /** Calls through the client, which checks the structured result against the tool's schema. */
  const call = async (session: McpSession, name: string, args: Record<string, unknown> = {}): Promise<any> => {
    const result = await session.client.callTool({ name, arguments: args });
    expect(result.isError, `${name} ${JSON.stringify(result.content)}`).not.toBe(true);
    expect(result.structuredContent, name).toBeDefined();
    const paths = seen.get(name) ?? new Set<string>();
    for (const path of valuePaths(result.structuredContent as Json)) paths.add(path);
    seen.set(name, paths);
    return result.structuredContent;
  };

  it('uses only keywords both drafts read alike', () => {
    const found = tools.flatMap((tool) => unportable(tool.outputSchema).map((where) => `${tool.name}: ${where}`));
    expect(found).toEqual([]);
  });

  it("accepts every tool's result, with every field its schema names", async () => {
    // Identity and presence.
    await call(aliceMcp, 'whoami');
    await call(aliceMcp, 'resolve_address', { address: 'schemas.test/bob' });
    await call(bobMcp, 'heartbeat');
    await call(aliceMcp, 'list_agents');

    // Mail: delivered here, with a thread; queued for another node (attempts, next attempt).
    const thread = crypto.randomUUID();
    const sent = await call(aliceMcp, 'send_mail', { to: 'bob', subject: 'the contract', body: 'hello contract', priority: 'high', thread_id: thread });
    await call(aliceMcp, 'send_mail', { to: 'elsewhere.example/carol', subject: 'far', body: 'far away' });
    await call(aliceMcp, 'list_sent', { limit: 1 });
    await call(bobMcp, 'contacts_add', { contact_address: 'schemas.test/alice', label: 'Alice' });
    const mailId = sent.messages[0].message_id as string;
    await call(bobMcp, 'check_inbox', { unread_only: true });
    await call(bobMcp, 'ack_message', { message_id: mailId });
    await call(bobMcp, 'archive_message', { message_id: mailId });
    await call(bobMcp, 'check_inbox', { folder: 'archive', unread_only: false });
    await call(bobMcp, 'unarchive_message', { message_id: mailId });
    await call(bobMcp, 'mark_unread', { message_id: mailId });
    await call(aliceMcp, 'send_mail', { to: 'bob', body: 'second' });
    await call(bobMcp, 'check_inbox', { unread_only: false, limit: 1 });

    // Chat: a wait that gets its reply, the other side's view. Bob's key rotates first, so his
    // reply carries the announcement, and he answers a message (reply_to).
    await t.request('PUT', '/v1/agents/me/rotate', { token: bob.api_key });
    const waiting = call(aliceMcp, 'chat_send', { to_alias: 'bob', message: 'hello contract chat', wait: true, wait_seconds: 20 });
    await expect.poll(async () => (await call(bobMcp, 'chat_pending')).pending[0]?.sender_waiting, { timeout: 5000 }).toBe(true);
    const { session_id: sessionId, last_message_id: asked } = (await call(bobMcp, 'chat_pending')).pending[0];
    // Through the HTTP API: the tool sets neither reply_to nor, without waiting, wait_seconds.
    const answer = await t.request('POST', '/v1/chat/sessions', {
      token: bob.api_key,
      body: { to_aliases: ['alice'], message: 'yes', reply_to: asked, wait_seconds: 5 },
    });
    expect(answer.body.session_id).toBe(sessionId);
    expect(await waiting).toMatchObject({ status: 'replied', reply: { body: 'yes', reply_to: asked } });
    await call(bobMcp, 'send_mail', { to: 'alice', subject: 'rotated', body: 'new key' });
    await call(aliceMcp, 'check_inbox', { unread_only: true });
    const history = await call(bobMcp, 'chat_history', { session_id: sessionId });
    await call(bobMcp, 'chat_read', { session_id: sessionId, up_to_message_id: history.messages.at(-1).message_id });
    // Bob leaves; a new send finds every target gone and does not wait.
    await call(bobMcp, 'chat_send', { session_id: sessionId, message: 'bye', leaving: true });
    await call(aliceMcp, 'chat_history', { session_id: sessionId });
    expect(await call(aliceMcp, 'chat_send', { to_alias: 'bob', message: 'still there?', wait: true, wait_seconds: 1 })).toMatchObject({
      status: 'targets_left',
    });
    await call(aliceMcp, 'send_control', { alias: 'bob', signal: 'pause' });

    // Bob is replaced: what his successor sends carries the replacement announcement.
    const replaced = (await t.request('POST', `/api/v1/agents/${bob.agent_id}/replace`, { token: t.node.ownerToken })).body as Created;
    const successor = await connectMcp(t.url, replaced.api_key, { client });
    try {
      const again = call(aliceMcp, 'chat_send', { to_address: 'schemas.test/bob', message: 'who is there?', wait: true, wait_seconds: 20 });
      await expect.poll(async () => (await call(successor, 'chat_pending')).pending[0]?.sender_waiting, { timeout: 5000 }).toBe(true);
      const { session_id: newSession } = (await call(successor, 'chat_pending')).pending[0];
      await call(successor, 'chat_send', { session_id: newSession, message: 'the new bob' });
      expect(await again).toMatchObject({ status: 'replied' });
      await call(successor, 'send_mail', { to: 'alice', subject: 'replaced', body: 'new identity' });
      await call(aliceMcp, 'check_inbox', { unread_only: true });
      await call(aliceMcp, 'chat_history', { session_id: newSession });
    } finally {
      await successor.close();
    }

    // Contacts, search (mail and chat hits with highlights, two pages), and a delete.
    await call(aliceMcp, 'contacts_add', { contact_address: 'schemas.test/bob', label: 'Bob' });
    const contacts = await call(aliceMcp, 'contacts_list');
    const found = await call(aliceMcp, 'search', { query: 'contract', limit: 1 });
    expect(found.results[0].highlights.length).toBeGreaterThan(0);
    await call(aliceMcp, 'search', { query: 'contract', cursor: found.next_cursor });
    await call(aliceMcp, 'list_sent');
    await call(aliceMcp, 'contacts_remove', { contact_id: contacts.contacts[0].contact_id });
    await call(aliceMcp, 'delete_message', { message_id: (await call(aliceMcp, 'check_inbox', {})).messages[0].message_id });

    const missing: string[] = [];
    for (const tool of tools) {
      const carried = seen.get(tool.name) ?? new Set<string>();
      // An unreachable path takes the fields under it along.
      const unreachable = UNREACHABLE[tool.name] ?? [];
      const reachable = (path: string) => !unreachable.some((u) => path === u || path.startsWith(`${u}.`) || path.startsWith(`${u}[`));
      for (const path of schemaPaths(tool.outputSchema)) if (!carried.has(path) && reachable(path)) missing.push(`${tool.name}${path}`);
    }
    expect(missing).toEqual([]);
  });
});
