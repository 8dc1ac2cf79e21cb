import { defineConfig } from 'vitest/config';

// CI asks for a JSON report so it can print a plain "N passed, N failed" line.
const jsonReport = process.env.VITEST_JSON_REPORT;

export default defineConfig({
  test: {
    include: ['bench/**/*.test.ts', 'contract/**/*.test.ts', 'server/**/*.test.ts', 'main/**/*.test.ts', 'renderer/**/*.test.ts', 'test/**/*.test.ts'],
    environment: 'node',
    // Every response is checked against the schema its route declares (server/http/route-schemas.ts).
    env: { SVC_NODE_VALIDATE_RESPONSES: '1' },
    // Builds the UI once when it is missing or older than its sources, for the e2e tests.
    globalSetup: ['test/e2e/global-setup.ts'],
    testTimeout: 20_000,
    hookTimeout: 60_000,
    reporters: jsonReport ? ['default', ['json', { outputFile: jsonReport }]] : ['default'],
  },
});
