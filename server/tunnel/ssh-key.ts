/**
 * The node's Ed25519 identity as SSH sees it. Private keys never leave custody, so instead of
 * handing ssh2 a key file we give it an "agent" whose signing is delegated to an injected signer;
 * the public half is encoded here so the user can paste it into the server's authorized_keys.
 */
import ssh2 from 'ssh2';
import type { BaseAgent, IdentityCallback, ParsedKey, SignCallback, SigningRequestOptions } from 'ssh2';

/** Signs with one Ed25519 key held elsewhere (custody); only public material crosses this line. */
export interface SshSigner {
  /** The raw 32-byte Ed25519 public key. */
  publicKey(): Buffer;
  /** The raw 64-byte Ed25519 signature of `data`. */
  sign(data: Buffer): Buffer;
}

const ED25519_KEY_TYPE = 'ssh-ed25519';
const ED25519_PUBLIC_KEY_BYTES = 32;
const ED25519_SIGNATURE_BYTES = 64;

/** An SSH `string`: uint32 big-endian length, then the bytes (RFC 4251 §5). */
function sshString(bytes: Buffer): Buffer {
  const length = Buffer.alloc(4);
  length.writeUInt32BE(bytes.length);
  return Buffer.concat([length, bytes]);
}

/** The SSH public key blob for an Ed25519 key: string "ssh-ed25519", string key (RFC 8709 §4). */
export function sshEd25519PublicBlob(raw32: Buffer): Buffer {
  if (raw32.length !== ED25519_PUBLIC_KEY_BYTES) {
    throw new Error(`An Ed25519 public key is ${ED25519_PUBLIC_KEY_BYTES} bytes, got ${raw32.length}`);
  }
  return Buffer.concat([sshString(Buffer.from(ED25519_KEY_TYPE)), sshString(raw32)]);
}

/** The `authorized_keys` line for an Ed25519 key: `ssh-ed25519 AAAA… comment`. */
export function authorizedKeysLine(raw32: Buffer, comment: string): string {
  const line = `${ED25519_KEY_TYPE} ${sshEd25519PublicBlob(raw32).toString('base64')}`;
  const oneLineComment = comment.replace(/[\r\n]+/g, ' ').trim();
  return oneLineComment ? `${line} ${oneLineComment}` : line;
}

/** The signer's public key as ssh2 parses it. */
function parsedPublicKey(signer: SshSigner): ParsedKey {
  const parsed = ssh2.utils.parseKey(sshEd25519PublicBlob(signer.publicKey()));
  if (parsed instanceof Error) throw parsed;
  return parsed;
}

/**
 * ssh2 authenticates through this agent: it offers the one public key and, when the server
 * accepts it, asks for a signature, which the signer makes. ssh2 passes raw Ed25519 signatures
 * through unchanged, so the 64 bytes from custody are what goes on the wire.
 */
class CustodyAgent extends ssh2.BaseAgent<ParsedKey> {
  readonly #signer: SshSigner;

  constructor(signer: SshSigner) {
    super();
    this.#signer = signer;
  }

  getIdentities(cb: IdentityCallback<ParsedKey>): void {
    try {
      cb(null, [parsedPublicKey(this.#signer)]);
    } catch (error) {
      cb(asError(error));
    }
  }

  sign(pubKey: ParsedKey, data: Buffer, options: SigningRequestOptions | SignCallback, cb?: SignCallback): void {
    const callback = typeof options === 'function' ? options : cb;
    if (!callback) return;
    try {
      callback(undefined, this.#signWith(pubKey, data));
    } catch (error) {
      callback(asError(error));
    }
  }

  #signWith(pubKey: ParsedKey, data: Buffer): Buffer {
    if (!parsedPublicKey(this.#signer).equals(pubKey)) {
      throw new Error('The agent was asked to sign with a key it does not hold');
    }
    const signature = this.#signer.sign(data);
    if (signature.length !== ED25519_SIGNATURE_BYTES) {
      throw new Error(`An Ed25519 signature is ${ED25519_SIGNATURE_BYTES} bytes, got ${signature.length}`);
    }
    return signature;
  }
}

function asError(error: unknown): Error {
  return error instanceof Error ? error : new Error(String(error));
}

/** An ssh2 agent (the client's `agent` option) that authenticates with the signer's key. */
export function custodyAgent(signer: SshSigner): BaseAgent<ParsedKey> {
  return new CustodyAgent(signer);
}
