import { fileURLToPath } from 'node:url';
import react from '@vitejs/plugin-react';
import { defaultClientConditions, defineConfig } from 'vite';

/**
 * The playground page. `npm start` (servers/start-playground.ts) runs this config through Vite's
 * `createServer` and adds `define`s with the URLs of the MCP and model servers it started; a
 * plain `vite build` falls back to the default ports (see src/playground-config.ts).
 *
 * Two pages: the playground (`index.html`) and the OAuth callback page (`oauth-callback.html`,
 * the redirect URI of the servers that sign in with OAuth: it hands the authorization
 * server's answer back to the playground; see src/oauth-callback.ts).
 */
export default defineConfig({
  plugins: [react()],
  // The workspace packages from their TypeScript source (the `@switchboard/source` export
  // condition), so the playground runs without building them.
  resolve: { conditions: ['@switchboard/source', ...defaultClientConditions] },
  server: {
    // Transform the entries before the first request, so the first page load is quick.
    warmup: { clientFiles: ['./src/main.tsx', './src/oauth-callback.ts'] },
  },
  build: {
    outDir: 'dist',
    sourcemap: true,
    // One main chunk of about 1.2 MB (about 340 kB gzip): React, the MCP client, zod, the openai
    // SDK and rjsf with ajv (the generated forms). Fine for a local playground; the Anthropic SDK
    // is split off and loaded only when that provider is used.
    chunkSizeWarningLimit: 1300,
    rolldownOptions: {
      input: {
        main: fileURLToPath(new URL('./index.html', import.meta.url)),
        'oauth-callback': fileURLToPath(new URL('./oauth-callback.html', import.meta.url)),
      },
    },
  },
});
