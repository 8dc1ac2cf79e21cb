/**
 * The built-in tunnel: an SSH reverse forward (`ssh -R`) to a server the user controls. It needs
 * nothing but an SSH account, and authenticates with the node's own key through a custody-backed
 * agent, so no key file is ever written or read here. Each forwarded connection is handed to the
 * peer listener in process, with the originator address the SSH server reports for it
 * (http/forwarded-connection.ts), never through a loopback socket that would make every peer 127.0.0.1.
 */
import { createHash } from 'node:crypto';
import type { Duplex } from 'node:stream';
import ssh2 from 'ssh2';
import type { Client } from 'ssh2';
import { isoNow, systemClock, type Clock } from '../clock.ts';
import { toBase64Unpadded } from '../crypto/encoding.ts';
import type { Tunnel, TunnelProvider, TunnelState, TunnelStatus, TunnelTarget } from './provider.ts';
import { custodyAgent, type SshSigner } from './ssh-key.ts';

export interface SshTunnelConfig {
  /** The SSH server's host name or address. */
  host: string;
  /** The SSH server's port; 22 when absent. */
  port?: number;
  /** The account on the SSH server whose authorized_keys holds the node's key. */
  username: string;
  /**
   * The address the server binds the forward to; '' (all interfaces) when absent. OpenSSH honours
   * that only with `GatewayPorts clientspecified|yes`; otherwise it binds loopback and a reverse
   * proxy on the server (named by `public_url`) has to front it.
   */
  remote_bind_host?: string;
  /** The port the server listens on for the node; 0 lets the server choose. */
  remote_port: number;
  /** The URL peers use, when it is not `http://<host>:<port>` (e.g. a reverse proxy with TLS). */
  public_url?: string;
  /** The server's host key fingerprint as OpenSSH prints it (`SHA256:…`, prefix optional). */
  host_key_sha256?: string;
}

export interface SshTunnelBackoff {
  /** Delay before the first retry. */
  initialMs: number;
  /** The delay doubles per consecutive failure up to this. */
  maxMs: number;
}

export interface SshTunnelDeps {
  /** Signs SSH authentication with the node's key (held by custody). */
  signer: SshSigner;
  /** Stamps status changes; the system clock when absent. */
  clock?: Clock;
  /** Reconnect delays; 500 ms doubling to 30 s when absent. */
  backoff?: SshTunnelBackoff;
}

const DEFAULT_SSH_PORT = 22;
const DEFAULT_BACKOFF: SshTunnelBackoff = { initialMs: 500, maxMs: 30_000 };
// A NAT box can drop an idle connection silently; keepalives notice within ~45 s.
const KEEPALIVE_INTERVAL_MS = 15_000;
const KEEPALIVE_COUNT_MAX = 3;
const HANDSHAKE_TIMEOUT_MS = 20_000;
// stop() first asks the server to disconnect politely; this long it waits before cutting the socket.
const GRACEFUL_CLOSE_MS = 1_000;

/** The SSH reverse tunnel provider for one server account. */
export function sshTunnelProvider(config: SshTunnelConfig, deps: SshTunnelDeps): TunnelProvider {
  return {
    kind: 'ssh',
    start: (target) => startSshTunnel(config, deps, target),
  };
}

/** OpenSSH's fingerprint of a host key blob: `SHA256:` and unpadded base64 of its SHA-256. */
export function sshSha256Fingerprint(hostKeyBlob: Buffer): string {
  return `SHA256:${toBase64Unpadded(createHash('sha256').update(hostKeyBlob).digest())}`;
}

/** A configured fingerprint in the form `sshSha256Fingerprint` produces. */
function normalizeFingerprint(configured: string): string {
  return `SHA256:${configured
    .trim()
    .replace(/^SHA256:/i, '')
    .replace(/=+$/, '')}`;
}

function defaultPublicUrl(host: string, port: number): string {
  const hostPart = host.includes(':') ? `[${host}]` : host;
  return `http://${hostPart}:${port}`;
}

/** What one connection attempt learned, to explain how it ended. */
interface Attempt {
  hostFingerprint: string | null;
  hostKeyMismatch: boolean;
  forwardRefused: string | null;
  error: (Error & { level?: string }) | null;
  wasUp: boolean;
}

function newAttempt(): Attempt {
  return { hostFingerprint: null, hostKeyMismatch: false, forwardRefused: null, error: null, wasUp: false };
}

function startSshTunnel(config: SshTunnelConfig, deps: SshTunnelDeps, target: TunnelTarget): Tunnel {
  const clock = deps.clock ?? systemClock;
  const backoff = deps.backoff ?? DEFAULT_BACKOFF;
  const sshPort = config.port ?? DEFAULT_SSH_PORT;
  const bindHost = config.remote_bind_host ?? '';
  const server = `${config.host}:${sshPort}`;
  const expectedFingerprint = config.host_key_sha256 ? normalizeFingerprint(config.host_key_sha256) : null;

  const listeners = new Set<(status: TunnelStatus) => void>();
  const openStreams = new Set<Duplex>();
  let status: TunnelStatus = { state: 'connecting', public_url: null, detail: null, since: isoNow(clock) };
  let client: Client | null = null;
  let retryTimer: NodeJS.Timeout | null = null;
  let consecutiveFailures = 0;
  let stopping: Promise<void> | null = null;

  function setStatus(state: TunnelState, publicUrl: string | null, detail: string | null): void {
    if (status.state === state && status.public_url === publicUrl && status.detail === detail) return;
    status = { state, public_url: publicUrl, detail, since: isoNow(clock) };
    const snapshot = { ...status };
    for (const listener of [...listeners]) {
      // A listener that throws must not break the tunnel's own bookkeeping.
      try {
        listener(snapshot);
      } catch {
        /* the listener's problem, not the tunnel's */
      }
    }
  }

  function hostVerifier(attempt: Attempt) {
    return (hostKey: Buffer): boolean => {
      const seen = sshSha256Fingerprint(hostKey);
      attempt.hostFingerprint = seen;
      attempt.hostKeyMismatch = expectedFingerprint !== null && seen !== expectedFingerprint;
      return !attempt.hostKeyMismatch;
    };
  }

  function connect(): void {
    retryTimer = null;
    const attempt = newAttempt();
    const connection = new ssh2.Client();
    client = connection;
    connection.on('ready', () => requestForward(connection, attempt));
    connection.on('tcp connection', (details, accept, reject) => {
      if (stopping) return reject();
      // The SSH server names each connection's originator: the peer listener counts it by that
      // address, and a connection over its caps is refused before its channel is opened.
      const served = target.forward({ address: details.srcIP, port: details.srcPort }, () => track(accept()));
      if (!served) reject();
    });
    connection.on('error', (error) => {
      attempt.error = error;
    });
    connection.on('close', () => onClosed(connection, attempt));
    try {
      connection.connect({
        host: config.host,
        port: sshPort,
        username: config.username,
        // The only way in is the custody-backed agent: no password, no key file, no 'none'.
        agent: custodyAgent(deps.signer),
        authHandler: ['agent'],
        hostVerifier: hostVerifier(attempt),
        keepaliveInterval: KEEPALIVE_INTERVAL_MS,
        keepaliveCountMax: KEEPALIVE_COUNT_MAX,
        readyTimeout: HANDSHAKE_TIMEOUT_MS,
      });
      // Forwarded traffic is request/response; Nagle plus delayed ACKs would add ~40 ms per turn.
      connection.setNoDelay(true);
    } catch (error) {
      // connect() throws synchronously only for configuration it cannot use at all.
      attempt.error = error instanceof Error ? error : new Error(String(error));
      client = null;
      scheduleRetry(attempt);
    }
  }

  function requestForward(connection: Client, attempt: Attempt): void {
    if (stopping) {
      connection.end();
      return;
    }
    try {
      connection.forwardIn(bindHost, config.remote_port, (error, boundPort) => {
        if (stopping || client !== connection) return;
        if (error) {
          attempt.forwardRefused = error.message;
          connection.end();
          return;
        }
        const port = boundPort || config.remote_port;
        attempt.wasUp = true;
        consecutiveFailures = 0;
        setStatus('up', config.public_url ?? defaultPublicUrl(config.host, port), hostKeyNote(attempt));
      });
    } catch (error) {
      // Thrown only when the socket closed under us; 'close' follows and schedules the retry.
      attempt.error = error instanceof Error ? error : new Error(String(error));
    }
  }

  function hostKeyNote(attempt: Attempt): string {
    const pinned = expectedFingerprint !== null ? 'pinned' : 'not pinned';
    return `host key ${attempt.hostFingerprint ?? 'unknown'} (${pinned})`;
  }

  /** Remembers a forwarded channel until it closes, so stop() can close it. */
  function track(channel: Duplex): Duplex {
    openStreams.add(channel);
    channel.on('close', () => openStreams.delete(channel));
    return channel;
  }

  function onClosed(connection: Client, attempt: Attempt): void {
    if (client === connection) client = null;
    if (stopping) return;
    scheduleRetry(attempt);
  }

  // Every failure is retried, 'failed' ones included: the user may be fixing authorized_keys or
  // the server's configuration right now, and the tunnel should come up once they have.
  function scheduleRetry(attempt: Attempt): void {
    consecutiveFailures += 1;
    const delay = Math.min(backoff.maxMs, backoff.initialMs * 2 ** (consecutiveFailures - 1));
    const { state, reason } = explainEnd(attempt);
    setStatus(state, null, `${reason} (retrying in ${delay} ms)`);
    retryTimer = setTimeout(connect, delay);
  }

  function explainEnd(attempt: Attempt): { state: TunnelState; reason: string } {
    if (attempt.hostKeyMismatch) {
      return {
        state: 'failed',
        reason: `host key mismatch: ${server} presented ${attempt.hostFingerprint}, expected ${expectedFingerprint}`,
      };
    }
    if (attempt.error?.level === 'client-authentication') {
      return {
        state: 'failed',
        reason: `authentication refused by ${server} for user ${config.username}: is the node's key in authorized_keys?`,
      };
    }
    if (attempt.forwardRefused !== null) {
      return { state: 'failed', reason: `${server} refused the remote forward: ${attempt.forwardRefused}` };
    }
    if (attempt.error) return { state: 'reconnecting', reason: `${server}: ${attempt.error.message}` };
    if (attempt.wasUp) return { state: 'reconnecting', reason: `connection to ${server} closed` };
    return { state: 'reconnecting', reason: `connection to ${server} closed before the tunnel was up` };
  }

  function closeConnection(connection: Client): Promise<void> {
    return new Promise((resolve) => {
      const forceClose = setTimeout(() => connection.destroy(), GRACEFUL_CLOSE_MS);
      connection.once('close', () => {
        clearTimeout(forceClose);
        resolve();
      });
      connection.end();
    });
  }

  function stop(): Promise<void> {
    if (stopping) return stopping;
    if (retryTimer) clearTimeout(retryTimer);
    retryTimer = null;
    for (const stream of openStreams) stream.destroy();
    openStreams.clear();
    const connection = client;
    stopping = (connection ? closeConnection(connection) : Promise.resolve()).then(() => {
      client = null;
      setStatus('stopped', null, null);
    });
    return stopping;
  }

  connect();

  return {
    status: () => ({ ...status }),
    onStatus(listener) {
      listeners.add(listener);
      return () => {
        listeners.delete(listener);
      };
    },
    stop,
  };
}
