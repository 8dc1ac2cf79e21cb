/**
 * The owner's tunnel (`/v1/node/tunnel`, DESIGN §8): the SSH account to use, the node's public
 * key for its authorized_keys, start, stop and the live status (also nudged on the owner feed as
 * `tunnel_changed`). Field rules and their words are the contract's (contract/core-rules.ts):
 * Settings checks the form with them.
 */
import { z } from 'zod';
import { HOST_KEY_RULE, HOST_KEY_SHA256, publicUrlProblem, TUNNEL_HOST, TUNNEL_HOST_RULE, TUNNEL_USER, TUNNEL_USER_RULE } from '../core-rules.ts';
import { ruled } from './fields.ts';

const portRule = (min: number) => `use a whole number from ${min} to 65535`;
const port = (min: number) => z.number().int(portRule(min)).min(min, portRule(min)).max(65535, portRule(min));

/** `PUT /v1/node/tunnel` replaces the whole configuration; null (or absent) clears the optional fields. */
export const TunnelConfigBody = z.strictObject({
  host: z.string().regex(TUNNEL_HOST, TUNNEL_HOST_RULE),
  port: port(1).optional(),
  username: z.string().regex(TUNNEL_USER, TUNNEL_USER_RULE),
  /** The port the SSH server listens on for the node; 0 lets the server choose. */
  remote_port: port(0),
  remote_bind_host: z.string().max(255).optional(),
  public_url: ruled(publicUrlProblem).nullable().optional(),
  host_key_sha256: z.string().regex(HOST_KEY_SHA256, HOST_KEY_RULE).nullable().optional(),
});
export type TunnelConfigInput = z.input<typeof TunnelConfigBody>;

/**
 * Where the tunnel is in its life: `stopped` (never started, or stopped), `connecting` (the first
 * attempt), `up`, `reconnecting` (it dropped; the provider retries on its own), `failed` (a reason
 * the owner must fix, such as auth or the host key; the provider keeps retrying).
 */
export const TunnelState = z.enum(['stopped', 'connecting', 'up', 'reconnecting', 'failed']);
export type TunnelState = z.output<typeof TunnelState>;

/** What the tunnel is doing now. */
export const TunnelStatus = z.object({
  state: TunnelState,
  /** The URL peers reach the node at while `up`; null when not known. */
  public_url: z.string().nullable(),
  /** Why it is in this state, in words (never key material); null when there is nothing to say. */
  detail: z.string().nullable(),
  /** When the state or detail last changed. */
  since: z.string(),
});
export type TunnelStatus = z.output<typeof TunnelStatus>;

/** The saved SSH tunnel settings, defaults filled in. */
export const TunnelConfig = z.object({
  host: z.string(),
  port: z.number().int(),
  username: z.string(),
  remote_port: z.number().int(),
  /** '' binds all interfaces (OpenSSH honours it only with GatewayPorts). */
  remote_bind_host: z.string(),
  public_url: z.string().nullable(),
  host_key_sha256: z.string().nullable(),
});
export type TunnelConfig = z.output<typeof TunnelConfig>;

/** `GET /v1/node/tunnel` (and every tunnel write): the settings, the node's SSH public key, and the status. */
export const TunnelView = z.object({
  provider: z.literal('ssh'),
  config: TunnelConfig.nullable(),
  /** An authorized_keys line ("ssh-ed25519 AAAA... svc-node tunnel"); the private key stays on the node. */
  public_key: z.string(),
  status: TunnelStatus,
});
export type TunnelView = z.output<typeof TunnelView>;
