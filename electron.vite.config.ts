/**
 * Build of the three Electron processes (`npx electron-vite build`, output in out/):
 *
 * - out/main/index.js      the main process (ESM): the thin shell in main/ plus the node it starts
 *                          in-process from server/ (bundled; npm dependencies stay external and are
 *                          loaded from node_modules at runtime).
 * - out/preload/index.cjs  the preload: ONE self-contained CommonJS file, because a sandboxed
 *                          renderer cannot load ESM preloads nor require() anything but `electron`.
 * - out/renderer/          the Vue app. `base: './'` keeps every asset URL relative, so the same
 *                          build is served at app://svc-node/ in Electron and at /ui/ by the
 *                          headless node (`svc-node serve`).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import vue from '@vitejs/plugin-vue';
import { defineConfig } from 'electron-vite';
import type { Plugin } from 'vite';
import { precompress } from './scripts/precompress.ts';

const root = import.meta.dirname;

/** Native modules: never bundled; electron-builder unpacks them from the asar (build/electron-builder.yml). */
const NATIVE_MODULES = ['better-sqlite3-multiple-ciphers', '@napi-rs/keyring'];

/**
 * The bundler warns, many lines at a time, when plugins "take significant time": on a busy or slow
 * machine that is every build, and nothing a user of `npm install`/`npm start` can act on. Other
 * warnings and errors still print.
 */
const QUIET_CHECKS = { bundlerTimings: false };

/**
 * The server reads its SQL migrations at runtime from `./migrations/` next to its own module
 * (server/store/migrations/*.sql). Once bundled, that module is out/main/index.js, so the main
 * build must carry the folder along: this plugin emits every .sql file as out/main/migrations/<name>.
 */
function copyMigrations(): Plugin {
  const source = resolve(root, 'server/store/migrations');
  return {
    name: 'svc-node:copy-migrations',
    apply: 'build',
    buildStart() {
      for (const name of readdirSync(source)) {
        if (name.endsWith('.sql')) this.addWatchFile(join(source, name));
      }
    },
    generateBundle() {
      for (const name of readdirSync(source).sort()) {
        if (!name.endsWith('.sql')) continue;
        this.emitFile({ type: 'asset', fileName: `migrations/${name}`, source: readFileSync(join(source, name)) });
      }
    },
  };
}

/**
 * Brotli and gzip copies of the renderer's scripts and styles beside them (scripts/precompress.ts),
 * written once per build for the headless node to serve by Accept-Encoding.
 */
function precompressRenderer(outDir: string): Plugin {
  return {
    name: 'svc-node:precompress',
    apply: 'build',
    enforce: 'post',
    async closeBundle() {
      await precompress(outDir);
    },
  };
}

/**
 * The sample blueprints the node publishes into a fresh catalog are read at runtime from
 * `./blueprint-samples/` next to their module (server/surfaces/library/catalog/samples.ts); bundled, that
 * is out/main/, so the main build carries the folder along, file by file.
 */
function copyBlueprintSamples(): Plugin {
  const source = resolve(root, 'server/surfaces/library/catalog/blueprint-samples');
  const files = (): string[] =>
    readdirSync(source, { withFileTypes: true, recursive: true })
      .filter((entry) => entry.isFile())
      .map((entry) => relative(source, join(entry.parentPath, entry.name)).split('\\').join('/'))
      .sort();
  return {
    name: 'svc-node:copy-blueprint-samples',
    apply: 'build',
    buildStart() {
      for (const file of files()) this.addWatchFile(join(source, file));
    },
    generateBundle() {
      for (const file of files()) this.emitFile({ type: 'asset', fileName: `blueprint-samples/${file}`, source: readFileSync(join(source, file)) });
    },
  };
}

export default defineConfig({
  main: {
    plugins: [copyMigrations(), copyBlueprintSamples()],
    build: {
      outDir: resolve(root, 'out/main'),
      // Dependencies from package.json stay external (electron-vite's default); the native ones are
      // named explicitly so that no future config change can bundle them by accident.
      externalizeDeps: { include: NATIVE_MODULES },
      rolldownOptions: {
        input: { index: resolve(root, 'main/index.ts') },
        external: NATIVE_MODULES,
        checks: QUIET_CHECKS,
        // A worker thread loads its modules itself, so nothing it imports may sit in the entry
        // chunk: that would run the whole main process (Electron's app and windows) inside the
        // worker. The crypto core the seal worker uses, and the small modules it needs, form a
        // chunk of their own; so do the backup modules the snapshot worker reads, cuts and seals
        // a database with (test/packaging/worker-chunks.test.ts checks every worker's imports).
        output: {
          codeSplitting: {
            groups: [
              { name: 'crypto', test: /[\\/]server[\\/](crypto[\\/]|memo-cache\.ts|lazy\.ts)/ },
              {
                name: 'backup',
                test: /[\\/]server[\\/](recovery[\\/]backup[\\/](snapshot-store|image-chunks|asset-files|folder|chunks|keys|layout|errors)\.ts|custody[\\/]aead\.ts)/,
              },
            ],
          },
        },
      },
    },
  },
  preload: {
    build: {
      outDir: resolve(root, 'out/preload'),
      // Sandbox support: each entry is one standalone bundle with its dependencies inlined.
      isolatedEntries: true,
      externalizeDeps: false,
      rolldownOptions: {
        input: { index: resolve(root, 'preload/index.ts') },
        checks: QUIET_CHECKS,
        output: { format: 'cjs', entryFileNames: '[name].cjs' },
      },
    },
  },
  renderer: {
    root: resolve(root, 'renderer'),
    base: './',
    plugins: [vue(), precompressRenderer(resolve(root, 'out/renderer'))],
    build: {
      outDir: resolve(root, 'out/renderer'),
      emptyOutDir: true,
      rolldownOptions: {
        input: { index: resolve(root, 'renderer/index.html') },
        checks: QUIET_CHECKS,
        // Views are loaded when first opened (renderer/src/router.ts); Vue, Pinia and the router,
        // which every screen needs, form one named chunk. test/packaging/bundle-size.test.ts holds
        // what the first screen loads under its budget.
        output: {
          codeSplitting: { groups: [{ name: 'vue', test: /node_modules[\\/](@vue|vue|vue-router|pinia)[\\/]/ }] },
        },
      },
    },
  },
});
