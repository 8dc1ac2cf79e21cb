/**
 * The renderer's only view of the desktop: what the preload (preload/index.ts) exposes as
 * `window.svc`. The renderer compiles against this file alone (tsconfig.web.json), never against
 * main/ or server/. In a plain browser (the headless node serving /ui/) `window.svc` is undefined.
 */
export interface SvcBridge {
  /** The per-launch owner token for the node's owner API (`Authorization: Bearer ...`). */
  readonly ownerToken: string;
  /** Base URL of the core surface (identities, mail, chat, owner API), e.g. http://127.0.0.1:41234. */
  readonly coreUrl: string;
  /** Base URL of the library surface (agent profiles, blueprints). */
  readonly libraryUrl: string;
  /** Base URL of the documents surface. */
  readonly docsUrl: string;
  /** The OS, as Node names it: 'darwin', 'win32', 'linux', ... */
  readonly platform: string;
  /**
   * Calls `listener` with an in-app route (`/mail?identity=…&message=…`, `/chat?identity=…&session=…`)
   * when the user clicks a desktop notification; returns the unsubscribe. Only routes that pass
   * main/navigate.ts's allow-list reach it.
   */
  readonly onNavigate?: (listener: (path: string) => void) => () => void;
}

declare global {
  interface Window {
    svc?: SvcBridge;
  }
}
