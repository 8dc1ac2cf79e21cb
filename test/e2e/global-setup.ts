/**
 * vitest globalSetup for the browser tests: build the UI once before any test runs, if the build
 * in out/renderer is missing or older than the renderer sources. Wire it in vitest.config.ts:
 * `test: { globalSetup: ['test/e2e/global-setup.ts'] }`.
 */
import { ensureUiBuilt } from './build-ui.ts';

export default function setup(): void {
  ensureUiBuilt();
}
