/**
 * Packaging cannot run on these machines (electron-builder downloads Electron), so this checks
 * build/electron-builder.yml and the files it points at statically: the targets, the fuses, the
 * native modules left outside the asar, the icons and the macOS entitlements.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';

// jsdom parses the plist as XML. As in server/markdown/markdown.test.ts it is loaded
// through a non-literal specifier with the few DOM shapes used here typed locally (@types/jsdom
// would pull the DOM lib into the Node program).
interface XmlElement {
  tagName: string;
  textContent: string | null;
  children: ArrayLike<XmlElement>;
}
interface XmlDocument {
  documentElement: XmlElement;
  getElementsByTagName(name: string): ArrayLike<XmlElement>;
}
interface JsdomModule {
  JSDOM: new () => { window: { DOMParser: new () => { parseFromString(text: string, type: string): XmlDocument } } };
}
const JSDOM_MODULE: string = 'jsdom';
const { JSDOM } = (await import(JSDOM_MODULE)) as JsdomModule;

const root = fileURLToPath(new URL('../../', import.meta.url));
const config = parse(readFileSync(join(root, 'build/electron-builder.yml'), 'utf8')) as Record<string, unknown>;
const packageJson = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as {
  main: string;
  scripts: Record<string, string>;
};

/** A section of the config as a plain object. */
function section(name: string): Record<string, unknown> {
  const value = config[name];
  expect(value, `${name} in electron-builder.yml`).toBeTypeOf('object');
  return value as Record<string, unknown>;
}

/** A platform's target names, whether written as strings or as { target, arch } entries. */
function targetNames(platform: string): string[] {
  const target = section(platform).target;
  const list = Array.isArray(target) ? target : [target];
  return list.map((entry: unknown) => (typeof entry === 'string' ? entry : (entry as { target: string }).target));
}

/** A platform's target architectures for one target. */
function targetArchs(platform: string, name: string): string[] {
  const list = section(platform).target as unknown[];
  const entry = list.find((item) => typeof item === 'object' && (item as { target: string }).target === name) as { arch?: string[] } | undefined;
  return entry?.arch ?? [];
}

/** Width and height from a PNG's IHDR chunk, after checking the signature. */
function pngSize(path: string): { width: number; height: number } {
  const bytes = readFileSync(path);
  expect(bytes.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])), `${path} is a PNG`).toBe(true);
  expect(bytes.toString('latin1', 12, 16)).toBe('IHDR');
  return { width: bytes.readUInt32BE(16), height: bytes.readUInt32BE(20) };
}

describe('electron-builder configuration', () => {
  it('makes an AppImage and a deb, a dmg per Mac architecture, and an NSIS installer', () => {
    expect(targetNames('linux')).toEqual(expect.arrayContaining(['AppImage', 'deb']));
    expect(targetNames('mac')).toEqual(['dmg']);
    expect(targetArchs('mac', 'dmg')).toEqual(expect.arrayContaining(['arm64', 'x64']));
    expect(targetNames('win')).toEqual(['nsis']);
  });

  it('gives the deb what Debian needs: maintainer, category and the libraries Electron links', () => {
    const linux = section('linux');
    expect(linux.maintainer).toBeTypeOf('string');
    expect(linux.category).toBe('Network');
    expect(section('deb').depends).toEqual(expect.arrayContaining(['libgtk-3-0', 'libnss3', 'libsecret-1-0', 'libgbm1', 'libasound2']));
  });

  it("flips every fuse of Electron's security checklist, as element-desktop sets them", () => {
    expect(section('electronFuses')).toEqual({
      runAsNode: false,
      enableNodeOptionsEnvironmentVariable: false,
      enableNodeCliInspectArguments: false,
      enableCookieEncryption: true,
      onlyLoadAppFromAsar: true,
      enableEmbeddedAsarIntegrityValidation: true,
      grantFileProtocolExtraPrivileges: false,
    });
  });

  it('keeps both native modules outside the asar and rebuilds nothing at package time', () => {
    const unpack = config.asarUnpack as string[];
    expect(unpack).toContain('**/node_modules/better-sqlite3-multiple-ciphers/**');
    expect(unpack).toContain('**/node_modules/@napi-rs/keyring/**');
    expect(unpack).toContain('**/node_modules/@napi-rs/keyring-*/**');
    expect(config.npmRebuild).toBe(false);
  });

  it('packs the electron-vite output, whose main entry is package.json main', () => {
    expect(config.files).toContain('out/**');
    expect(packageJson.main).toBe('./out/main/index.js');
    expect(config.publish).toBeNull();
  });

  it('installs per user on Windows and never deletes the data folder on uninstall', () => {
    const nsis = section('nsis');
    expect(nsis.perMachine).toBe(false);
    expect(nsis.oneClick).toBe(true);
    expect(nsis.deleteAppDataOnUninstall).toBe(false);
  });
});

describe('icons', () => {
  it('has a square PNG icon of at least 512x512', () => {
    expect(config.icon).toBe('build/icon.png');
    const { width, height } = pngSize(join(root, 'build/icon.png'));
    expect(width).toBe(height);
    expect(width).toBeGreaterThanOrEqual(512);
  });

  it('has a Linux icon set whose file names match their sizes', () => {
    const dir = join(root, section('linux').icon as string);
    const files = readdirSync(dir).filter((name) => name.endsWith('.png'));
    expect(files.length).toBeGreaterThan(0);
    for (const name of files) {
      const size = Number(/^(\d+)x\1\.png$/.exec(name)?.[1]);
      expect(pngSize(join(dir, name)), name).toEqual({ width: size, height: size });
    }
  });
});

describe('macOS hardened runtime', () => {
  it('signs with an entitlements file that is a well-formed plist granting only allow-jit', () => {
    const mac = section('mac');
    expect(mac.hardenedRuntime).toBe(true);
    for (const key of ['entitlements', 'entitlementsInherit']) {
      const path = join(root, mac[key] as string);
      expect(existsSync(path), `${key}: ${path}`).toBe(true);
      const { DOMParser } = new JSDOM().window;
      const xml = new DOMParser().parseFromString(readFileSync(path, 'utf8'), 'application/xml');
      expect(xml.getElementsByTagName('parsererror')).toHaveLength(0);
      expect(xml.documentElement.tagName).toBe('plist');
      const dict = xml.documentElement.children[0];
      expect(dict?.tagName).toBe('dict');
      const entries = Array.from(dict?.children ?? []);
      const keys = entries.filter((node) => node.tagName === 'key').map((node) => node.textContent);
      const values = entries.filter((node) => node.tagName !== 'key').map((node) => node.tagName);
      expect(keys).toEqual(['com.apple.security.cs.allow-jit']);
      expect(values).toEqual(['true']);
    }
  });
});

describe('the packaging script', () => {
  it('is scripts/package.ts, run by `npm run package`', () => {
    expect(existsSync(join(root, 'scripts/package.ts'))).toBe(true);
    expect(packageJson.scripts.package).toBe('node scripts/package.ts');
  });

  it('is not part of the CI run', () => {
    expect(readFileSync(join(root, '.ci/run'), 'utf8')).not.toMatch(/npm run package|electron-builder/);
    expect(packageJson.scripts.test).not.toMatch(/package/);
  });
});
