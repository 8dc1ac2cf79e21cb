/**
 * A static check of the Electron configuration (DESIGN §7; Electron's security checklist), without
 * launching Electron (it cannot run on the test machines): main/ is parsed with the TypeScript
 * compiler API and every BrowserWindow, the sandbox switch and the navigation and window-open
 * guards are read from the syntax tree; the CSP that app:// sends is built by the shipped
 * function; the renderer's meta CSP and the packaging fuses are read from their files. A change
 * that weakens any of them fails here by name, before a build ever ships it.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { APP_ENTRY_URL, buildCsp } from '../../main/app-protocol.ts';
import { isAllowedNavigation } from '../../main/security.ts';
import { REPO_ROOT } from '../support/cli.ts';

const MAIN_DIR = join(REPO_ROOT, 'main');
const sources = readdirSync(MAIN_DIR)
  .filter((name) => name.endsWith('.ts') && !name.endsWith('.test.ts'))
  .map((name) => ts.createSourceFile(name, readFileSync(join(MAIN_DIR, name), 'utf8'), ts.ScriptTarget.Latest, true));
const mainIndex = sources.find((file) => file.fileName === 'index.ts')!;

/** Every node under `root` (root included) that `test` accepts, optionally not entering nested functions. */
function find<T extends ts.Node>(root: ts.Node, test: (node: ts.Node) => node is T, options: { intoFunctions?: boolean } = {}): T[] {
  const found: T[] = [];
  const visit = (node: ts.Node): void => {
    if (test(node)) found.push(node);
    if (node !== root && options.intoFunctions === false && ts.isFunctionLike(node)) return;
    ts.forEachChild(node, visit);
  };
  visit(root);
  return found;
}

/** `receiver.method(...)` calls, e.g. ('app', 'enableSandbox'); receiver null: any receiver. */
function methodCalls(root: ts.Node, receiver: string | null, method: string): ts.CallExpression[] {
  return find(root, ts.isCallExpression).filter(
    (call) =>
      ts.isPropertyAccessExpression(call.expression) &&
      call.expression.name.text === method &&
      (receiver === null || call.expression.expression.getText() === receiver),
  );
}

/** The handler of `x.on('<event>', handler)`, or of `x.setWindowOpenHandler(handler)`. */
function handlerOf(call: ts.CallExpression): ts.ArrowFunction | ts.FunctionExpression {
  const handler = call.arguments[call.arguments.length - 1];
  if (handler === undefined || !(ts.isArrowFunction(handler) || ts.isFunctionExpression(handler))) {
    throw new Error(`expected an inline handler in ${call.getText()}`);
  }
  return handler;
}

function onEvent(root: ts.Node, event: string): ts.CallExpression[] {
  return methodCalls(root, null, 'on').filter((call) => {
    const name = call.arguments[0];
    return name !== undefined && ts.isStringLiteral(name) && name.text === event;
  });
}

function property(object: ts.ObjectLiteralExpression, name: string): ts.Expression | undefined {
  for (const element of object.properties) {
    if (ts.isPropertyAssignment(element) && element.name.getText().replace(/['"]/g, '') === name) return element.initializer;
  }
  return undefined;
}

const isTrue = (value: ts.Expression | undefined): boolean => value?.kind === ts.SyntaxKind.TrueKeyword;
const isFalse = (value: ts.Expression | undefined): boolean => value?.kind === ts.SyntaxKind.FalseKeyword;

/** The `webPreferences` object of every `new BrowserWindow({...})` in main/. */
function webPreferences(): { where: string; prefs: ts.ObjectLiteralExpression }[] {
  return sources.flatMap((file) =>
    find(file, ts.isNewExpression)
      .filter((expr) => expr.expression.getText() === 'BrowserWindow')
      .map((expr) => {
        const where = `${file.fileName}:${file.getLineAndCharacterOfPosition(expr.getStart()).line + 1}`;
        const options = expr.arguments?.[0];
        if (options === undefined || !ts.isObjectLiteralExpression(options)) throw new Error(`${where}: BrowserWindow options are not an inline object`);
        const prefs = property(options, 'webPreferences');
        if (prefs === undefined || !ts.isObjectLiteralExpression(prefs)) throw new Error(`${where}: no inline webPreferences`);
        return { where, prefs };
      }),
  );
}

/** The CSP's directives, by name. */
function directives(csp: string): Map<string, string[]> {
  return new Map(
    csp
      .split(';')
      .map((d) => d.trim().split(/\s+/))
      .filter((parts) => parts[0])
      .map(([name, ...values]) => [name as string, values]),
  );
}

describe('BrowserWindow webPreferences', () => {
  it('main/ creates at least one BrowserWindow, each with inline webPreferences and no spread that could override them', () => {
    const windows = webPreferences();
    expect(windows.length).toBeGreaterThanOrEqual(1);
    for (const { where, prefs } of windows) expect(prefs.properties.filter(ts.isSpreadAssignment), where).toEqual([]);
  });

  it.each([
    ['contextIsolation is true', (p: ts.ObjectLiteralExpression) => isTrue(property(p, 'contextIsolation'))],
    ['sandbox is true', (p: ts.ObjectLiteralExpression) => isTrue(property(p, 'sandbox'))],
    ['nodeIntegration is false', (p: ts.ObjectLiteralExpression) => isFalse(property(p, 'nodeIntegration'))],
    ['nodeIntegrationInWorker is not true', (p: ts.ObjectLiteralExpression) => !isTrue(property(p, 'nodeIntegrationInWorker'))],
    ['nodeIntegrationInSubFrames is not true', (p: ts.ObjectLiteralExpression) => !isTrue(property(p, 'nodeIntegrationInSubFrames'))],
    ['webviewTag is not true', (p: ts.ObjectLiteralExpression) => !isTrue(property(p, 'webviewTag'))],
    ['allowRunningInsecureContent is not true', (p: ts.ObjectLiteralExpression) => !isTrue(property(p, 'allowRunningInsecureContent'))],
    ['webSecurity is not false', (p: ts.ObjectLiteralExpression) => !isFalse(property(p, 'webSecurity'))],
    ['experimentalFeatures is not true', (p: ts.ObjectLiteralExpression) => !isTrue(property(p, 'experimentalFeatures'))],
  ])('every window: %s', (_name, holds) => {
    for (const { where, prefs } of webPreferences()) expect(holds(prefs), where).toBe(true);
  });
});

describe('process-wide switches', () => {
  it('calls app.enableSandbox() at the top level of main/index.ts (the first tick, before ready)', () => {
    const topLevel = mainIndex.statements.filter(
      (statement) => ts.isExpressionStatement(statement) && statement.expression.getText() === 'app.enableSandbox()',
    );
    expect(topLevel).toHaveLength(1);
  });

  it('never registers a privileged scheme that bypasses the CSP', () => {
    const calls = sources.flatMap((file) => methodCalls(file, 'protocol', 'registerSchemesAsPrivileged'));
    expect(calls.length).toBeGreaterThanOrEqual(1);
    for (const call of calls) expect(call.getText()).not.toMatch(/bypassCSP\s*:\s*true/);
  });
});

describe('navigation and window-open guards', () => {
  /** The `app.on('web-contents-created', ...)` handler: guards there cover every web contents. */
  const guardsRoot = (): ts.ArrowFunction | ts.FunctionExpression => {
    const calls = onEvent(mainIndex, 'web-contents-created').filter(
      (call) => ts.isPropertyAccessExpression(call.expression) && call.expression.expression.getText() === 'app',
    );
    expect(calls).toHaveLength(1);
    return handlerOf(calls[0]!);
  };

  /** True when `handler` is exactly `if (!isAllowedNavigation(<event>.url)) <event>.preventDefault();`. */
  const deniesUnlessAllowed = (handler: ts.ArrowFunction | ts.FunctionExpression): boolean => {
    const event = handler.parameters[0]?.name.getText();
    const body = handler.body;
    const statements = ts.isBlock(body) ? body.statements : [];
    if (statements.length !== 1) return false;
    const only = statements[0]!;
    if (!ts.isIfStatement(only) || only.elseStatement !== undefined) return false;
    const cond = only.expression;
    const negatedCheck =
      ts.isPrefixUnaryExpression(cond) && cond.operator === ts.SyntaxKind.ExclamationToken && cond.operand.getText() === `isAllowedNavigation(${event}.url)`;
    return negatedCheck && only.thenStatement.getText().replace(/[{}\s;]/g, '') === `${event}.preventDefault()`;
  };

  it.each(['will-navigate', 'will-redirect'])('every web contents gets a %s handler that prevents all but allow-listed URLs', (event) => {
    const calls = onEvent(guardsRoot(), event);
    expect(calls).toHaveLength(1);
    expect(deniesUnlessAllowed(handlerOf(calls[0]!))).toBe(true);
  });

  it('allow-lists navigation to the app:// origin only', () => {
    expect(isAllowedNavigation(APP_ENTRY_URL)).toBe(true);
    for (const url of [
      'https://evil.example/',
      'http://127.0.0.1:7420/ui/',
      'file:///etc/passwd',
      'app://other/index.html',
      'javascript:alert(1)',
      'not a url',
    ]) {
      expect(isAllowedNavigation(url), url).toBe(false);
    }
  });

  it("every web contents gets a window-open handler whose every return is { action: 'deny' }", () => {
    const calls = methodCalls(guardsRoot(), null, 'setWindowOpenHandler');
    expect(calls).toHaveLength(1);
    const handler = handlerOf(calls[0]!);
    const returns = ts.isBlock(handler.body) ? find(handler.body, ts.isReturnStatement, { intoFunctions: false }).map((r) => r.expression) : [handler.body];
    expect(returns.length).toBeGreaterThanOrEqual(1);
    for (const value of returns) expect(value?.getText().replace(/\s/g, '')).toBe("{action:'deny'}");
    expect(handler.getText()).not.toMatch(/['"]allow['"]/);
  });

  it('every web contents refuses to attach a <webview>', () => {
    const calls = onEvent(guardsRoot(), 'will-attach-webview');
    expect(calls).toHaveLength(1);
    const handler = handlerOf(calls[0]!);
    const event = handler.parameters[0]?.name.getText();
    expect(handler.body.getText().replace(/[{}\s;]/g, '')).toBe(`${event}.preventDefault()`);
  });
});

describe('Content-Security-Policy', () => {
  const appCsp = directives(buildCsp(['http://127.0.0.1:7420', 'http://localhost:7421']));

  it('sends app:// responses the CSP that buildCsp makes from the node URLs', () => {
    expect(find(mainIndex, ts.isCallExpression).some((call) => call.expression.getText() === 'buildCsp')).toBe(true);
  });

  it("app:// CSP: script-src is 'self' only and nothing allows eval or inline script", () => {
    expect(appCsp.get('script-src')).toEqual(["'self'"]);
    for (const [name, values] of appCsp) {
      expect(values, name).not.toContain("'unsafe-eval'");
      expect(values, name).not.toContain("'wasm-unsafe-eval'");
    }
    expect(appCsp.get('default-src')).toEqual(["'none'"]);
  });

  it.each(['object-src', 'frame-ancestors', 'base-uri'])("app:// CSP: %s is 'none'", (name) => {
    expect(appCsp.get(name)).toEqual(["'none'"]);
  });

  it("renderer/index.html's meta CSP: script-src is 'self' only and nothing allows eval", () => {
    const html = readFileSync(join(REPO_ROOT, 'renderer/index.html'), 'utf8');
    const metas = [...html.matchAll(/<meta\s+http-equiv="Content-Security-Policy"\s+content="([^"]*)"/gi)];
    expect(metas).toHaveLength(1);
    const meta = directives(metas[0]![1] as string);
    expect(meta.get('script-src')).toEqual(["'self'"]);
    for (const [name, values] of meta) expect(values, name).not.toContain("'unsafe-eval'");
    expect(meta.get('object-src')).toEqual(["'none'"]);
  });
});

describe('Electron fuses (build/electron-builder.yml)', () => {
  const config = parseYaml(readFileSync(join(REPO_ROOT, 'build/electron-builder.yml'), 'utf8')) as { electronFuses?: Record<string, unknown> };

  it.each([
    ['runAsNode', false],
    ['enableNodeOptionsEnvironmentVariable', false],
    ['enableNodeCliInspectArguments', false],
    ['enableCookieEncryption', true],
    ['onlyLoadAppFromAsar', true],
    ['enableEmbeddedAsarIntegrityValidation', true],
    ['grantFileProtocolExtraPrivileges', false],
  ] as const)('sets the fuse %s to %s', (fuse, value) => {
    expect(config.electronFuses?.[fuse]).toBe(value);
  });
});
