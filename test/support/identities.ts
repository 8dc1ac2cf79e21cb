/**
 * Projects, node-controlled namespaces and identities as the owner and a project's authority
 * create them, and the checks an identity's own audit log must pass.
 */
import { expect } from 'vitest';
import { publicKeyFromDidKey } from '../../server/crypto/did-key.ts';
import { verifyBytes } from '../../server/crypto/ed25519.ts';
import { fromBase64Unpadded } from '../../server/crypto/encoding.ts';
import { agentLogSigningBytes, type AgentLogEntry } from '../../server/surfaces/core/identities/agent-log.ts';
import { expectOk } from './expect.ts';
import type { ApiResponse, NodeEndpoint } from './node.ts';

export const API_KEY = /^svc_sk_[0-9a-f]{64}$/;

export interface Project {
  project_id: string;
  slug: string;
  namespace: string | null;
  api_key: string;
}

/** A namespace whose controller key the node creates and holds (owner API). */
export async function createNodeNamespace(t: NodeEndpoint, domain: string): Promise<{ domain: string; controller_did: string }> {
  const namespace = expectOk(await t.owner('POST', '/v1/node/namespaces', { domain }), 201);
  expect(namespace).toMatchObject({ domain, node_controlled: true });
  return namespace;
}

/** A project (owner API) with its project-authority key. */
export async function createProject(t: NodeEndpoint, slug: string, namespace?: string): Promise<Project> {
  const project = expectOk(await t.owner('POST', '/v1/node/projects', { slug, ...(namespace ? { namespace } : {}) }), 201);
  expect(project).toMatchObject({ slug, namespace: namespace ?? null });
  expect(project.api_key).toMatch(API_KEY);
  return project;
}

export function init(t: NodeEndpoint, projectKey: string, body: unknown = {}): Promise<ApiResponse> {
  return t.request('POST', '/v1/workspaces/init', { token: projectKey, body });
}

/** A new identity created with the project's key; the response includes its one-time api_key. */
export async function createIdentity(t: NodeEndpoint, projectKey: string, body: Record<string, unknown> = {}) {
  const identity = expectOk(await init(t, projectKey, body), 201);
  expect(identity.api_key).toMatch(API_KEY);
  return identity;
}

export const persistent = (name: string, extra: Record<string, unknown> = {}) => ({ lifetime: 'persistent', name, ...extra });

/** True when `entry`'s signature verifies, for `agentId`, under the key it names in signed_by. */
export function agentLogEntryVerifies(agentId: string, entry: AgentLogEntry): boolean {
  const { log_id: _logId, signed_by, entry_signature, ...signed } = entry;
  const publicKey = publicKeyFromDidKey(signed_by);
  const signature = fromBase64Unpadded(entry_signature);
  return publicKey !== null && signature !== null && verifyBytes(publicKey, agentLogSigningBytes(agentId, signed), signature);
}
