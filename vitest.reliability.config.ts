import { defineConfig } from 'vitest/config';

// `npm run test:reliability`: the long suites of test/reliability/ (crash safety, fuzzing at full
// size, load, scale). They are named *.reliability.ts so that `npm test` never picks them up.
export default defineConfig({
  test: {
    include: ['test/reliability/**/*.reliability.ts'],
    environment: 'node',
    // Every response is checked against the schema its route declares (server/http/route-schemas.ts).
    env: { SVC_NODE_VALIDATE_RESPONSES: '1' },
    // One suite at a time: each measures or stresses the whole machine.
    fileParallelism: false,
    testTimeout: 900_000,
    hookTimeout: 300_000,
  },
});
