import { defaultClientConditions, defaultServerConditions } from 'vite';
import { defineConfig } from 'vitest/config';

/**
 * Workspace packages resolve to their TypeScript source through this export condition (see the
 * `exports` of packages/core and packages/react), so tests never need a build.
 */
const sourceCondition = '@switchboard/source';

/**
 * Root Vitest config. Six projects (docs/architecture.md, "The repository"):
 * - core-node: the core package under Node, including integration tests against real servers.
 * - stores: @switchboard/redis and @switchboard/postgres against real servers they start.
 * - durable: @switchboard/restate against a real Restate server, PostgreSQL and Redis.
 * - core-browser-like: core tests that need browser globals (DOM, IndexedDB via fake-indexeddb).
 * - react: hooks and components under jsdom.
 * - playground: the playground's components under jsdom.
 */
export default defineConfig({
  resolve: { conditions: [sourceCondition, ...defaultClientConditions] },
  ssr: { resolve: { conditions: [sourceCondition, ...defaultServerConditions] } },
  test: {
    projects: [
      {
        // Inherit the root's resolve conditions (the workspace packages from source).
        extends: true,
        test: {
          name: 'core-node',
          environment: 'node',
          include: [
            'packages/core/src/**/*.test.ts',
            'packages/fixtures/src/**/*.test.ts',
            'apps/playground/servers/**/*.test.ts',
          ],
          exclude: ['**/*.browser.test.ts'],
          testTimeout: 30_000,
          hookTimeout: 30_000,
        },
      },
      {
        // Inherit the root's resolve conditions (the workspace packages from source).
        extends: true,
        test: {
          name: 'stores',
          environment: 'node',
          include: ['packages/redis/src/**/*.test.ts', 'packages/postgres/src/**/*.test.ts'],
          testTimeout: 30_000,
          hookTimeout: 60_000,
        },
      },
      {
        // Inherit the root's resolve conditions (the workspace packages from source).
        extends: true,
        test: {
          name: 'durable',
          environment: 'node',
          include: ['packages/restate/src/**/*.test.ts'],
          testTimeout: 120_000,
          hookTimeout: 120_000,
        },
      },
      {
        // Inherit the root's resolve conditions (the workspace packages from source).
        extends: true,
        test: {
          name: 'core-browser-like',
          environment: 'jsdom',
          include: ['packages/core/src/**/*.browser.test.ts'],
          testTimeout: 30_000,
        },
      },
      {
        // Inherit the root's resolve conditions (the workspace packages from source).
        extends: true,
        test: {
          name: 'react',
          environment: 'jsdom',
          include: ['packages/react/src/**/*.test.{ts,tsx}'],
          testTimeout: 30_000,
        },
      },
      {
        // Inherit the root's resolve conditions (the workspace packages from source).
        extends: true,
        test: {
          name: 'playground',
          environment: 'jsdom',
          include: ['apps/playground/src/**/*.test.{ts,tsx}'],
          testTimeout: 30_000,
        },
      },
    ],
  },
});
