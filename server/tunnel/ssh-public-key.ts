/**
 * The SSH encoding of the node's Ed25519 public key, without ssh2: the tunnel service shows the
 * authorized_keys line (and `tunnel key` asks for it) without loading ssh2, which costs ~50 ms to
 * import and is only needed once a tunnel starts (ssh-key.ts, ssh-tunnel.ts).
 */

/** Signs with one Ed25519 key held elsewhere (custody); only public material crosses this line. */
export interface SshSigner {
  /** The raw 32-byte Ed25519 public key. */
  publicKey(): Buffer;
  /** The raw 64-byte Ed25519 signature of `data`. */
  sign(data: Buffer): Buffer;
}

const ED25519_KEY_TYPE = 'ssh-ed25519';
const ED25519_PUBLIC_KEY_BYTES = 32;

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
