/**
 * The preload: runs in the sandboxed renderer before the page, with access to `contextBridge`.
 *
 * It exposes exactly one frozen object, `window.svc` (typed in preload/api.d.ts), built from the
 * `--svc-bridge=` argument the main process appended to this renderer's argv. No IPC, no Electron
 * API and no function reaches the page: only five strings. Built as one CommonJS file
 * (electron.vite.config.ts) because sandboxed preloads cannot load ES modules or npm packages.
 */
import { contextBridge } from 'electron';
import { decodeBridgeArg } from '../main/bridge-args.ts';
import type { SvcBridge } from './api.d.ts';

const args = decodeBridgeArg(process.argv);

if (args === null) {
  // Without its arguments the page falls back to the headless sign-in screen, which explains itself.
  console.error('svc-node preload: the --svc-bridge argument is missing or malformed');
} else {
  const bridge: SvcBridge = Object.freeze({
    ownerToken: args.ownerToken,
    coreUrl: args.coreUrl,
    libraryUrl: args.libraryUrl,
    docsUrl: args.docsUrl,
    platform: process.platform,
  });
  contextBridge.exposeInMainWorld('svc', bridge);
}
