/**
 * The node's Ed25519 identity as SSH sees it. Private keys never leave custody, so instead of
 * handing ssh2 a key file we give it an "agent" whose signing is delegated to an injected signer.
 * The public half's encoding (for the server's authorized_keys) lives in ssh-public-key.ts, free of ssh2.
 */
import ssh2 from 'ssh2';
import type { BaseAgent, IdentityCallback, ParsedKey, SignCallback, SigningRequestOptions } from 'ssh2';
import { sshEd25519PublicBlob, type SshSigner } from './ssh-public-key.ts';

export { authorizedKeysLine, sshEd25519PublicBlob, type SshSigner } from './ssh-public-key.ts';

const ED25519_SIGNATURE_BYTES = 64;

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
