import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';

/**
 * The playground page. `npm start` (servers/start-playground.ts) runs this config through Vite's
 * `createServer` and adds `define`s with the URLs of the MCP and model servers it started; a
 * plain `vite build` falls back to the default ports (see src/playground-config.ts).
 */
export default defineConfig({
  plugins: [react()],
  server: {
    // Transform the entry before the first request, so the first page load is quick.
    warmup: { clientFiles: ['./src/main.tsx'] },
  },
  build: {
    outDir: 'dist',
    sourcemap: true,
    // One main chunk of about 1.2 MB (about 340 kB gzip): React, the MCP client, zod, the openai
    // SDK and rjsf with ajv (the generated forms). Fine for a local playground; the Anthropic SDK
    // is split off and loaded only when that provider is used.
    chunkSizeWarningLimit: 1300,
  },
});
