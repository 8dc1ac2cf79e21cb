#!/usr/bin/env node
// The svc-node command. The node is TypeScript run by Node's type stripping, so it needs the
// Node 24 the project pins: `npx svc-node` and npm scripts put that one first on PATH.
const [major, minor] = process.versions.node.split('.').map(Number);
if (major < 22 || (major === 22 && minor < 18)) {
  process.stderr.write(`svc-node: needs Node 24 (this is ${process.version}); run it as \`npx svc-node\` inside the project\n`);
  process.exit(1);
}
await import('../server/cli/main.ts');
