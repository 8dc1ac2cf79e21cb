/**
 * The Electron main process: a thin shell around the node.
 *
 * Everything the product does lives in server/ (the same code runs headless as `svc-node serve`);
 * this file only does what needs Electron: the app lifecycle, the window, the `app://` protocol
 * that serves the renderer, the security guards, and Electron's `safeStorage` as custody backend.
 * Logic worth testing sits in small Electron-free modules beside it (bridge-args.ts,
 * app-protocol.ts, security.ts), because Electron itself cannot be launched in our test machines.
 *
 * Security model (DESIGN.md §7, following Electron's security checklist): sandboxed renderer with
 * context isolation and no Node integration; one preload that exposes `window.svc` and nothing
 * else (one IPC channel, main → page only: the route of a clicked notification, allow-listed in
 * main/navigate.ts); a strict CSP sent with every `app://` response; navigation and new windows
 * denied; only http/https/mailto links reach the OS; permissions denied except notifications.
 */
import { readFile, realpath } from 'node:fs/promises';
import { join } from 'node:path';
import { app, BrowserWindow, dialog, nativeTheme, protocol, safeStorage, session, shell } from 'electron';
import type { WebContents } from 'electron';
import { startNode } from '../server/index.ts';
import { APP_ENTRY_URL, APP_SCHEME, APP_ORIGIN, appResponseHeaders, buildCsp, isInside, resolveAppPath } from './app-protocol.ts';
import { encodeBridgeArg } from './bridge-args.ts';
import { ElectronNotifier } from './electron-notifier.ts';
import { isAppRoute, NAVIGATE_CHANNEL } from './navigate.ts';
import { WakeNotifications } from './notifications.ts';
import { isAllowedNavigation, isPermissionAllowed, isSafeExternalUrl } from './security.ts';

type RunningNode = Awaited<ReturnType<typeof startNode>>;

/** out/main/index.js sits next to out/preload and out/renderer once built. */
const RENDERER_DIR = join(import.meta.dirname, '../renderer');
const PRELOAD_FILE = join(import.meta.dirname, '../preload/index.cjs');

let node: RunningNode | null = null;
let mainWindow: BrowserWindow | null = null;
let notifications: WakeNotifications | null = null;
let stopWake: (() => void) | null = null;

/*
 * These three calls must run in the first tick, before the `ready` event: Electron only accepts
 * privileged schemes and the global sandbox switch before it initialises.
 */
app.enableSandbox();
protocol.registerSchemesAsPrivileged([
  {
    scheme: APP_SCHEME,
    // standard + secure: a real origin (app://svc-node) that counts as a secure context.
    // supportFetchAPI and corsEnabled: Vite emits `<script type="module" crossorigin>`, which
    // Chromium fetches in CORS mode; our responses send no Access-Control-Allow-Origin, so no
    // other origin can read them. Never bypassCSP.
    privileges: { standard: true, secure: true, supportFetchAPI: true, corsEnabled: true },
  },
]);

/**
 * One instance per user data dir: a second launch would open the same encrypted database and
 * custody entries. It focuses the running window instead.
 */
if (!app.requestSingleInstanceLock()) {
  console.log('svc-node is already running: focusing that window.');
  app.exit(0);
} else {
  app.on('second-instance', () => {
    if (mainWindow === null) return;
    if (mainWindow.isMinimized()) mainWindow.restore();
    mainWindow.focus();
  });
  app.whenReady().then(onReady, fail);
}

/** Startup after `ready`: the node first (the window needs its URLs and token), then the window. */
async function onReady(): Promise<void> {
  node = await startNode({
    dataDir: app.getPath('userData'),
    port: 0,
    // Electron's safeStorage (OS keychain / DPAPI / libsecret) wraps the node's secrets.
    custody: { backend: 'safe-storage', safeStorage },
    // The renderer's origin: the node answers its fetches and sends CORS headers for it.
    allowedOrigins: [APP_ORIGIN],
    // Lets the node also serve this UI at /ui/ (e.g. for a browser on the same machine).
    uiDir: RENDERER_DIR,
    log: !app.isPackaged,
  });
  const { core_url, library_url, docs_url } = node.info;
  registerAppProtocol(buildCsp([core_url, library_url, docs_url]));
  installPermissionHandlers();
  createWindow();
  startNotifications(node);
  app.on('activate', () => {
    // macOS: clicking the dock icon with no window open opens one again.
    if (BrowserWindow.getAllWindows().length === 0) createWindow();
  });
}

/** Serves out/renderer at app://svc-node/ with path-traversal checks and the CSP header. */
function registerAppProtocol(csp: string): void {
  protocol.handle(APP_SCHEME, async (request) => {
    const file = resolveAppPath(RENDERER_DIR, request.url);
    if (file === null) return new Response('Not found', { status: 404 });
    try {
      // Symlinks must not lead out of the renderer folder either.
      const real = await realpath(file);
      const realRoot = await realpath(RENDERER_DIR);
      if (!isInside(realRoot, real)) return new Response('Not found', { status: 404 });
      return new Response(await readFile(real), { headers: appResponseHeaders(realRoot, real, csp) });
    } catch {
      return new Response('Not found', { status: 404 });
    }
  });
}

function installPermissionHandlers(): void {
  session.defaultSession.setPermissionRequestHandler((_contents, permission, callback, details) => {
    callback(isPermissionAllowed(permission, details.requestingUrl));
  });
  session.defaultSession.setPermissionCheckHandler((_contents, permission, requestingOrigin) => isPermissionAllowed(permission, requestingOrigin));
}

function createWindow(): void {
  if (node === null) return;
  const window = new BrowserWindow({
    width: 1200,
    height: 800,
    minWidth: 900,
    minHeight: 600,
    title: 'svc-node',
    show: false,
    autoHideMenuBar: true,
    // Matches the renderer's background so there is no white flash in dark mode.
    backgroundColor: nativeTheme.shouldUseDarkColors ? '#17191c' : '#f7f7f5',
    webPreferences: {
      preload: PRELOAD_FILE,
      contextIsolation: true,
      sandbox: true,
      nodeIntegration: false,
      webSecurity: true,
      navigateOnDragDrop: false,
      // The preload reads this from process.argv (no IPC needed): see main/bridge-args.ts.
      additionalArguments: [
        encodeBridgeArg({
          ownerToken: node.ownerToken,
          coreUrl: node.info.core_url,
          libraryUrl: node.info.library_url,
          docsUrl: node.info.docs_url,
        }),
      ],
    },
  });
  window.once('ready-to-show', () => window.show());
  window.on('closed', () => {
    if (mainWindow === window) mainWindow = null;
  });
  mainWindow = window;
  void window.loadURL(APP_ENTRY_URL);
}

/**
 * New mail and chat for any identity on this node become OS notifications, gathered when many
 * arrive at once, and only while the window is not in front (then the app shows them live).
 * A click brings the window forward and opens the item.
 */
function startNotifications(running: RunningNode): void {
  notifications = new WakeNotifications({
    notifier: new ElectronNotifier(),
    navigate: openRoute,
    isQuiet: () => mainWindow !== null && mainWindow.isFocused() && mainWindow.isVisible(),
  });
  const notes = notifications;
  stopWake = running.onWake((item) => notes.push(item));
}

/** Focuses (or reopens) the window and tells the page to show `route`. */
function openRoute(route: string): void {
  if (!isAppRoute(route)) return;
  if (mainWindow === null) createWindow();
  const window = mainWindow;
  if (window === null) return;
  if (window.isMinimized()) window.restore();
  window.show();
  window.focus();
  const send = (): void => window.webContents.send(NAVIGATE_CHANNEL, route);
  if (window.webContents.isLoading()) window.webContents.once('did-finish-load', send);
  else send();
}

/** Guards for every web contents we ever create (windows, and any future views). */
app.on('web-contents-created', (_event, contents: WebContents) => {
  contents.on('will-navigate', (event) => {
    if (!isAllowedNavigation(event.url)) event.preventDefault();
  });
  contents.on('will-redirect', (event) => {
    if (!isAllowedNavigation(event.url)) event.preventDefault();
  });
  contents.setWindowOpenHandler(({ url }) => {
    // Links with target=_blank open in the user's browser (or mail client), never in the app.
    if (isSafeExternalUrl(url)) void shell.openExternal(url);
    return { action: 'deny' };
  });
  contents.on('will-attach-webview', (event) => event.preventDefault());
});

app.on('window-all-closed', () => {
  // macOS apps stay alive without windows; elsewhere closing the window quits.
  if (process.platform !== 'darwin') app.quit();
});

/**
 * Close the node (listeners, then the database) before Electron exits. `before-quit` cannot
 * await, so the first quit is cancelled, the node closes, and we quit again.
 */
let closing = false;
app.on('before-quit', (event) => {
  if (node === null) return;
  event.preventDefault();
  if (closing) return;
  closing = true;
  stopWake?.();
  stopWake = null;
  notifications?.dispose();
  notifications = null;
  const running = node;
  running
    .close()
    .catch((error: unknown) => console.error('svc-node: error while closing the node', error))
    .finally(() => {
      node = null;
      app.quit();
    });
});

/** A startup failure (for example a custody backend change the node refuses) ends in one clear box. */
function fail(error: unknown): void {
  const message = error instanceof Error ? error.message : String(error);
  console.error('svc-node failed to start:', error);
  dialog.showErrorBox('svc-node could not start', message);
  app.exit(1);
}
