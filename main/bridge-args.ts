/**
 * How the main process hands the renderer its connection details.
 *
 * The sandboxed preload cannot ask the main process for anything without IPC, and we want no IPC
 * for this: the values are known before the window opens. So they travel as one extra
 * command-line argument of the renderer process (`webPreferences.additionalArguments`), which the
 * preload reads from `process.argv`: `--svc-bridge=<base64url of JSON>`.
 *
 * This module is shared by main (encode) and preload (decode), so it uses only web-standard APIs
 * (`TextEncoder`, `btoa`, `atob`) that exist in Node, Electron's main process and a sandboxed
 * preload alike. It never imports `electron`.
 */

/** What the preload needs to build `window.svc` (the platform is added by the preload itself). */
export interface BridgeArgs {
  /** The per-launch owner token for `/v1/node/...` (Authorization: Bearer). */
  ownerToken: string;
  /** Base URL of the core surface, e.g. `http://127.0.0.1:41234`. */
  coreUrl: string;
  libraryUrl: string;
  docsUrl: string;
}

export const BRIDGE_ARG_PREFIX = '--svc-bridge=';

const FIELDS = ['ownerToken', 'coreUrl', 'libraryUrl', 'docsUrl'] as const;

function toBase64Url(text: string): string {
  const bytes = new TextEncoder().encode(text);
  let binary = '';
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return btoa(binary).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

function fromBase64Url(encoded: string): string {
  const base64 = encoded.replace(/-/g, '+').replace(/_/g, '/');
  const binary = atob(base64 + '='.repeat((4 - (base64.length % 4)) % 4));
  const bytes = Uint8Array.from(binary, (char) => char.charCodeAt(0));
  return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
}

/** The single `additionalArguments` entry carrying `args`. */
export function encodeBridgeArg(args: BridgeArgs): string {
  const payload: BridgeArgs = {
    ownerToken: args.ownerToken,
    coreUrl: args.coreUrl,
    libraryUrl: args.libraryUrl,
    docsUrl: args.docsUrl,
  };
  return BRIDGE_ARG_PREFIX + toBase64Url(JSON.stringify(payload));
}

/**
 * Finds and decodes the bridge argument in an argv list. Returns null when it is absent or does not
 * hold exactly the expected string fields (the preload then exposes nothing usable and the UI says
 * it cannot reach the node, rather than half-working).
 */
export function decodeBridgeArg(argv: readonly string[]): BridgeArgs | null {
  const arg = argv.find((entry) => entry.startsWith(BRIDGE_ARG_PREFIX));
  if (arg === undefined) return null;
  let parsed: unknown;
  try {
    parsed = JSON.parse(fromBase64Url(arg.slice(BRIDGE_ARG_PREFIX.length)));
  } catch {
    return null;
  }
  if (typeof parsed !== 'object' || parsed === null) return null;
  const record = parsed as Record<string, unknown>;
  const out: Partial<BridgeArgs> = {};
  for (const field of FIELDS) {
    const value = record[field];
    if (typeof value !== 'string' || value === '') return null;
    out[field] = value;
  }
  return out as BridgeArgs;
}
