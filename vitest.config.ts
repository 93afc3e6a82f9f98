import { configDefaults, defineConfig } from 'vitest/config';

/** The black-box suite of apps/server, run once more against apps/bun and apps/deno (see the harness's launchers). */
const SHARED_E2E = ['apps/server/test/*/*.e2e.test.ts'];
const OTHER_RUNTIMES = ['bun', 'deno'] as const;
/** The slow proofs: only `npm run test:soak` (apps/server/soak/run.mjs) runs them, setting WEBUI_SOAK=1. */
const SOAK_TESTS = ['apps/server/test/soak/*.soak.test.ts'];
const SOAK = process.env['WEBUI_SOAK'] === '1';
const EVERY_TEST = [
  {
    extends: true as const,
    test: {
      name: 'node',
      include: [
        'packages/*/src/**/*.test.ts',
        'packages/*/test/**/*.test.ts',
        'apps/*/src/**/*.test.ts',
        'apps/*/test/**/*.test.ts',
        // The repository's own checks: links, citations, no path outside it.
        'scripts/**/*.test.ts',
      ],
      exclude: [...configDefaults.exclude, ...SOAK_TESTS],
    },
  },
  ...OTHER_RUNTIMES.map((runtime) => ({
    extends: true as const,
    test: { name: `e2e:${runtime}`, include: SHARED_E2E, env: { WEBUI_E2E_RUNTIME: runtime } },
  })),
];

export default defineConfig({
  // Workspace packages are consumed from their TypeScript sources (export condition `source`), never
  // from a dist/ that may be missing or stale. Tests run in Vite's server environment, whose
  // conditions are ssr.resolve's; the rest of the list is Vite's default for it.
  resolve: { conditions: ['source'] },
  ssr: { resolve: { conditions: ['source', 'module', 'node', 'development|production'], externalConditions: ['source'] } },
  test: {
    globalSetup: ['apps/server/test/global-setup.ts'],
    setupFiles: ['apps/server/test/harness/each-file.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // Test files share their worker's module cache: evaluating hono, valibot and the packages again for every file
    // cost more than most files' tests. A hook a file needs is registered by the file or by setupFiles, never by a shared module.
    isolate: false,
    // Most files wait on servers, browsers and CLIs they spawned: three at once keep two CPUs busy (vitest's default here is one).
    maxWorkers: 3,
    projects: SOAK ? [{ extends: true, test: { name: 'soak', include: SOAK_TESTS } }] : EVERY_TEST,
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
