/**
 * The preload: runs in the sandboxed renderer before the page, with access to `contextBridge`.
 *
 * It exposes exactly one frozen object, `window.svc` (typed in preload/api.d.ts), built from the
 * `--svc-bridge=` argument the main process appended to this renderer's argv: five strings, and
 * `onNavigate`, the one IPC channel (main → page, `svc:navigate`) that carries a route when a
 * notification is clicked. Routes are checked against main/navigate.ts's allow-list here, before
 * the page sees them; no Electron object reaches the page. Built as one CommonJS file
 * (electron.vite.config.ts) because sandboxed preloads cannot load ES modules or npm packages.
 */
import { contextBridge, ipcRenderer } from 'electron';
import type { IpcRendererEvent } from 'electron';
import { decodeBridgeArg } from '../main/bridge-args.ts';
import { isAppRoute, NAVIGATE_CHANNEL } from '../main/navigate.ts';
import type { SvcBridge } from './api.d.ts';

function onNavigate(listener: (path: string) => void): () => void {
  const handler = (_event: IpcRendererEvent, route: unknown): void => {
    if (isAppRoute(route)) listener(route);
  };
  ipcRenderer.on(NAVIGATE_CHANNEL, handler);
  return () => void ipcRenderer.removeListener(NAVIGATE_CHANNEL, handler);
}

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
    onNavigate,
  });
  contextBridge.exposeInMainWorld('svc', bridge);
}
