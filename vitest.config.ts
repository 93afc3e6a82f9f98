import { defineConfig } from 'vitest/config';

/** The black-box suite of apps/server, run once more against apps/bun and apps/deno (see the harness's launchers). */
const SHARED_E2E = ['apps/server/test/*.e2e.test.ts'];
const OTHER_RUNTIMES = ['bun', 'deno'] as const;

export default defineConfig({
  // Workspace packages are consumed from their TypeScript sources (export condition `source`), never
  // from a dist/ that may be missing or stale. Tests run in Vite's server environment, whose
  // conditions are ssr.resolve's; the rest of the list is Vite's default for it.
  resolve: { conditions: ['source'] },
  ssr: { resolve: { conditions: ['source', 'module', 'node', 'development|production'], externalConditions: ['source'] } },
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
