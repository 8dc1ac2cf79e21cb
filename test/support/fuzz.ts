/**
 * Property-based fuzzing of every HTTP route of the node (bad input gets a clear 4xx, never a 500):
 * the route table, the fast-check arbitraries for bad input (paths, queries, bodies, content types,
 * forged auth), the fixtures that let fuzzed requests get past auth, and the runner with its
 * properties:
 *
 * - no answer is a 5xx, and every request is answered (no hang, no crash);
 * - a 4xx answer is JSON `{detail, code}`, its code one the error catalogue answers with that
 *   status (the present page's HTML 404 and MCP's JSON-RPC errors aside, as the routes define them);
 * - a refused request (≥ 400) leaves the stored data as it was: the database's contents are
 *   compared before and after, through a second, read-only connection (volatile bookkeeping such
 *   as an API key's last_used_at aside);
 * - a replayed team envelope is never accepted; Object.prototype is never polluted;
 * - the node keeps answering: `GET /v1/node/info` with the owner token is a 200 after each batch.
 *
 * Requests go out over node:http, not fetch: fetch normalises `..`, `%2e%2e` and friends away,
 * and the team envelope signs the exact request target.
 */
import { createHash, randomBytes } from 'node:crypto';
import { Agent, request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import { join } from 'node:path';
import SQLite from 'better-sqlite3-multiple-ciphers';
import fc from 'fast-check';
import { errorCatalogue, isErrorCode } from '../../contract/errors.ts';
import { buildTeamHeaders } from '../../server/auth/team-envelope-client.ts';
import { privateKeyFromSeed, signBytes } from '../../server/crypto/ed25519.ts';
import { Custody } from '../../server/custody/custody.ts';
import { BODY_LIMIT_BYTES } from '../../server/http/limits.ts';
import { createIdentity, createNodeNamespace, createProject } from './identities.ts';
import { testKey } from './keys.ts';
import { blueprintPayload, CHANGESET_SCHEMA, profileFiles } from './library.ts';
import type { TestNode } from './node.ts';
import { addTeamMember, ALL_SCOPES, type TeamClient } from './teams.ts';

// ---------------------------------------------------------------------------------------------
// The route table
// ---------------------------------------------------------------------------------------------

export type Method = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

/** The credential a route takes when the caller is allowed. */
/** `device`: signed by another of the owner's devices; the fuzzer holds no device key, so those routes are fuzzed for their refusals. */
export type RouteAuth = 'none' | 'owner' | 'project' | 'identity' | 'owner-or-project' | 'team-library' | 'team-docs' | 'didkey' | 'upload-token' | 'device';

export interface RouteSpec {
  method: Method;
  /** Fastify's path template, `:name` for parameters. */
  path: string;
  auth: RouteAuth;
  /** What the route reads as its body. */
  body: 'none' | 'json' | 'markdown' | 'raw';
  /** Body fields the route's schema names (fuzzed with values of every type). */
  fields?: readonly string[];
  /** A valid body (against the fixtures), mutated one field at a time to reach past validation. */
  seed?: Record<string, unknown>;
  /** Query parameters the route reads. */
  query?: readonly string[];
  /** A server-sent event stream when the request is allowed. */
  sse?: boolean;
  /** May legitimately hold the request open (chat's wait_seconds). */
  longPoll?: boolean;
  /** Answers its own 404 as an HTML page (the present page). */
  htmlErrors?: boolean;
  /** The MCP endpoint: errors are JSON-RPC. */
  mcp?: boolean;
  /** Changes what later requests authenticate with: only the disposable fixtures may succeed. */
  destructive?: boolean;
  /** Never sent with a valid credential (it would reach outside the test: the tunnel dials SSH, a backup writes a folder). */
  refuseOnly?: boolean;
  /** Not fuzzed, and why. */
  exempt?: string;
}

const r = (method: Method, path: string, auth: RouteAuth, ...extra: Partial<RouteSpec>[]): RouteSpec =>
  Object.assign({ method, path, auth, body: method === 'GET' || method === 'DELETE' ? 'none' : 'json' } as RouteSpec, ...extra);

const PNG_B64 = Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), Buffer.from('png')]).toString('base64');

const json = (...fields: string[]): Partial<RouteSpec> => ({ body: 'json', fields });

const SEARCH_QUERY: Partial<RouteSpec> = { query: ['q', 'type', 'from', 'to', 'after', 'before', 'unread', 'team', 'agent_id', 'sort', 'limit', 'cursor'] };

/** Every route the node registers (test/api/fuzz.test.ts checks this against Fastify's own route table). */
export const ROUTES: readonly RouteSpec[] = [
  // --- owner API (/v1/node/...) -------------------------------------------------------------
  r('POST', '/v1/node/session', 'none', json('code')),
  r('POST', '/v1/node/ui-link', 'owner', { body: 'none' }),
  r('GET', '/v1/node/sessions', 'owner'),
  r('DELETE', '/v1/node/sessions/:session_id', 'owner'),
  r('POST', '/v1/node/sessions/revoke-others', 'owner', { body: 'none' }),
  r('GET', '/v1/node/info', 'owner'),
  r('GET', '/v1/node/projects', 'owner'),
  r('POST', '/v1/node/projects', 'owner', json('slug', 'name', 'namespace'), { seed: { slug: 'fuzz-new', name: 'New' } }),
  r('GET', '/v1/node/identities', 'owner'),
  r('POST', '/v1/node/identities', 'owner', json('project_id', 'alias', 'name', 'human_name', 'role', 'program', 'namespace')),
  r('POST', '/v1/node/identities/:agent_id/session-key', 'owner', { body: 'none' }),
  r('POST', '/v1/node/identities/:agent_id/rotate', 'owner', { body: 'none' }),
  r('POST', '/v1/node/identities/:agent_id/encryption-key/rotate', 'owner', { body: 'none' }),
  r('PATCH', '/v1/node/identities/:agent_id', 'owner', json('accepts_plaintext')),
  r('GET', '/v1/node/events/stream', 'owner', { sse: true, query: ['deadline'] }),
  r('POST', '/v1/node/identities/:agent_id/export', 'owner', json('passphrase')),
  r('POST', '/v1/node/identities/import', 'owner', json('project_id', 'passphrase', 'backup')),
  // A valid request writes a folder wherever the path points, outside the test.
  r('POST', '/v1/node/backups', 'owner', json('to'), { refuseOnly: true }),
  r('GET', '/v1/node/backups', 'owner'),
  r('DELETE', '/v1/node/backups/running', 'owner'),
  r('PUT', '/v1/node/backups/schedule', 'owner', json('to', 'every_hours'), { refuseOnly: true }),
  r('POST', '/v1/node/recovery-kit', 'owner', json('passphrase')),
  r('GET', '/v1/node/recovery-kit', 'owner'),
  r('GET', '/v1/node/devices', 'owner'),
  r('POST', '/v1/node/devices/link', 'owner', { body: 'none' }),
  r('DELETE', '/v1/node/devices/:device_id', 'owner'),
  r('GET', '/v1/node/teams', 'owner'),
  r('POST', '/v1/node/teams', 'owner', json('name', 'domain')),
  r('GET', '/v1/node/teams/:team_id', 'owner'),
  r('GET', '/v1/node/teams/:team_id/members', 'owner'),
  r('POST', '/v1/node/teams/:team_id/members', 'owner', json('did_key', 'alias', 'lifetime', 'did_aw', 'address', 'scopes'), {
    seed: { did_key: 'did:key:z6MkhaXgBZDvotDkL5257faiztiGiC2QtKLGpbnnEGta2doK', alias: 'fuzz-new', scopes: ['docs:read'] },
  }),
  r('POST', '/v1/node/teams/:team_id/members/:certificate_id/revoke', 'owner', { body: 'none', destructive: true }),
  r('POST', '/v1/node/teams/:team_id/sign', 'owner', json('method', 'path', 'body', 'surface', 'alias')),
  r('POST', '/v1/node/teams/:team_id/invites', 'owner', json('alias', 'lifetime', 'expires_in_seconds')),
  r('GET', '/v1/node/teams/:team_id/invites', 'owner'),
  r('DELETE', '/v1/node/teams/:team_id/invites/:invite_id', 'owner'),
  r('POST', '/v1/team/join', 'none', json('code', 'did_key', 'did_aw', 'address', 'timestamp', 'signature')),
  r('GET', '/v1/node/docs/billing', 'owner'),
  r('PUT', '/v1/node/docs/billing', 'owner', json('caps')),
  r('GET', '/v1/node/peers', 'owner'),
  r('GET', '/v1/node/search', 'owner', SEARCH_QUERY),
  r('POST', '/v1/node/peers', 'owner', json('domain', 'url', 'public_url')),
  r('DELETE', '/v1/node/peers/:domain', 'owner'),
  r('GET', '/v1/node/tunnel', 'owner'),
  r('PUT', '/v1/node/tunnel', 'owner', json('host', 'port', 'username', 'remote_port', 'remote_bind_host', 'public_url', 'host_key_sha256'), {
    seed: { host: 'tunnel.invalid', port: 22, username: 'svc', remote_port: 8080, public_url: null },
  }),
  // Starting would dial an SSH server in the background: only refused requests here.
  r('POST', '/v1/node/tunnel/start', 'owner', { body: 'none', refuseOnly: true }),
  r('POST', '/v1/node/tunnel/stop', 'owner', { body: 'none' }),
  r('GET', '/v1/node/namespaces', 'owner'),
  r('POST', '/v1/node/namespaces', 'owner', json('domain', 'controller_did')),
  // The first-run flow: once set up, other names are refused (409), the same one answered again.
  r('POST', '/v1/node/setup', 'owner', json('name', 'domain'), { seed: { name: 'fuzz-setup' } }),

  // --- core: identities, namespaces, DID registry ----------------------------------------------
  r('POST', '/v1/workspaces/init', 'project', json('alias', 'name', 'lifetime', 'human_name', 'role', 'program', 'address_reachability', 'namespace')),
  r('GET', '/v1/auth/introspect', 'identity'),
  r('GET', '/v1/agents/me/log', 'identity'),
  r('PUT', '/v1/agents/me/rotate', 'identity', { body: 'none', destructive: true }),
  r(
    'PUT',
    '/v1/agents/me/encryption-key',
    'identity',
    json(
      'operation',
      'version',
      'identity_did',
      'identity_stable_id',
      'custody',
      'encryption_key_id',
      'encryption_public_key',
      'algorithm',
      'created_at',
      'not_before',
      'expires_at',
      'previous_encryption_key_id',
      'signature',
    ),
  ),
  r('DELETE', '/v1/agents/me', 'identity', { destructive: true }),
  r(
    'PATCH',
    '/v1/agents/me',
    'identity',
    json('address_reachability', 'human_name', 'role', 'program', 'context', 'hostname', 'workspace_path', 'accepts_plaintext'),
    {
      seed: { human_name: 'Alice', role: 'tester' },
    },
  ),
  r('GET', '/v1/agents/resolve/:namespace/:name', 'none'),
  r('POST', '/api/v1/agents/:agent_id/archive', 'owner-or-project', { body: 'none', destructive: true }),
  r('POST', '/api/v1/agents/:agent_id/replace', 'owner-or-project', { ...json('custody', 'did', 'public_key'), destructive: true }),
  r('POST', '/v1/namespaces', 'didkey', json('domain', 'controller_did')),
  // --- between the owner's devices (/v1/devices/...) -----------------------------------------
  r('POST', '/v1/devices/join', 'didkey', json('code_id', 'name', 'sign_key', 'box_key', 'url', 'timestamp', 'proof', 'signature')),
  r('GET', '/v1/devices/snapshot/manifests/:backup_id', 'device'),
  r('GET', '/v1/devices/snapshot/chunks/:name', 'device'),
  r('POST', '/v1/devices/joined', 'device', { body: 'none' }),
  r('POST', '/v1/devices/sync/pull', 'device', json('have', 'wait_ms', 'keys_digest')),
  r('POST', '/v1/devices/sync/push', 'device', json('sealed', 'keys')),
  r('GET', '/v1/namespaces', 'none', { query: ['controller_did'] }),
  r('GET', '/v1/namespaces/:domain', 'none'),
  r('POST', '/v1/namespaces/:domain/verify', 'none', { body: 'none' }),
  r('GET', '/v1/namespaces/:domain/addresses', 'none'),
  r('GET', '/v1/namespaces/:domain/addresses/:name', 'none'),
  r('GET', '/v1/namespaces/:domain/addresses/:name/replacements', 'none'),
  r('POST', '/v1/namespaces/:domain/addresses', 'didkey', json('name', 'did_aw', 'current_did_key', 'reachability')),
  r('PUT', '/v1/namespaces/:domain/addresses/:name', 'didkey', json('did_aw', 'current_did_key', 'reachability')),
  r('POST', '/v1/namespaces/:domain/addresses/:name/reassign', 'didkey', json('did_aw', 'current_did_key')),
  r('DELETE', '/v1/namespaces/:domain/addresses/:name', 'didkey'),
  r('POST', '/v1/did', 'none', json('did_aw', 'new_did_key', 'operation', 'seq', 'timestamp', 'prev_entry_hash', 'state_hash', 'proof', 'authorized_by')),
  r('PUT', '/v1/did/:did_aw', 'none', json('new_did_key', 'previous_did_key', 'operation', 'seq', 'timestamp', 'prev_entry_hash', 'state_hash', 'signature')),
  r('GET', '/v1/did/:did_aw/key', 'none'),
  r('GET', '/v1/did/:did_aw/head', 'none'),
  r('GET', '/v1/did/:did_aw/log', 'none'),

  // --- core: mail, chat, contacts, control, events, federation, MCP ----------------------------
  r(
    'POST',
    '/v1/messages',
    'identity',
    json(
      'to_alias',
      'to_address',
      'to_did',
      'to_stable_id',
      'to_agent_id',
      'to_aliases',
      'subject',
      'body',
      'priority',
      'signature',
      'signed_payload',
      'message_id',
      'timestamp',
      'thread_id',
    ),
  ),
  r('GET', '/v1/search', 'identity', SEARCH_QUERY),
  r('GET', '/v1/messages/inbox', 'identity', { query: ['limit', 'unread_only', 'message_id', 'before', 'folder'] }),
  r('GET', '/v1/messages/outbound', 'identity', { query: ['limit'] }),
  r('POST', '/v1/messages/:message_id/ack', 'identity', { body: 'none' }),
  // Mail folders (ours).
  r('GET', '/v1/messages/sent', 'identity', { query: ['limit', 'before'] }),
  r('GET', '/v1/messages/sent/:message_id', 'identity'),
  r('POST', '/v1/messages/:message_id/archive', 'identity', { body: 'none' }),
  r('POST', '/v1/messages/:message_id/unarchive', 'identity', { body: 'none' }),
  r('POST', '/v1/messages/:message_id/unread', 'identity', { body: 'none' }),
  r('DELETE', '/v1/messages/:message_id', 'identity'),
  r('GET', '/v1/messages/:message_id/rendered', 'identity'),
  r('POST', '/v1/chat/sessions', 'identity', {
    ...json('to_aliases', 'to_addresses', 'to_dids', 'message', 'wait_seconds', 'hang_on', 'leaving', 'reply_to', 'message_id', 'timestamp'),
    longPoll: true,
  }),
  r('GET', '/v1/chat/sessions', 'identity'),
  r('GET', '/v1/chat/pending', 'identity'),
  r('GET', '/v1/chat/sessions/:session_id/messages', 'identity', { query: ['limit', 'message_id', 'unread_only', 'before'] }),
  r('POST', '/v1/chat/sessions/:session_id/messages', 'identity', {
    ...json('body', 'hang_on', 'leaving', 'reply_to', 'wait_seconds', 'message_id', 'timestamp'),
    longPoll: true,
  }),
  r('POST', '/v1/chat/sessions/:session_id/read', 'identity', json('up_to_message_id')),
  r('GET', '/v1/chat/sessions/:session_id/stream', 'identity', { sse: true, query: ['deadline', 'after'] }),
  r('GET', '/v1/contacts', 'identity'),
  r('POST', '/v1/contacts', 'identity', json('contact_address', 'label'), { seed: { contact_address: 'fuzz.test/carol', label: 'Carol' } }),
  r('DELETE', '/v1/contacts/:contact_id', 'identity'),
  r('POST', '/v1/agents/:alias/control', 'identity', json('signal')),
  // The team surface upstream's clients call: connect verifies its certificate in the route (no
  // valid one here).
  r('POST', '/v1/connect', 'didkey', json('hostname', 'workspace_path', 'repo_origin', 'role', 'human_name', 'agent_type')),
  r('GET', '/v1/team', 'identity'),
  r('GET', '/v1/agents', 'identity'),
  r('GET', '/v1/teams/:team_id/agents/:alias', 'identity'),
  r('POST', '/v1/agents/heartbeat', 'identity'),
  r('DELETE', '/v1/workspaces/:workspace_id', 'identity'),
  r('GET', '/v1/events/stream', 'identity', { sse: true, query: ['deadline', 'after'] }),
  r('POST', '/v1/events/subscriptions', 'identity', json('type', 'resource_ref', 'team_id'), { seed: { type: 'docs/doc.changed', resource_ref: 'fuzz-doc' } }),
  r('GET', '/v1/events/subscriptions', 'identity'),
  r('DELETE', '/v1/events/subscriptions/:subscription_id', 'identity'),
  r(
    'POST',
    '/v1/federation/messages',
    'none',
    json('from', 'to', 'from_did', 'to_domain', 'message_id', 'subject', 'body', 'timestamp', 'signature', 'signed_payload', 'payload', 'v'),
  ),
  r('POST', '/v1/federation/messages/batch', 'none', json('v', 'messages')),
  r('POST', '/mcp', 'identity', { ...json('jsonrpc', 'id', 'method', 'params'), mcp: true }),
  r('GET', '/mcp', 'identity', { mcp: true }),
  r('DELETE', '/mcp', 'identity', { mcp: true }),
  r('POST', '/mcp/', 'identity', { ...json('jsonrpc', 'id', 'method', 'params'), mcp: true }),
  r('GET', '/mcp/', 'identity', { mcp: true }),
  r('DELETE', '/mcp/', 'identity', { mcp: true }),

  // --- library ----------------------------------------------------------------------------------
  r('GET', '/v1/blueprints', 'none', { query: ['tags'] }),
  r('GET', '/v1/blueprints/:blueprint_ref', 'none', { query: ['version'] }),
  r('GET', '/v1/blueprints/:blueprint_ref/profiles/:profile_ref', 'none', { query: ['version'] }),
  r('POST', '/v1/blueprints/import', 'team-library', json('schema', 'files')),
  r('PUT', '/v1/blueprints/:blueprint_ref/tags', 'team-library', json('tags'), { seed: { tags: ['a', 'b'] } }),
  r('DELETE', '/v1/blueprints/:blueprint_ref', 'team-library', { query: ['version'] }),
  r('POST', '/v1/agents/:agent_id/profile-binding', 'team-library', json('profile_ref', 'profile_version', 'profile_digest', 'source_blueprint_ref')),
  r('GET', '/v1/agents/:agent_id/profile-binding', 'team-library'),
  r('GET', '/v1/search/library', 'team-library', SEARCH_QUERY),
  r('GET', '/v1/profile-bindings', 'team-library'),
  r('POST', '/v1/materialize', 'team-library', json('agent_id', 'runtime_kind', 'target', 'profile_ref'), {
    seed: { agent_id: 'agent-1', runtime_kind: 'claude-code', target: 'local' },
  }),
  r('POST', '/v1/team/register', 'team-library', json('owner', 'display_name'), { seed: { owner: 'fuzz', display_name: 'Fuzz' } }),
  r('GET', '/v1/shelf', 'team-library', { query: ['limit', 'after'] }),
  r('POST', '/v1/shelf/import', 'team-library', json('blueprint_ref', 'blueprint_version', 'profile_ref', 'profiles')),
  r('POST', '/v1/profiles', 'team-library', json('schema', 'files', 'tags')),
  r('GET', '/v1/profiles/:profile_ref', 'team-library', { query: ['include', 'version'] }),
  r('GET', '/v1/profiles/:profile_ref/versions', 'team-library'),
  r('POST', '/v1/profiles/:profile_ref/versions', 'team-library', json('schema', 'files')),
  r('POST', '/v1/profiles/:profile_ref/update-from-source', 'team-library', json('target_blueprint_ref', 'target_version', 'dry_run', 'new_blueprint')),
  r(
    'POST',
    '/v1/profiles/:profile_ref/publish',
    'team-library',
    json('blueprint_ref', 'version', 'name', 'summary', 'description', 'readme', 'missions', 'new_blueprint'),
  ),
  r('PUT', '/v1/profiles/:profile_ref/tags', 'team-library', json('tags')),
  r('DELETE', '/v1/profiles/:profile_ref', 'team-library'),
  r('POST', '/v1/proposals', 'team-library', json('target', 'profile_ref', 'content', 'summary', 'rationale'), {
    seed: {
      target: 'profile',
      profile_ref: 'fuzz-worker',
      content: { schema: CHANGESET_SCHEMA, assets: [{ path: 'profile.yaml#mission', content: 'x' }] },
      summary: 's',
    },
  }),
  r('GET', '/v1/proposals', 'team-library', { query: ['status', 'profile_ref'] }),
  r('GET', '/v1/proposals/:proposal_id', 'team-library'),
  r('POST', '/v1/proposals/:proposal_id/approve', 'team-library', { body: 'none' }),
  r('POST', '/v1/proposals/:proposal_id/reject', 'team-library', { body: 'none' }),

  // --- docs -------------------------------------------------------------------------------------
  r('POST', '/v1/documents', 'team-docs', json('slug', 'title', 'body', 'template'), { seed: { slug: 'fuzz-new', title: 'New', body: '# New\n' } }),
  r('GET', '/v1/documents', 'team-docs'),
  r('GET', '/v1/search/documents', 'team-docs', SEARCH_QUERY),
  r('GET', '/v1/documents/:slug', 'team-docs'),
  r('GET', '/v1/documents/:slug/versions', 'team-docs'),
  r('GET', '/v1/documents/:slug/versions/:n', 'team-docs'),
  r('POST', '/v1/documents/:slug/versions/template', 'team-docs', json('name', 'slots'), { seed: { name: 'memo', slots: { title: 'T' } } }),
  r('POST', '/v1/documents/:slug/versions', 'team-docs', { body: 'markdown' }),
  r('GET', '/v1/templates', 'team-docs'),
  r('GET', '/v1/templates/:name', 'team-docs'),
  r('GET', '/v1/billing', 'team-docs'),
  r('GET', '/v1/theme', 'team-docs'),
  r('PUT', '/v1/theme', 'team-docs', json('tokens', 'preset', 'logo', 'clear_logo', 'header', 'footer'), {
    seed: { tokens: { accent: '#112233' }, header: 'Head', footer: 'Foot' },
  }),
  r('POST', '/v1/assets', 'team-docs', json('content_type', 'data_base64'), { seed: { content_type: 'image/png', data_base64: PNG_B64 } }),
  r('POST', '/v1/assets/video/direct-upload', 'team-docs', json('content_type', 'filename', 'max_duration_seconds')),
  r('GET', '/v1/assets/:asset_id', 'team-docs'),
  r('GET', '/assets/:asset_id', 'none'),
  r('PUT', '/v1/assets/:asset_id/upload', 'upload-token', { body: 'raw', query: ['token'] }),
  r('POST', '/v1/present', 'team-docs', json('slug', 'version', 'ttl_seconds', 'editable'), { seed: { slug: 'fuzz-doc', ttl_seconds: 60, editable: false } }),
  r('POST', '/v1/present/:token/revoke', 'team-docs', { body: 'none', destructive: true }),
  r('GET', '/v1/present', 'team-docs'),
  r('POST', '/v1/present/preview', 'team-docs', json('body', 'theme'), { seed: { body: '# Preview\n![x](asset:none)', theme: { header: 'h' } } }),
  r('GET', '/present/:token', 'none', { htmlErrors: true }),
  r('GET', '/present/:token/state', 'none'),
  r('POST', '/present/:token/preview', 'none', json('body'), { seed: { body: '# Preview\n' } }),
  r('POST', '/present/:token/edit', 'none', json('body', 'base_version', 'editor_name'), {
    seed: { body: '# Edited\n', base_version: 1, editor_name: 'Fuzz' },
  }),

  // --- the built UI (not an API surface) -----------------------------------------------------------
  r('GET', '/ui/', 'none', { exempt: 'static UI: a 503 text placeholder by design when the UI is not built (test nodes run with uiDir null)' }),
  r('GET', '/ui', 'none', { exempt: 'static UI redirect, registered only when the UI is built' }),
  r('GET', '/ui/*', 'none', { exempt: "the built UI's files (@fastify/static), registered only when the UI is built" }),
  // The loopback root sends a browser to the UI.
  r('GET', '/', 'none'),

  // --- the API's description -------------------------------------------------------------------------
  r('GET', '/openapi.json', 'none'),
  r('GET', '/health', 'none'),
  ...['/docs/api', '/docs/api/static/index.html', '/docs/api/static/swagger-initializer.js', '/docs/api/json', '/docs/api/yaml', '/docs/api/static/*'].map(
    (path) => r('GET', path, 'none', { exempt: 'the API reference (Swagger UI): static files and the same document as /openapi.json' }),
  ),
];

export const routeKey = (route: { method: string; path: string }): string => `${route.method} ${route.path}`;

// ---------------------------------------------------------------------------------------------
// Fixtures: real credentials and ids, so that fuzzed requests also get past auth
// ---------------------------------------------------------------------------------------------

export interface Disposable {
  identityKey: string;
  agentId: string;
  member: TeamClient;
  presentToken: string;
}

export interface FuzzFixtures {
  t: TestNode;
  ownerToken: string;
  projectKey: string;
  projectId: string;
  /** An identity whose inbox, chat and contacts hold something. */
  identityKey: string;
  agentId: string;
  alias: string;
  member: TeamClient;
  /** What destructive routes may act on; replaced when one of them succeeds. */
  victim: Disposable;
  /** Known-good values per path or query parameter name. */
  pools: Record<string, string[]>;
  uploadToken: string;
}

const ok = (what: string, res: { status: number; body: any }, ...statuses: number[]): any => {
  if (!(statuses.length ? statuses : [200, 201]).includes(res.status)) throw new Error(`fuzz fixture ${what}: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body;
};

const DOMAIN = 'fuzz.test';
const PNG = Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), Buffer.from('rest of a png')]);
let victims = 0;

async function makeVictim(t: TestNode, projectKey: string, member: TeamClient): Promise<Disposable> {
  const n = ++victims;
  const identity = await createIdentity(t, projectKey, { alias: `victim-${n}` });
  const victimMember = await addTeamMember(t, { teamId: member.teamId, alias: `victim-${n}`, scopes: ['docs:read', 'docs:write'] });
  const link = ok('victim link', await member.request('POST', '/v1/present', { aud: t.node.info.docs_url, body: { slug: 'fuzz-doc' } }), 201);
  return { identityKey: identity.api_key, agentId: identity.agent_id, member: victimMember, presentToken: link.token };
}

export async function setupFuzzFixtures(t: TestNode): Promise<FuzzFixtures> {
  await createNodeNamespace(t, DOMAIN);
  const project = await createProject(t, 'fuzz', DOMAIN);
  const alice = await createIdentity(t, project.api_key, { alias: 'alice' });
  const bob = await createIdentity(t, project.api_key, { alias: 'bob' });
  const docs = t.node.info.docs_url;

  // Mail and chat between the two, so inboxes and sessions hold something.
  const bearer = (token: string) => ({ token });
  ok('mail', await t.request('POST', '/v1/messages', { ...bearer(bob.api_key), body: { to_alias: 'alice', subject: 'hi', body: 'hello' } }));
  const inbox = ok('inbox', await t.request('GET', '/v1/messages/inbox', bearer(alice.api_key)));
  const messageId: string = (inbox.messages ?? inbox)[0]?.message_id ?? 'none';
  const chat = ok('chat', await t.request('POST', '/v1/chat/sessions', { ...bearer(alice.api_key), body: { to_aliases: ['bob'], message: 'hi' } }));
  const contact = await t.request('POST', '/v1/contacts', { ...bearer(alice.api_key), body: { contact_address: `${DOMAIN}/bob`, label: 'Bob' } });
  const subscription = await t.request('POST', '/v1/events/subscriptions', { ...bearer(alice.api_key), body: { type: 'docs/doc.changed' } });

  // Every scope, so each library and document route gets past its scope check to the input.
  const member = await addTeamMember(t, { team: 'fuzz', domain: DOMAIN, alias: 'fuzzer', scopes: ALL_SCOPES });
  ok('doc', await member.request('POST', '/v1/documents', { aud: docs, body: { slug: 'fuzz-doc', title: 'Fuzz', body: '# Fuzz\n' } }), 201);
  const link = ok('link', await member.request('POST', '/v1/present', { aud: docs, body: { slug: 'fuzz-doc', editable: true } }), 201);
  const image = ok(
    'image',
    await member.request('POST', '/v1/assets', { aud: docs, body: { content_type: 'image/png', data_base64: PNG.toString('base64') } }),
    201,
  );
  const video = ok('video', await member.request('POST', '/v1/assets/video/direct-upload', { aud: docs, body: { content_type: 'video/mp4' } }), 201);
  const uploadToken = new URL(video.upload_url as string).searchParams.get('token') ?? '';

  ok('profile', await member.request('POST', '/v1/profiles', { body: { files: profileFiles({ ref: 'fuzz-worker' }) } }), 201);
  ok(
    'blueprint',
    await member.request('POST', '/v1/blueprints/import', { body: blueprintPayload({ ref: 'fuzz.team', profiles: [{ ref: 'fuzz-lead' }] }) }),
    201,
  );
  const profile = ok('profile read', await member.request('GET', '/v1/profiles/fuzz-worker?include=files'));
  const digest = (profile.proposal_asset_digests ?? {})['profile.yaml#mission'];
  const proposal = await member.request('POST', '/v1/proposals', {
    body: {
      target: 'profile',
      profile_ref: 'fuzz-worker',
      content: { schema: CHANGESET_SCHEMA, assets: [{ path: 'profile.yaml#mission', content: 'Sharper.', base_asset_digest: digest }] },
    },
  });

  const victim = await makeVictim(t, project.api_key, member);
  const invite = ok('invite', await t.owner('POST', `/v1/node/teams/${encodeURIComponent(member.teamId)}/invites`, { alias: 'fuzz-invitee' }), 201);
  const pools: Record<string, string[]> = {
    agent_id: [alice.agent_id, bob.agent_id],
    team_id: [member.teamId, `fuzz:${DOMAIN}`],
    certificate_id: [member.certificateId],
    invite_id: [invite.invite_id],
    domain: [DOMAIN],
    namespace: [DOMAIN],
    name: ['alice', 'bob', 'memo', 'status-report'],
    alias: ['alice', 'bob'],
    did_aw: [alice.did_aw ?? 'did:svc:0000', bob.did_aw ?? 'did:svc:0001'],
    message_id: [messageId],
    session_id: [chat.session_id ?? 'none'],
    contact_id: [contact.body?.contact_id ?? 'none'],
    subscription_id: [subscription.body?.subscription_id ?? 'none'],
    blueprint_ref: ['fuzz.team'],
    profile_ref: ['fuzz-worker', 'fuzz-lead'],
    proposal_id: [proposal.body?.proposal_id ?? '00000000-0000-4000-8000-000000000000'],
    slug: ['fuzz-doc'],
    n: ['1', '2'],
    token: [link.token],
    asset_id: [image.asset_id, video.asset_id],
    upload_token: [uploadToken],
    // Query parameters.
    deadline: [new Date(Date.now() + 86_400_000).toISOString()],
    after: ['2020-01-01T00:00:00Z'],
    version: ['1.0.0', '0.1.0'],
    include: ['files'],
    status: ['open', 'approved', 'rejected'],
    limit: ['1', '50'],
    unread_only: ['true', '0'],
    folder: ['inbox', 'archive'],
    before: ['2020-01-01T00:00:00Z'],
    controller_did: [testKey().didKey],
    tags: ['a', 'a,b'],
    q: ['hello', 'contr*', '"fuzz doc"', 'a OR b', 'x -y'],
    type: ['mail', 'mail,chat', 'document', 'profile,blueprint'],
    from: ['bob', `${DOMAIN}/bob`],
    to: ['alice'],
    unread: ['true'],
    sort: ['relevance', 'recent'],
  };
  return {
    t,
    ownerToken: t.node.ownerToken,
    projectKey: project.api_key,
    projectId: project.project_id,
    identityKey: alice.api_key,
    agentId: alice.agent_id,
    alias: 'alice',
    member,
    victim,
    pools,
    uploadToken,
  };
}

// ---------------------------------------------------------------------------------------------
// Arbitraries
// ---------------------------------------------------------------------------------------------

/** Strings that tend to break things: odd Unicode, control characters, path and injection tricks. */
export const NASTY_STRINGS = [
  '',
  ' ',
  '\u0000',
  'a\u0000b',
  '\u202e\u202dgnp.exe',
  '\u200f\u200e',
  '\ufeff',
  '\ud800',
  '\udfff',
  '\ud83d',
  '😀👩‍👩‍👧‍👦🏳️‍🌈',
  'Z̴̡̧̛̝̱͎͉̖̏̈́͊̈́a̷̢̛̜̘̹̐͋̌̈́l̶̢̨̟̗̝̍̏̀̕g̵̛͇̲̪͎̓̆͑o̸̡̜̲̻̎̋̽̒',
  '\u0301',
  'İ',
  'ﬀ',
  '𝕒𝕓𝕔',
  '\r\n',
  '../../etc/passwd',
  '..',
  '.',
  '%2e%2e',
  '%00',
  '%ZZ',
  '\\',
  '<script>alert(1)</script>',
  "' OR 1=1 --",
  '${7*7}',
  '{{7*7}}',
  '__proto__',
  'constructor',
  'prototype',
  'hasOwnProperty',
  'toString',
  'NaN',
  'Infinity',
  '-0',
  '1e400',
  'null',
  'true',
  'did:key:z',
  'did:svc:',
  'sha256:',
  'svc_sk_',
  'a'.repeat(257),
  'a'.repeat(5000),
];

/** Values of every JSON type, including the ones schemas do not expect. */
export function anyJsonValue(maxDepth = 3): fc.Arbitrary<unknown> {
  const leaf = fc.oneof(
    { weight: 3, arbitrary: fc.string({ maxLength: 40 }) },
    { weight: 3, arbitrary: fc.constantFrom(...NASTY_STRINGS) },
    { weight: 2, arbitrary: fc.string({ unit: 'binary', maxLength: 30 }) },
    { weight: 1, arbitrary: fc.string({ unit: 'grapheme', maxLength: 20 }) },
    { weight: 2, arbitrary: fc.integer() },
    { weight: 2, arbitrary: fc.constantFrom(0, -1, 1, 2 ** 31, 2 ** 53, -(2 ** 53), Number.MAX_SAFE_INTEGER + 2, 1e308, -1e308, 0.5, 1e-300) },
    { weight: 1, arbitrary: fc.double({ noNaN: true, noDefaultInfinity: true }) },
    { weight: 2, arbitrary: fc.boolean() },
    { weight: 2, arbitrary: fc.constant(null) },
    { weight: 1, arbitrary: fc.uuid() },
    { weight: 1, arbitrary: fc.date({ noInvalidDate: true, min: new Date(-8.64e15 + 1), max: new Date(8.64e15 - 1) }).map((d) => d.toISOString()) },
  );
  return fc.letrec<{ value: unknown }>((tie) => ({
    value: fc.oneof(
      { depthSize: 'small', maxDepth, withCrossShrink: true },
      { weight: 6, arbitrary: leaf },
      { weight: 1, arbitrary: fc.array(tie('value'), { maxLength: 4 }) },
      {
        weight: 1,
        arbitrary: fc.dictionary(fc.oneof(fc.string({ maxLength: 12 }), fc.constantFrom('__proto__', 'constructor', 'prototype')), tie('value'), {
          maxKeys: 4,
        }),
      },
    ),
  })).value;
}

const GLOBAL_FIELDS = [
  'address',
  'alias',
  'backup',
  'base_version',
  'blueprint_ref',
  'body',
  'caps',
  'code',
  'contact_address',
  'content',
  'content_type',
  'controller_did',
  'data_base64',
  'did_aw',
  'did_key',
  'display_name',
  'domain',
  'dry_run',
  'editable',
  'files',
  'host',
  'id',
  'label',
  'lifetime',
  'message',
  'method',
  'name',
  'namespace',
  'operation',
  'passphrase',
  'path',
  'port',
  'priority',
  'profile_ref',
  'project_id',
  'proof',
  'schema',
  'scopes',
  'seq',
  'signal',
  'signature',
  'slug',
  'subject',
  'summary',
  'tags',
  'target',
  'template',
  'timestamp',
  'title',
  'to_alias',
  'to_aliases',
  'token',
  'type',
  'version',
];

/** A body in the shape the route wants (JSON object with its own field names) but values of any type. */
function fieldObject(route: RouteSpec): fc.Arbitrary<unknown> {
  const names = [...new Set([...(route.fields ?? []), ...GLOBAL_FIELDS])];
  const own = route.fields?.length ? fc.constantFrom(...route.fields) : fc.constantFrom(...GLOBAL_FIELDS);
  const key = fc.oneof(
    { weight: 6, arbitrary: own },
    { weight: 1, arbitrary: fc.constantFrom(...names) },
    { weight: 1, arbitrary: fc.string({ maxLength: 10 }) },
  );
  return fc.dictionary(key, anyJsonValue(), { maxKeys: 8 });
}

/** Nesting a recursive walker must survive: arrays or objects, thousands of levels deep. */
const deepNesting = fc
  .record({ depth: fc.constantFrom(100, 1_000, 5_000, 10_000, 50_000), kind: fc.constantFrom('array', 'object') })
  .map(({ depth, kind }) => (kind === 'array' ? '['.repeat(depth) + ']'.repeat(depth) : '{"a":'.repeat(depth) + '1' + '}'.repeat(depth)));

/** JSON text that is not JSON. */
const malformedJson = fc.oneof(
  fc.constantFrom(
    '{',
    '}',
    '{"a":}',
    '{"a":1,}',
    '[1,2,]',
    '{"a":1 /* comment */}',
    '// comment\n{}',
    '{"a":NaN}',
    '{"a":Infinity}',
    '{"a":-Infinity}',
    "{'a':1}",
    '{a:1}',
    '{"a":"\\x41"}',
    '{"a":"\\u12"}',
    '{"a":"unterminated}',
    '\ufeff{}',
    '{"a":1}{"b":2}',
    '{"a":01}',
    '{"a":.5}',
    '{"a":1e}',
    'undefined',
    'NaN',
    '"\\ud800"',
    '\u0000',
    '{"a":"\u0000"}',
    '{"__proto__":{"polluted":"yes"}}',
    '{"constructor":{"prototype":{"polluted":"yes"}}}',
    '{"a":1,"a":2}',
    '[]',
    '""',
    '0',
    '-0',
    '1e999',
    'true',
    'null',
  ),
  fc.json().map((text) => text.slice(0, Math.max(0, text.length - 1))),
  fc.json().chain((text) => fc.nat({ max: Math.max(0, text.length) }).map((cut) => text.slice(0, cut))),
);

const hugeString = (bytes: number): string => 'x'.repeat(bytes);
const DEEP_MARK = '\u0000deep\u0000';

/** A body: text plus the content type it is sent with. */
export interface BodySpec {
  text: string | Buffer | null;
  contentType: string | null;
  label: string;
}

const JSON_TYPES = ['application/json', 'application/json; charset=utf-8'];
const ODD_TYPES = [
  'text/plain',
  'text/markdown; charset=utf-8',
  'text/markdown; charset=latin1',
  'text/html',
  'application/x-www-form-urlencoded',
  'multipart/form-data; boundary=x',
  'application/json; charset=utf-16',
  'application/jsonx',
  'application/octet-stream',
  'image/png',
  'video/mp4',
  '*/*',
  '',
  ';;;',
  'application/json;;',
  'APPLICATION/JSON',
  'text/markdown',
];

/** `value` as JSON text; JSON.stringify answers undefined (though typed string) for undefined, a function or a symbol, written here as null. */
const jsonOf = (value: unknown): string => (JSON.stringify(value) as string | undefined) ?? 'null';

function bodyArb(route: RouteSpec): fc.Arbitrary<BodySpec> {
  const contentType = (wanted: readonly string[]): fc.Arbitrary<string | null> =>
    fc.oneof(
      { weight: 8, arbitrary: fc.constantFrom(...wanted) },
      { weight: 2, arbitrary: fc.constantFrom(...ODD_TYPES) },
      { weight: 1, arbitrary: fc.constant(null) },
    );
  const wanted =
    route.body === 'markdown' ? ['text/markdown; charset=utf-8', 'text/markdown'] : route.body === 'raw' ? ['video/mp4', 'video/webm'] : JSON_TYPES;
  const ct = contentType(wanted);
  const jsonText = (value: fc.Arbitrary<unknown>, label: string) => fc.record({ text: value.map(jsonOf), contentType: ct, label: fc.constant(label) });
  const textBody = (text: fc.Arbitrary<string>, label: string) => fc.record({ text, contentType: ct, label: fc.constant(label) });
  const weight = (w: number, arbitrary: fc.Arbitrary<BodySpec>) => ({ weight: w, arbitrary });
  const markdownish = route.body === 'markdown' || route.body === 'raw';
  const seed = route.seed;
  const mutated: fc.Arbitrary<BodySpec> = seed
    ? fc
        .record({
          key: fc.constantFrom(...Object.keys(seed), '__proto__', 'extra'),
          op: fc.constantFrom('replace', 'replace', 'replace', 'delete', 'deep', 'huge', 'nasty', 'as-is'),
          value: anyJsonValue(),
          nasty: fc.constantFrom(...NASTY_STRINGS),
          contentType: ct,
        })
        .map(({ key, op, value, nasty, contentType }): BodySpec => {
          const body: Record<string, unknown> = { ...seed };
          if (op === 'delete') delete body[key];
          else if (op === 'replace') body[key] = value;
          else if (op === 'nasty') body[key] = nasty;
          else if (op === 'huge') body[key] = hugeString(300_000);
          else if (op === 'deep') body[key] = DEEP_MARK;
          let text =
            key === '__proto__' && op !== 'delete' && op !== 'as-is'
              ? JSON.stringify(body).replace(/^\{/, `{"__proto__":${jsonOf(value)},`)
              : JSON.stringify(body);
          // Spliced in as text: JSON.stringify itself would overflow the stack on it.
          if (op === 'deep') text = text.replace(JSON.stringify(DEEP_MARK), '['.repeat(20_000) + '{}' + ']'.repeat(20_000));
          return { text, contentType, label: `seed ${op}` };
        })
    : fc.constant({ text: null, contentType: null, label: 'no body' });
  return fc.oneof(
    weight(seed ? 12 : 0, mutated),
    weight(route.body === 'none' ? 6 : 1, fc.constant({ text: null, contentType: null, label: 'no body' })),
    weight(markdownish ? 1 : 10, jsonText(fieldObject(route), 'fields of any type')),
    weight(3, jsonText(anyJsonValue(), 'any JSON value')),
    weight(3, textBody(malformedJson, 'malformed JSON')),
    weight(1, textBody(deepNesting, 'deep nesting')),
    weight(
      1,
      fc.record({
        text: fieldObject(route).map((o) =>
          JSON.stringify({ nested: o, deep: DEEP_MARK }).replace(JSON.stringify(DEEP_MARK), '{"a":'.repeat(10_000) + '[]' + '}'.repeat(10_000)),
        ),
        contentType: ct,
        label: fc.constant('deep field'),
      }),
    ),
    weight(markdownish ? 6 : 1, textBody(fc.oneof(fc.string({ unit: 'binary', maxLength: 200 }), fc.constantFrom(...NASTY_STRINGS)), 'odd text')),
    weight(
      1,
      fc.record({
        text: fc.uint8Array({ maxLength: 64 }).map((bytes) => Buffer.from(bytes)),
        contentType: ct,
        label: fc.constant('random bytes'),
      }),
    ),
    weight(
      1,
      fc.record({
        text: fc.constantFrom(
          Buffer.from([0xff, 0xfe, 0x7b, 0x7d]),
          Buffer.from([0xc3, 0x28]),
          Buffer.from('{"a":"\xff"}', 'latin1'),
          Buffer.from([0xed, 0xa0, 0x80]),
        ),
        contentType: ct,
        label: fc.constant('invalid UTF-8'),
      }),
    ),
    weight(
      1,
      fc.record({
        text: fc
          .constantFrom(BODY_LIMIT_BYTES - 64, BODY_LIMIT_BYTES + 1, BODY_LIMIT_BYTES + 4096, 300_000, 70 * 1024)
          .chain((size) =>
            fc.constantFrom(
              JSON.stringify({ body: hugeString(size) }),
              JSON.stringify({ slug: 'fuzz-doc', title: 'x', body: hugeString(size) }),
              hugeString(size),
            ),
          ),
        contentType: ct,
        label: fc.constant('huge'),
      }),
    ),
  );
}

/** A path parameter's raw text, as it appears in the request target. */
/** Lone surrogates (which encodeURIComponent refuses) as U+FFFD; pairs stay. */
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;
const enc = (s: string): string => encodeURIComponent(s.replace(LONE_SURROGATE, '\ufffd'));

/** A pool by name (own keys only: a query parameter may be called `__proto__`). */
const poolOf = (pools: Record<string, string[]>, name: string): string[] => (Object.hasOwn(pools, name) ? (pools[name] ?? []) : []);

function segmentArb(name: string, pools: Record<string, string[]>): fc.Arbitrary<string> {
  const good = poolOf(pools, name);
  return fc.oneof(
    { weight: good.length ? 6 : 0, arbitrary: good.length ? fc.constantFrom(...good.map(enc)) : fc.constant('x') },
    { weight: 2, arbitrary: fc.string({ maxLength: 30 }).map(enc) },
    { weight: 2, arbitrary: fc.constantFrom(...NASTY_STRINGS).map((s) => (/^[\x21-\x7e]*$/.test(s) ? s : enc(s))) },
    {
      weight: 2,
      arbitrary: fc.constantFrom(
        '..',
        '.',
        '%2e%2e',
        '%2E%2E%2F%2E%2E',
        '..%2f..%2fetc%2fpasswd',
        '%00',
        'a%00b',
        '%ZZ',
        '%',
        '%e2%80%ae',
        '%ed%a0%80',
        '%c0%ae%c0%ae',
        '%ff',
        '%F0%9F%98%80',
        '%2F',
        ';',
        'a;b=c',
        '~',
        '@',
        ':',
        '%3A',
        '*',
        'a'.repeat(513),
        'a'.repeat(4096),
        'fuzz-doc%00',
        'fuzz-doc%2F..',
        '00000000-0000-0000-0000-000000000000',
        'did:svc:' + 'z'.repeat(40),
      ),
    },
    { weight: 1, arbitrary: fc.string({ unit: 'binary', maxLength: 20 }).map(enc) },
    // Lone surrogates, percent-encoded as the CESU bytes a sloppy client would send.
    { weight: 1, arbitrary: fc.constantFrom('%ED%A0%BD', '%ED%B2%A9', 'x%ED%A0%80y') },
    // Raw Latin-1 bytes (invalid UTF-8 on the wire).
    { weight: 1, arbitrary: fc.constantFrom('\u00e9', 'caf\u00e9', '\u00ff\u00fe') },
    { weight: 1, arbitrary: good.length ? fc.constantFrom(...good).map((g) => enc(g.toUpperCase())) : fc.constant('X') },
  );
}

const QUERY_NAMES = [
  'limit',
  'deadline',
  'after',
  'before',
  'token',
  'version',
  'include',
  'status',
  'tags',
  'unread_only',
  'message_id',
  'controller_did',
  'q',
];

function queryArb(route: RouteSpec, pools: Record<string, string[]>): fc.Arbitrary<string> {
  const names = [...new Set([...(route.query ?? []), ...QUERY_NAMES])];
  const value = (name: string): fc.Arbitrary<string> => {
    const pool = poolOf(pools, name === 'token' && route.auth === 'upload-token' ? 'upload_token' : name);
    return fc.oneof(
      { weight: pool.length ? 4 : 0, arbitrary: pool.length ? fc.constantFrom(...pool) : fc.constant('') },
      { weight: 2, arbitrary: fc.string({ maxLength: 20 }) },
      {
        weight: 2,
        arbitrary: fc.constantFrom(...NASTY_STRINGS, '-1', '0', '99999999999999999999', '1.5', 'true', '[]', '{}', '2999-01-01T00:00:00Z', 'not-a-date'),
      },
    );
  };
  const pair = fc
    .oneof(
      { weight: 4, arbitrary: route.query?.length ? fc.constantFrom(...route.query) : fc.constantFrom(...names) },
      { weight: 1, arbitrary: fc.constantFrom(...names, '__proto__', 'constructor', 'a[b]', 'a[]', '') },
    )
    .chain((name) => value(name).map((v) => `${enc(name)}=${enc(v)}`));
  return fc.oneof(
    { weight: 4, arbitrary: fc.constant('') },
    { weight: 6, arbitrary: fc.array(pair, { minLength: 1, maxLength: 5 }).map((pairs) => `?${pairs.join('&')}`) },
    // Repeated keys, raw junk, huge.
    { weight: 1, arbitrary: fc.constantFrom(...names).map((n) => `?${n}=1&${n}=2&${n}[]=3`) },
    {
      weight: 1,
      arbitrary: fc.constantFrom('?', '?&&&', '?=', '?a', '?%ZZ=1', '?a=%ZZ', '?a=%00', '?__proto__[x]=1', '?constructor[prototype][x]=1', '?limit=1#frag'),
    },
    { weight: 1, arbitrary: fc.constantFrom(2_000, 9_000, 60_000).map((n) => `?q=${'a'.repeat(n)}`) },
  );
}

/** How a request authenticates. Resolved against the fixtures when it is sent. */
export type AuthSpec =
  | { kind: 'none' }
  | { kind: 'bearer'; who: 'owner' | 'project' | 'identity' }
  | { kind: 'raw-authorization'; value: string }
  | { kind: 'team'; mode: 'valid' | 'wrong-key' | 'replay' | 'wrong-aud' | 'stale' | 'future' | 'tamper'; tamper: { header: number; how: number } }
  | { kind: 'team-forged'; headers: Record<string, string> };

const junkBase64 = fc.oneof(
  fc.base64String({ maxLength: 200 }),
  fc.base64String({ maxLength: 200 }).map((s) => s.slice(0, Math.max(0, s.length - 3))),
  fc.string({ maxLength: 60 }),
  fc.constantFrom('', '=', '====', '!!!!', Buffer.from('{"certificate_id":"x"}').toString('base64'), Buffer.from('null').toString('base64'), 'e30'),
);

const headerSafe = (s: string): string => s.replace(/[^\t\x20-\x7e]/g, '?');

function authArb(route: RouteSpec): fc.Arbitrary<AuthSpec> {
  const valid: fc.Arbitrary<AuthSpec>[] = [];
  if (['owner', 'owner-or-project'].includes(route.auth)) valid.push(fc.constant({ kind: 'bearer', who: 'owner' } as const));
  if (['project', 'owner-or-project'].includes(route.auth)) valid.push(fc.constant({ kind: 'bearer', who: 'project' } as const));
  if (route.auth === 'identity') valid.push(fc.constant({ kind: 'bearer', who: 'identity' } as const));
  const tamper = fc.record({ header: fc.nat({ max: 3 }), how: fc.nat({ max: 5 }) });
  const team = (mode: 'valid' | 'wrong-key' | 'replay' | 'wrong-aud' | 'stale' | 'future' | 'tamper') =>
    tamper.map((t) => ({ kind: 'team', mode, tamper: t }) as AuthSpec);
  if (route.auth === 'team-library' || route.auth === 'team-docs') valid.push(team('valid'));
  const rawAuth = fc
    .oneof(
      fc.constantFrom(
        'Bearer',
        'Bearer ',
        'Bearer  x',
        'Bearer a b',
        'bearer svc_sk_' + '0'.repeat(64),
        'Bearer svc_sk_' + '0'.repeat(64),
        'Bearer svc_sk_' + 'g'.repeat(64),
        'Bearer svc_sk_' + '0'.repeat(63),
        'Bearer svc_sk_' + '0'.repeat(65),
        'Bearer svc_sk_',
        'Basic YWRtaW46YWRtaW4=',
        'DIDKey',
        'DIDKey did:key:z6Mk junk',
        'DIDKey did:key:zzzz !!!!',
        'DIDKey a b c',
        'Bearer ' + 'a'.repeat(10_000),
        'Bearer null',
        'Bearer undefined',
      ),
      fc.string({ unit: fc.constantFrom(...'0123456789abcdef'), maxLength: 70 }).map((h) => `Bearer svc_sk_${h}`),
      fc.string({ maxLength: 80 }).map((s) => `Bearer ${s}`),
      fc.tuple(fc.string({ maxLength: 60 }), junkBase64).map(([k, s]) => `DIDKey did:key:z${k} ${s}`),
      fc.string({ maxLength: 100 }),
    )
    .map((value) => ({ kind: 'raw-authorization', value: headerSafe(value) }) as AuthSpec);
  const forged = fc
    .record({
      authorization: fc.oneof(
        fc.tuple(fc.constantFrom(testKey().didKey, 'did:key:z6Mkjunk'), junkBase64).map(([d, s]) => `DIDKey ${d} ${s}`),
        fc.string({ maxLength: 40 }),
      ),
      'x-svc-timestamp': fc.oneof(
        fc.constantFrom(new Date().toISOString().replace(/\.\d+Z$/, 'Z'), '2020-01-01T00:00:00Z', '9999-12-31T23:59:59Z', 'yesterday', ''),
        fc.string({ maxLength: 30 }),
      ),
      'x-svc-signed-payload': junkBase64,
      'x-svcid-team-certificate': junkBase64,
    })
    .map((headers) => ({ kind: 'team-forged', headers: Object.fromEntries(Object.entries(headers).map(([k, v]) => [k, headerSafe(v)])) }) as AuthSpec);
  const others: fc.Arbitrary<AuthSpec>[] = [
    fc.constant({ kind: 'none' } as const),
    rawAuth,
    forged,
    fc.constantFrom<AuthSpec>({ kind: 'bearer', who: 'owner' }, { kind: 'bearer', who: 'project' }, { kind: 'bearer', who: 'identity' }),
    team('wrong-key'),
    team('replay'),
    team('wrong-aud'),
    team('stale'),
    team('future'),
    team('tamper'),
    team('valid'),
  ];
  return fc.oneof(
    { weight: valid.length ? 6 : 0, arbitrary: valid.length ? fc.oneof(...valid) : fc.constant({ kind: 'none' } as const) },
    { weight: 4, arbitrary: fc.oneof(...others) },
  );
}

/** Extra headers: forged Host and Origin, junk in the headers the node reads. */
const extraHeadersArb: fc.Arbitrary<Record<string, string>> = fc.oneof(
  { weight: 12, arbitrary: fc.constant<Record<string, string>>({}) },
  {
    weight: 1,
    arbitrary: fc.constantFrom<Record<string, string>>(
      { host: 'evil.example' },
      { host: '127.0.0.1:1' },
      { origin: 'http://evil.example' },
      { origin: 'null' },
    ),
  },
  {
    weight: 1,
    arbitrary: fc
      .record({
        name: fc.constantFrom('x-svc-timestamp', 'x-forwarded-for', 'accept', 'accept-encoding', 'x-svcid-team-certificate', 'mcp-session-id', 'last-event-id'),
        value: fc.string({ maxLength: 60 }),
      })
      .map(({ name, value }) => ({ [name]: headerSafe(value) })),
  },
);

/** One generated request, before it is resolved against the fixtures. */
export interface FuzzCase {
  route: RouteSpec;
  method: string;
  /** Request target: path with raw parameter text, and query. */
  target: string;
  body: BodySpec;
  auth: AuthSpec;
  headers: Record<string, string>;
}

/** Destructive routes aim at the disposable fixtures: placeholders filled in when a case is sent. */
const VICTIM_POOLS: Record<string, string[]> = { agent_id: ['VICTIM_agent_id'], certificate_id: ['VICTIM_certificate_id'], token: ['VICTIM_token'] };

export function fuzzCaseArb(routes: readonly RouteSpec[], allPools: Record<string, string[]>): fc.Arbitrary<FuzzCase> {
  return fc.constantFrom(...routes).chain((route) => {
    const pools = route.destructive ? { ...allPools, ...VICTIM_POOLS } : allPools;
    const names = [...route.path.matchAll(/:(\w+)/g)].map((m) => m[1]!);
    const segments = fc.tuple(...names.map((n) => segmentArb(n, pools)));
    const pathVariant = fc.oneof(
      { weight: 12, arbitrary: fc.constant((p: string) => p) },
      {
        weight: 1,
        arbitrary: fc.constantFrom(
          (p: string) => `${p}/`,
          (p: string) => p.replace(/^\/v1\//, '//v1/'),
          (p: string) => `/v1/..${p}`,
          (p: string) => p.replace(/\/([^/]+)$/, '/./$1'),
          (p: string) => p.toUpperCase(),
          (p: string) => p.replace(/\//g, '%2F'),
        ),
      },
    );
    const method = fc.oneof(
      { weight: 20, arbitrary: fc.constant(route.method) },
      { weight: 1, arbitrary: fc.constantFrom('HEAD', 'OPTIONS', 'PATCH', 'PUT', 'DELETE', 'TRACE', 'FOO') },
    );
    return fc
      .record({ segments, pathVariant, query: queryArb(route, pools), body: bodyArb(route), auth: authArb(route), headers: extraHeadersArb, method })
      .map(({ segments, pathVariant, query, body, auth, headers, method }): FuzzCase => {
        let i = 0;
        const path = route.path.replace(/:(\w+)/g, () => segments[i++] ?? '');
        return { route, method, target: pathVariant(path) + query, body, auth, headers };
      });
  });
}

// ---------------------------------------------------------------------------------------------
// Sending
// ---------------------------------------------------------------------------------------------

export interface RawResponse {
  status: number;
  headers: IncomingHttpHeaders;
  text: string;
  timedOut: boolean;
  /** A stream the runner closed once its headers arrived. */
  streamed: boolean;
}

const agent = new Agent({ keepAlive: true, maxSockets: 4 });
const MAX_READ = 1024 * 1024;

/** Characters node:http refuses in a request target, percent-encoded (everything else goes raw). */
const safeTarget = (target: string): string =>
  [...target].map((c) => (c.charCodeAt(0) <= 0x20 || c.charCodeAt(0) === 0x7f || c.codePointAt(0)! > 0xff ? enc(c) : c)).join('');

export function sendRaw(
  baseUrl: string,
  method: string,
  target: string,
  headers: Record<string, string>,
  body: string | Buffer | null,
  timeoutMs: number,
): Promise<RawResponse> {
  const url = new URL(baseUrl);
  return new Promise((resolve, reject) => {
    let settled = false;
    const done = (value: RawResponse) => {
      if (!settled) {
        settled = true;
        clearTimeout(timer);
        resolve(value);
      }
    };
    const req = httpRequest({ host: url.hostname, port: url.port, method, path: safeTarget(target), headers, agent }, (res) => {
      const type = String(res.headers['content-type'] ?? '');
      if (type.startsWith('text/event-stream')) {
        res.destroy();
        done({ status: res.statusCode ?? 0, headers: res.headers, text: '', timedOut: false, streamed: true });
        return;
      }
      const chunks: Buffer[] = [];
      let size = 0;
      res.on('data', (chunk: Buffer) => {
        size += chunk.length;
        if (size <= MAX_READ) chunks.push(chunk);
      });
      res.on('end', () =>
        done({ status: res.statusCode ?? 0, headers: res.headers, text: Buffer.concat(chunks).toString('utf8'), timedOut: false, streamed: false }),
      );
      res.on('error', (error) => (settled ? undefined : reject(error)));
    });
    const timer = setTimeout(() => {
      req.destroy();
      done({ status: 0, headers: {}, text: '', timedOut: true, streamed: false });
    }, timeoutMs);
    req.on('error', (error: Error & { code?: string }) => {
      if (settled) return;
      clearTimeout(timer);
      settled = true;
      reject(error);
    });
    if (body !== null) req.end(body);
    else req.end();
  });
}

/** The concrete headers and body of a case, with credentials filled in. */
function resolveCase(c: FuzzCase, fx: FuzzFixtures): { target: string; headers: Record<string, string>; body: string | Buffer | null } {
  const headers: Record<string, string> = {};
  const target = c.target
    .replaceAll('VICTIM_agent_id', fx.victim.agentId)
    .replaceAll('VICTIM_certificate_id', fx.victim.member.certificateId)
    .replaceAll('VICTIM_token', fx.victim.presentToken);
  const body = c.body.text;
  if (body !== null && c.body.contentType !== null) headers['content-type'] = c.body.contentType;
  // Framed explicitly: node:http sends a DELETE's or HEAD's body unframed, which the server rightly
  // reads as a second (malformed) request after a bodiless one.
  if (body !== null) headers['content-length'] = String(Buffer.byteLength(body));
  const useVictim = c.route.destructive === true;
  const a: AuthSpec =
    c.route.refuseOnly && (c.auth.kind === 'bearer' || c.auth.kind === 'team')
      ? { kind: 'raw-authorization', value: 'Bearer svc_sk_' + '0'.repeat(64) }
      : c.auth;
  if (a.kind === 'bearer') {
    const token = a.who === 'owner' ? fx.ownerToken : a.who === 'project' ? fx.projectKey : useVictim ? fx.victim.identityKey : fx.identityKey;
    // The owner's token works on every owner route; destructive ones only get it when aimed at the victim.
    headers.authorization = `Bearer ${token}`;
  } else if (a.kind === 'raw-authorization') {
    headers.authorization = a.value;
  } else if (a.kind === 'team-forged') {
    Object.assign(headers, a.headers);
  } else if (a.kind === 'team') {
    const member = useVictim ? fx.victim.member : fx.member;
    const aud = a.mode === 'wrong-aud' ? 'http://evil.example' : c.route.auth === 'team-docs' ? fx.t.node.info.docs_url : fx.t.node.info.library_url;
    const now = Date.now();
    const at = a.mode === 'stale' ? now - 3_600_000 : a.mode === 'future' ? now + 3_600_000 : now;
    const timestamp = new Date(at).toISOString().replace(/\.\d{3}Z$/, 'Z');
    const signer = a.mode === 'wrong-key' ? privateKeyFromSeed(randomBytes(32)) : privateKeyFromSeed(member.key.seed);
    const signed = buildTeamHeaders({
      method: c.method,
      path: safeTarget(target),
      body: body ?? undefined,
      aud,
      teamId: member.teamId,
      certificateB64: member.certificateB64,
      didKey: member.key.didKey,
      sign: (bytes) => signBytes(signer, bytes),
      timestamp,
    });
    const out: Record<string, string> = { ...signed };
    if (a.mode === 'tamper') {
      const names = Object.keys(out);
      const name = names[a.tamper.header % names.length]!;
      const value = out[name]!;
      const tampered = [
        value.slice(0, Math.floor(value.length / 2)),
        value.slice(0, -1) + (value.endsWith('A') ? 'B' : 'A'),
        value + 'AAAA',
        '',
        value.replace(/[A-Za-z]/, (ch) => (ch === ch.toUpperCase() ? ch.toLowerCase() : ch.toUpperCase())),
        Buffer.from(value).toString('base64'),
      ][a.tamper.how % 6]!;
      out[name] = tampered;
    }
    Object.assign(headers, out);
  }
  Object.assign(headers, c.headers);
  return { target, headers, body };
}

// ---------------------------------------------------------------------------------------------
// Stored data: a fingerprint through a second, read-only connection
// ---------------------------------------------------------------------------------------------

/** Bookkeeping a refused request may legitimately touch (not data a client stored). */
const VOLATILE_COLUMNS: Record<string, readonly string[]> = {
  api_keys: ['last_used_at'],
};

/**
 * Whole tables of such bookkeeping: a signed write that authenticates spends its signature even
 * when the handler then refuses it (the replay cache, made durable for writes).
 */
const VOLATILE_TABLES: readonly string[] = ['replay_signatures'];

/**
 * The mail and chat search indexes and their notes (migration 0031): derived from the mail and
 * chat tables, and moved into the index in the background, a fraction of a second after the
 * accepted write that noted them, so they change between any two snapshots.
 */
const DERIVED_IN_THE_BACKGROUND = /^search_(mail|chat|pending)(_|$)/;

export class DataWatch {
  readonly #db: InstanceType<typeof SQLite>;
  readonly #custody: Custody;
  #tables: string[] = [];

  private constructor(db: InstanceType<typeof SQLite>, custody: Custody) {
    this.#db = db;
    this.#custody = custody;
  }

  static async open(dataDir: string): Promise<DataWatch> {
    const custody = await Custody.open({ dataDir, backend: 'key-file', warn() {} });
    const db = new SQLite(join(dataDir, 'node.db'), { readonly: true, fileMustExist: true });
    db.pragma("cipher='sqlcipher'");
    db.pragma('legacy=4');
    db.pragma(`key="x'${custody.databaseKey().toString('hex')}'"`);
    db.pragma('busy_timeout=5000');
    const watch = new DataWatch(db, custody);
    watch.#tables = (db.prepare(`SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name`).all() as { name: string }[])
      .map((row) => row.name)
      .filter((name) => !VOLATILE_TABLES.includes(name) && !DERIVED_IN_THE_BACKGROUND.test(name));
    return watch;
  }

  /** Bumps whenever another connection commits a write. */
  version(): number {
    return this.#db.pragma('data_version', { simple: true }) as number;
  }

  /** Per-table digest of every row (volatile columns aside). */
  snapshot(): Map<string, { hash: string; rows: number; sample: string[] }> {
    const out = new Map<string, { hash: string; rows: number; sample: string[] }>();
    for (const table of this.#tables) {
      const skip = VOLATILE_COLUMNS[table] ?? [];
      const hash = createHash('sha256');
      const lines: string[] = [];
      for (const row of this.#db.prepare(`SELECT * FROM "${table}"`).iterate() as Iterable<Record<string, unknown>>) {
        const kept = Object.fromEntries(
          Object.entries(row)
            .filter(([k]) => !skip.includes(k))
            .map(([k, v]) => [k, Buffer.isBuffer(v) ? `<${v.length} bytes ${createHash('sha256').update(v).digest('hex').slice(0, 12)}>` : v]),
        );
        const line = JSON.stringify(kept);
        hash.update(line).update('\n');
        lines.push(line);
      }
      out.set(table, { hash: hash.digest('hex'), rows: lines.length, sample: lines });
    }
    return out;
  }

  close(): void {
    this.#db.close();
    this.#custody.close();
  }
}

/** What changed between two snapshots, for a report. */
export function describeChange(before: ReturnType<DataWatch['snapshot']>, after: ReturnType<DataWatch['snapshot']>): string[] {
  const changes: string[] = [];
  for (const [table, now] of after) {
    const was = before.get(table);
    if (was && was.hash === now.hash) continue;
    const old = new Set(was?.sample ?? []);
    const added = now.sample.filter((line) => !old.has(line));
    const kept = new Set(now.sample);
    const removed = (was?.sample ?? []).filter((line) => !kept.has(line));
    changes.push(
      `${table}: ${was?.rows ?? 0} → ${now.rows} rows; + ${added
        .slice(0, 2)
        .map((l) => l.slice(0, 300))
        .join(' | ')}; - ${removed
        .slice(0, 2)
        .map((l) => l.slice(0, 300))
        .join(' | ')}`,
    );
  }
  return changes;
}

// ---------------------------------------------------------------------------------------------
// The runner
// ---------------------------------------------------------------------------------------------

export interface FuzzOptions {
  numRuns: number;
  seed?: number;
  /** Health probe every this many cases. */
  batch?: number;
  /** Per-request timeout. */
  timeoutMs?: number;
  /** Throw at the first failure so fast-check shrinks it (default: collect every distinct failure). */
  shrink?: boolean;
  routes?: readonly RouteSpec[];
  log?: (line: string) => void;
}

export interface FuzzFailure {
  kind: string;
  route: string;
  reproduction: string;
}

export interface FuzzSummary {
  cases: number;
  requests: number;
  routesFuzzed: number;
  routesTotal: number;
  exempt: string[];
  statuses: Record<string, number>;
  byRoute: Record<string, number>;
  refused: number;
  accepted: number;
  unchangedChecks: number;
  bodyKinds: Record<string, number>;
  authKinds: Record<string, number>;
  failures: FuzzFailure[];
  seed: number;
  ms: number;
}

const clip = (text: string, n = 400): string => (text.length > n ? `${text.slice(0, n)}… (${text.length} chars)` : text);

export function reproduction(c: FuzzCase, headers: Record<string, string>, body: string | Buffer | null, res?: RawResponse): string {
  const shownBody =
    body === null ? '(none)' : Buffer.isBuffer(body) ? `<bytes ${body.toString('hex').slice(0, 200)}> (${body.length} bytes)` : clip(JSON.stringify(body));
  const shownHeaders = Object.fromEntries(Object.entries(headers).map(([k, v]) => [k, clip(v, 160)]));
  return [
    `${c.method} ${clip(safeTarget(c.target), 300)}   [route ${routeKey(c.route)}, body: ${c.body.label}, auth: ${c.auth.kind}${c.auth.kind === 'team' ? `/${c.auth.mode}` : c.auth.kind === 'bearer' ? `/${c.auth.who}` : ''}]`,
    `headers: ${JSON.stringify(shownHeaders)}`,
    `body: ${shownBody}`,
    ...(res ? [`→ ${res.timedOut ? 'no answer (timeout)' : `${res.status} ${clip(res.text, 400)}`}`] : []),
  ].join('\n');
}

const prototypeKeys = (): string =>
  [Object.prototype, Array.prototype, Function.prototype].map((p) => Object.getOwnPropertyNames(p).sort().join(',')).join('|');

/** Whether a 4xx body honours the contract. */
function refusalShapeOk(c: FuzzCase, res: RawResponse): boolean {
  if (c.method === 'HEAD') return true;
  const type = String(res.headers['content-type'] ?? '');
  if (c.route.htmlErrors && type.startsWith('text/html') && res.status === 404) return true;
  let parsed: unknown;
  try {
    parsed = JSON.parse(res.text);
  } catch {
    return false;
  }
  if (parsed === null || typeof parsed !== 'object') return false;
  const { detail, code } = parsed as { detail?: unknown; code?: unknown };
  if (detail !== undefined) return Object.keys(parsed).length === 2 && isErrorCode(code) && errorCatalogue[code].status === res.status;
  return c.route.mcp === true && 'jsonrpc' in parsed && 'error' in parsed;
}

export async function runFuzz(fx: FuzzFixtures, options: FuzzOptions): Promise<FuzzSummary> {
  const started = Date.now();
  const all = options.routes ?? ROUTES;
  const routes = all.filter((route) => route.exempt === undefined);
  const batch = options.batch ?? 25;
  const timeoutMs = options.timeoutMs ?? 20_000;
  const seed = options.seed ?? (Date.now() ^ (Math.random() * 0x7fffffff)) >>> 0;
  const log = options.log ?? (() => {});
  const watch = await DataWatch.open(fx.t.dataDir);
  const summary: FuzzSummary = {
    cases: 0,
    requests: 0,
    routesFuzzed: 0,
    routesTotal: all.length,
    exempt: all.filter((route) => route.exempt).map((route) => `${routeKey(route)}: ${route.exempt}`),
    statuses: {},
    byRoute: {},
    refused: 0,
    accepted: 0,
    unchangedChecks: 0,
    bodyKinds: {},
    authKinds: {},
    failures: [],
    seed,
    ms: 0,
  };
  const failureKeys = new Set<string>();
  const protoBefore = prototypeKeys();
  let baselineVersion = watch.version();
  let baseline = watch.snapshot();

  const fail = (kind: string, c: FuzzCase, repro: string): void => {
    const key = `${kind} ${routeKey(c.route)}`;
    const failure = { kind, route: routeKey(c.route), reproduction: repro };
    if (options.shrink) throw new Error(`${kind}\n${repro}`);
    if (!failureKeys.has(key)) {
      failureKeys.add(key);
      summary.failures.push(failure);
      log(`FAILURE ${kind}\n${repro}\n`);
    }
  };

  const health = async (): Promise<void> => {
    const res = await sendRaw(fx.t.url, 'GET', '/v1/node/info', { authorization: `Bearer ${fx.ownerToken}` }, null, timeoutMs);
    if (res.status !== 200) throw new Error(`the node stopped answering: GET /v1/node/info → ${res.timedOut ? 'timeout' : res.status} ${clip(res.text)}`);
  };

  const property = fc.asyncProperty(fuzzCaseArb(routes, fx.pools), async (c) => {
    summary.cases++;
    const key = routeKey(c.route);
    summary.byRoute[key] = (summary.byRoute[key] ?? 0) + 1;
    summary.bodyKinds[c.body.label] = (summary.bodyKinds[c.body.label] ?? 0) + 1;
    const authLabel = c.auth.kind === 'team' ? `team/${c.auth.mode}` : c.auth.kind === 'bearer' ? `bearer/${c.auth.who}` : c.auth.kind;
    summary.authKinds[authLabel] = (summary.authKinds[authLabel] ?? 0) + 1;

    // The data as it stands before this request (re-read only when something wrote since).
    if (watch.version() !== baselineVersion) {
      baselineVersion = watch.version();
      baseline = watch.snapshot();
    }

    const { target, headers, body } = resolveCase(c, fx);
    const rc: FuzzCase = { ...c, target };
    const responses: RawResponse[] = [];
    const sendOnce = async (): Promise<RawResponse> => {
      summary.requests++;
      let res: RawResponse;
      try {
        res = await sendRaw(fx.t.url, c.method, target, headers, body, timeoutMs);
      } catch (error) {
        // The server reset the connection: for a body over the limit Fastify may answer 413 and
        // close before the client finished writing; anything else is a crash of the request.
        const code = (error as { code?: string }).code ?? '';
        const big = body !== null && body.length > BODY_LIMIT_BYTES;
        if (big && ['ECONNRESET', 'EPIPE'].includes(code))
          return {
            status: 413,
            headers: {},
            text: '{"detail":"(connection closed after 413)","code":"SVC_ERR_BODY_TOO_LARGE"}',
            timedOut: false,
            streamed: false,
          };
        // A request the HTTP parser refuses (a raw Latin-1 byte in the path, a 60 kB target) gets
        // clientErrorHandler's 400/414/431 with a JSON body, written before the method is known;
        // for a HEAD request node:http then sees bytes after a body-less response.
        if (c.method === 'HEAD' && code === 'HPE_CLOSED_CONNECTION')
          return {
            status: 400,
            headers: {},
            text: '{"detail":"(HTTP parser refusal to a HEAD request)","code":"SVC_ERR_MALFORMED_REQUEST"}',
            timedOut: false,
            streamed: false,
          };
        fail('connection error', c, `${reproduction(rc, headers, body)}\n→ ${code} ${(error as Error).message}`);
        return { status: 0, headers: {}, text: '', timedOut: false, streamed: false };
      }
      responses.push(res);
      summary.statuses[String(res.status)] = (summary.statuses[String(res.status)] ?? 0) + 1;
      return res;
    };

    const first = await sendOnce();
    const teamRoute = c.route.auth === 'team-library' || c.route.auth === 'team-docs';
    // A replayed envelope (docs/security.md, "Replays"): a read may repeat; a write takes effect once, and the
    // repeat gets the first answer itself (or a 409 saying it cannot), never a second success of its own.
    const read = c.method === 'GET' || c.method === 'HEAD';
    if (c.auth.kind === 'team' && c.auth.mode === 'replay' && teamRoute && !read) {
      const again = await sendOnce();
      const succeeded = again.status >= 200 && again.status < 400 && !again.timedOut;
      if (succeeded && (again.status !== first.status || again.text !== first.text))
        fail('replayed team envelope took effect again', c, reproduction(rc, headers, body, again));
    }

    for (const res of responses) {
      if (res.timedOut) {
        if (!c.route.longPoll) fail('no answer', c, reproduction(rc, headers, body, res));
        continue;
      }
      if (res.status >= 500) fail(`${res.status} answer`, c, reproduction(rc, headers, body, res));
      else if (res.status >= 400 && !refusalShapeOk(c, res))
        fail('4xx without a JSON {detail, code} from the catalogue', c, reproduction(rc, headers, body, res));
    }

    const accepted = responses.some((res) => res.timedOut || (res.status >= 200 && res.status < 400));
    if (accepted) {
      summary.accepted++;
      if (c.route.destructive) fx.victim = await makeVictim(fx.t, fx.projectKey, fx.member);
    } else if (responses.length > 0) {
      summary.refused++;
      if (watch.version() !== baselineVersion) {
        summary.unchangedChecks++;
        const after = watch.snapshot();
        const changes = describeChange(baseline, after);
        if (changes.length > 0) fail('refused request changed stored data', c, `${reproduction(rc, headers, body, first)}\nchanged: ${changes.join('\n  ')}`);
        baseline = after;
        baselineVersion = watch.version();
      }
    }

    if (prototypeKeys() !== protoBefore || ({} as Record<string, unknown>).polluted !== undefined)
      fail('Object.prototype polluted', c, reproduction(rc, headers, body, first));
    if (summary.cases % batch === 0) await health();
  });

  try {
    await fc.assert(property, { numRuns: options.numRuns, seed, endOnFailure: !options.shrink, verbose: 1 });
    await health();
  } finally {
    watch.close();
    summary.routesFuzzed = Object.keys(summary.byRoute).length;
    summary.ms = Date.now() - started;
  }
  return summary;
}

export function formatSummary(s: FuzzSummary): string {
  const statuses = Object.entries(s.statuses)
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([k, v]) => `${k}×${v}`)
    .join(' ');
  const per = Object.values(s.byRoute);
  return [
    `fuzz: ${s.cases} cases (${s.requests} requests) in ${(s.ms / 1000).toFixed(1)} s, seed ${s.seed}`,
    `routes: ${s.routesFuzzed} fuzzed of ${s.routesTotal} in the table (${s.exempt.length} exempt), ${Math.min(...per)}–${Math.max(...per)} cases each`,
    `statuses: ${statuses}`,
    `refused ${s.refused}, accepted ${s.accepted}; data re-checked after ${s.unchangedChecks} refused requests that wrote`,
    `bodies: ${JSON.stringify(s.bodyKinds)}`,
    `auth: ${JSON.stringify(s.authKinds)}`,
    ...s.exempt.map((e) => `exempt: ${e}`),
    `failures: ${s.failures.length}`,
  ].join('\n');
}
