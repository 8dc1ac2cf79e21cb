/**
 * The node's tunnel (DESIGN §8): the owner configures an SSH account, the node makes (once) an
 * Ed25519 key in custody for it and shows its public half as an authorized_keys line, and start
 * exposes the peer listener through the SSH server. While the tunnel is up its public URL is the
 * node's public origin (present links, allowed audiences, what peers are told); when it drops the
 * provider reconnects on its own. The configuration and whether it should run are kept in
 * node_settings, so a restarted node brings its tunnel back.
 */
import type { NodeContext } from '../context.ts';
import { conflict } from '../errors.ts';
import type { Tunnel, TunnelTarget } from './provider.ts';
import type { TunnelConfig, TunnelView } from '../../contract/node/tunnel.ts';
import { authorizedKeysLine, type SshSigner } from './ssh-public-key.ts';
import type { SshTunnelBackoff, SshTunnelConfig } from './ssh-tunnel.ts';
import { readTunnelSetting, saveTunnelSetting } from './store.ts';

/** What the node does for its tunnel: run the peer listener, and publish the public URL. */
export interface TunnelHost {
  /** The peer listener on loopback (started if it is not running): what the tunnel exposes. */
  peerListener(): Promise<TunnelTarget>;
  /** The tunnel's public URL while it is up, null otherwise. */
  setPublicUrl(url: string | null): void;
  /** Someone watching (the owner's UI) should re-read the tunnel. */
  changed(): void;
}

export class TunnelService {
  readonly #ctx: NodeContext;
  readonly #host: TunnelHost;
  readonly #backoff: SshTunnelBackoff | undefined;
  #tunnel: Tunnel | null = null;
  #unsubscribe: (() => void) | null = null;
  /** When the tunnel last stopped (or the node started without one): "stopped since" is that, not the moment of asking. */
  #stoppedSince: string;

  constructor(ctx: NodeContext, host: TunnelHost, options: { backoff?: SshTunnelBackoff } = {}) {
    this.#ctx = ctx;
    this.#host = host;
    this.#backoff = options.backoff;
    this.#stoppedSince = ctx.clock.now().toISOString();
  }

  view(): TunnelView {
    const stored = readTunnelSetting(this.#ctx.db);
    const status = this.#tunnel?.status() ?? { state: 'stopped' as const, public_url: null, detail: null, since: this.#stoppedSince };
    return { provider: 'ssh', config: stored.config && configView(stored.config), public_key: this.#publicKeyLine(), status };
  }

  /** The public URL the owner configured for the tunnel (where DNS may point), whether or not it is up. */
  configuredPublicUrl(): string | null {
    return readTunnelSetting(this.#ctx.db).config?.public_url ?? null;
  }

  /** Saves the SSH account to use; a running tunnel restarts with it. */
  async configure(config: SshTunnelConfig): Promise<TunnelView> {
    const stored = readTunnelSetting(this.#ctx.db);
    saveTunnelSetting(this.#ctx.db, { ...stored, config });
    if (this.#tunnel) await this.#run(config);
    this.#host.changed();
    return this.view();
  }

  async start(): Promise<TunnelView> {
    const stored = readTunnelSetting(this.#ctx.db);
    if (!stored.config) throw conflict('SVC_ERR_TUNNEL_NOT_CONFIGURED', 'Configure the tunnel first: the SSH host, account and remote port');
    saveTunnelSetting(this.#ctx.db, { ...stored, enabled: true });
    await this.#run(stored.config);
    return this.view();
  }

  async stop(): Promise<TunnelView> {
    saveTunnelSetting(this.#ctx.db, { ...readTunnelSetting(this.#ctx.db), enabled: false });
    await this.#halt();
    this.#host.changed();
    return this.view();
  }

  /** At node start: brings the tunnel back when it was running. */
  async resume(): Promise<void> {
    const stored = readTunnelSetting(this.#ctx.db);
    if (stored.enabled && stored.config) await this.#run(stored.config);
  }

  /** At node shutdown: stops the tunnel but remembers that it should run. */
  async close(): Promise<void> {
    await this.#halt();
  }

  async #run(config: SshTunnelConfig): Promise<void> {
    // ssh2 (~50 ms to import) is loaded when a tunnel first starts, not at every node start.
    const { sshTunnelProvider } = await import('./ssh-tunnel.ts');
    await this.#halt();
    const target = await this.#host.peerListener();
    const provider = sshTunnelProvider(config, { signer: this.#signer(), clock: this.#ctx.clock, ...(this.#backoff ? { backoff: this.#backoff } : {}) });
    const tunnel = provider.start(target);
    this.#tunnel = tunnel;
    this.#unsubscribe = tunnel.onStatus((status) => {
      this.#host.setPublicUrl(status.state === 'up' ? status.public_url : null);
      this.#host.changed();
    });
    this.#host.changed();
  }

  async #halt(): Promise<void> {
    const tunnel = this.#tunnel;
    this.#tunnel = null;
    this.#unsubscribe?.();
    this.#unsubscribe = null;
    this.#host.setPublicUrl(null);
    if (tunnel !== null) this.#stoppedSince = this.#ctx.clock.now().toISOString();
    await tunnel?.stop();
  }

  /** Signs SSH authentication inside custody; the key is made the first time it is needed. */
  #signer(): SshSigner {
    const keyId = this.#keyId();
    return { publicKey: () => this.#ctx.custody.publicKey(keyId), sign: (data) => this.#ctx.custody.sign(keyId, data) };
  }

  #publicKeyLine(): string {
    return authorizedKeysLine(this.#ctx.custody.publicKey(this.#keyId()), 'svc-node tunnel');
  }

  #keyId(): string {
    const stored = readTunnelSetting(this.#ctx.db);
    if (stored.key_id !== null && this.#ctx.custody.hasKey(stored.key_id)) return stored.key_id;
    const key = this.#ctx.custody.createSigningKey('tunnel');
    saveTunnelSetting(this.#ctx.db, { ...stored, key_id: key.keyId });
    return key.keyId;
  }
}

function configView(config: SshTunnelConfig): TunnelConfig {
  return {
    host: config.host,
    port: config.port ?? 22,
    username: config.username,
    remote_port: config.remote_port,
    remote_bind_host: config.remote_bind_host ?? '',
    public_url: config.public_url ?? null,
    host_key_sha256: config.host_key_sha256 ?? null,
  };
}
