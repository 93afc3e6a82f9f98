import { defineConfig } from 'vitest/config';
export default defineConfig({ test: { root: '/work/main', include: ['apps/server/test/**/*.test.ts'], testTimeout: 30000, hookTimeout: 60000 } });
