import { defineConfig } from 'vitest/config';

/** The black-box suite of apps/server, run once more against apps/bun and apps/deno (see the harness's launchers). */
const SHARED_E2E = ['apps/server/test/*.e2e.test.ts'];
const OTHER_RUNTIMES = ['bun', 'deno'] as const;

export default defineConfig({
  resolve: {
    // Workspace packages are consumed from their TypeScript sources, no build needed for tests.
    conditions: ['source'],
  },
  test: {
    globalSetup: ['apps/server/test/global-setup.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    projects: [
      {
        extends: true,
        test: {
          name: 'node',
          include: ['packages/*/src/**/*.test.ts', 'packages/*/test/**/*.test.ts', 'apps/*/src/**/*.test.ts', 'apps/*/test/**/*.test.ts'],
        },
      },
      ...OTHER_RUNTIMES.map((runtime) => ({
        extends: true as const,
        test: { name: `e2e:${runtime}`, include: SHARED_E2E, env: { WEBUI_E2E_RUNTIME: runtime } },
      })),
    ],
    coverage: {
      provider: 'v8',
      include: ['packages/*/src/**/*.ts', 'apps/*/src/**/*.ts'],
      // apps/bun and apps/deno run in their own runtimes' processes, out of the coverage's sight.
      exclude: ['**/*.test.ts', '**/testing/store-conformance.ts', 'apps/bun/**', 'apps/deno/**'],
      reporter: ['text-summary', 'text'],
      thresholds: {
        'packages/core/src/**': { lines: 95 },
      },
    },
  },
});
