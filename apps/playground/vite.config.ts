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
    // One chunk of about 680 kB (190 kB gzip): React, the MCP client, zod and the openai SDK. Fine
    // for a local playground; splitting it would only add requests.
    chunkSizeWarningLimit: 800,
  },
});
