/**
 * `npm run package -- [--linux] [--mac] [--win] [--rebuild]`: the desktop installers, on a
 * networked machine (docs/development.md, "Packaging the desktop app"). With no platform flag it packages for
 * the machine it runs on. Steps, each printed before it runs:
 *
 * 1. `electron-vite build` into out/ (what build/electron-builder.yml packs).
 * 2. The native modules. Both runtime ones are N-API addons with prebuilt binaries, and N-API is
 *    ABI-stable across Node and Electron, so the binaries npm installed load in Electron as they
 *    are: better-sqlite3-multiple-ciphers 13 carries prebuilds/<platform>-<arch>.node for every
 *    target inside its tarball (and its loader prefers them over anything in build/), and
 *    @napi-rs/keyring comes as one optional package per platform. So this step checks that the
 *    binary for every target platform and architecture is there, and by default rebuilds nothing:
 *    `electron-builder install-app-deps` (@electron/rebuild) would download Electron's headers and
 *    recompile better-sqlite3-multiple-ciphers from source with a C++ toolchain into a build/
 *    folder the loader never reads. `--rebuild` runs it anyway, for a future native dependency
 *    that is not N-API (the check names any such module it finds).
 * 3. electron-builder with build/electron-builder.yml for the requested platforms (`--publish
 *    never`). It downloads Electron and the installer tools; when that fails for lack of network
 *    the script says so in one line.
 *
 * It refuses to run in CI (the CI machines cannot download Electron; `npm test` checks the
 * configuration statically in test/packaging/packaging.test.ts) unless given --allow-ci.
 */
import { spawn } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const CONFIG = 'build/electron-builder.yml';
const NO_NETWORK = 'svc-node: packaging needs a networked machine that can download Electron';

type Platform = 'linux' | 'mac' | 'win';

/** The architectures build/electron-builder.yml builds per platform, and Node's names for them. */
const TARGETS: Record<Platform, { node: NodeJS.Platform; arch: string[] }> = {
  linux: { node: 'linux', arch: ['x64'] },
  mac: { node: 'darwin', arch: ['arm64', 'x64'] },
  win: { node: 'win32', arch: ['x64'] },
};

function fail(line: string): never {
  process.stderr.write(`${line}\n`);
  process.exit(1);
}

function step(text: string): void {
  process.stdout.write(`\n== ${text}\n`);
}

function hostPlatform(): Platform {
  if (process.platform === 'darwin') return 'mac';
  if (process.platform === 'win32') return 'win';
  return 'linux';
}

function parseArgs(argv: readonly string[]): { platforms: Platform[]; rebuild: boolean; allowCi: boolean } {
  const platforms: Platform[] = [];
  let rebuild = false;
  let allowCi = false;
  for (const arg of argv) {
    if (arg === '--linux' || arg === '--mac' || arg === '--win') platforms.push(arg.slice(2) as Platform);
    else if (arg === '--rebuild') rebuild = true;
    else if (arg === '--allow-ci') allowCi = true;
    else fail(`svc-node package: unknown option ${arg} (use --linux, --mac, --win, --rebuild)`);
  }
  return { platforms: platforms.length > 0 ? [...new Set(platforms)] : [hostPlatform()], rebuild, allowCi };
}

/** Runs a command with inherited stdin and a copy of its output kept for the failure message. */
function run(command: string, args: readonly string[]): Promise<{ code: number; output: string }> {
  process.stdout.write(`$ ${command} ${args.join(' ')}\n`);
  return new Promise((resolve) => {
    // npx is npx.cmd on Windows, which only a shell can start.
    const child = spawn(command, args, { cwd: root, stdio: ['inherit', 'pipe', 'pipe'], shell: process.platform === 'win32' });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => {
      process.stdout.write(chunk);
      output += chunk.toString();
    });
    child.stderr.on('data', (chunk: Buffer) => {
      process.stderr.write(chunk);
      output += chunk.toString();
    });
    child.on('error', (error) => resolve({ code: 1, output: String(error) }));
    child.on('close', (code) => resolve({ code: code ?? 1, output }));
  });
}

/** Output of a failed download: no DNS, no route, refused or timed-out connections. */
function looksOffline(output: string): boolean {
  return /ENOTFOUND|EAI_AGAIN|ENETUNREACH|ECONNREFUSED|ECONNRESET|ETIMEDOUT|getaddrinfo|socket hang up|network connectivity/i.test(output);
}

/**
 * Step 2's check. Returns the problems that stop packaging (a missing prebuild, or a native module
 * we do not know to be N-API) and prints one line per module.
 */
function checkNativeModules(platforms: readonly Platform[]): string[] {
  const problems: string[] = [];
  const modules = join(root, 'node_modules');

  const sqlite = join(modules, 'better-sqlite3-multiple-ciphers/prebuilds');
  for (const platform of platforms) {
    for (const arch of TARGETS[platform].arch) {
      const file = `${TARGETS[platform].node}-${arch}.node`;
      if (existsSync(join(sqlite, file))) console.log(`better-sqlite3-multiple-ciphers: N-API prebuild ${file}: no rebuild needed`);
      else problems.push(`better-sqlite3-multiple-ciphers has no prebuild ${file}`);
    }
  }

  // npm installs only the host's optional package; the desktop app keeps its keys with Electron's
  // safeStorage, and @napi-rs/keyring serves the headless node's `--custody keyring`, so a missing
  // one for another platform is a warning, not an error.
  const keyringPackages = existsSync(join(modules, '@napi-rs')) ? readdirSync(join(modules, '@napi-rs')).filter((name) => name.startsWith('keyring-')) : [];
  for (const platform of platforms) {
    for (const arch of TARGETS[platform].arch) {
      const prefix = `keyring-${TARGETS[platform].node}-${arch}`;
      const found = keyringPackages.find((name) => name.startsWith(prefix));
      if (found !== undefined) console.log(`@napi-rs/keyring: N-API package @napi-rs/${found}: no rebuild needed`);
      else
        console.log(`@napi-rs/keyring: warning: @napi-rs/${prefix}-* is not installed (npm installs the host's only; package on that platform to include it)`);
    }
  }

  // Any other addon at the top of node_modules: known optional ones are named, unknown ones stop
  // the run so that nobody ships a binary built for Node's ABI by accident.
  const KNOWN: Record<string, string> = {
    'better-sqlite3-multiple-ciphers': 'checked above',
    'cpu-features': "ssh2's optional accelerator, left out of the package (build/electron-builder.yml files)",
  };
  for (const name of topLevelPackages(modules)) {
    if (!existsSync(join(modules, name, 'binding.gyp')) || name in KNOWN) continue;
    problems.push(`${name} is a native module that may not be N-API: check it, then package with --rebuild`);
  }
  if (existsSync(join(modules, 'cpu-features'))) console.log(`cpu-features: ${KNOWN['cpu-features']}`);
  console.log('ssh2: its optional lib/protocol/crypto binding is left out of the package too (ssh2 works without it)');
  return problems;
}

function topLevelPackages(modules: string): string[] {
  if (!existsSync(modules)) return [];
  return readdirSync(modules).flatMap((name) => {
    if (name.startsWith('.')) return [];
    if (!name.startsWith('@')) return [name];
    return readdirSync(join(modules, name)).map((sub) => `${name}/${sub}`);
  });
}

const { platforms, rebuild, allowCi } = parseArgs(process.argv.slice(2));

if (process.env.CI && !allowCi) {
  fail(
    'svc-node: packaging does not run in CI (it downloads Electron); `npm test` checks build/electron-builder.yml instead. Pass --allow-ci on a networked release runner.',
  );
}
if (platforms.includes('mac') && process.platform !== 'darwin') {
  fail('svc-node: the macOS dmg can only be built (and signed, notarized) on macOS');
}
if (!existsSync(join(root, 'node_modules/electron-builder/package.json'))) {
  fail('svc-node: electron-builder is missing from node_modules: run `npm ci` first');
}
for (const platform of platforms) {
  if (platform !== hostPlatform()) {
    console.log(`note: packaging for ${platform} on ${hostPlatform()}; building each platform on its own OS is the tested path`);
  }
}

step('1/3 electron-vite build (out/)');
if ((await run('npx', ['electron-vite', 'build'])).code !== 0) fail('svc-node: electron-vite build failed');

step('2/3 native modules for Electron');
const problems = checkNativeModules(platforms);
if (rebuild) {
  for (const platform of platforms) {
    for (const arch of TARGETS[platform].arch) {
      const result = await run('npx', ['electron-builder', 'install-app-deps', '--platform', TARGETS[platform].node, '--arch', arch]);
      if (result.code !== 0) fail(looksOffline(result.output) ? NO_NETWORK : 'svc-node: electron-builder install-app-deps failed (see above)');
    }
  }
} else if (problems.length > 0) {
  fail(`svc-node: ${problems.join('; ')}`);
} else {
  console.log('nothing to rebuild: the N-API binaries above load in Electron as they are (--rebuild forces @electron/rebuild)');
}

step(`3/3 electron-builder (${platforms.join(', ')}) into dist/`);
const result = await run('npx', ['electron-builder', '--config', CONFIG, '--publish', 'never', ...platforms.map((p) => `--${p}`)]);
if (result.code !== 0) {
  fail(looksOffline(result.output) ? NO_NETWORK : `svc-node: electron-builder failed (exit ${result.code}); see above`);
}
console.log('\npackages written to dist/');
