/**
 * Imported first by main.tsx, before anything that loads zod schemas (the MCP client): turns off
 * zod's JIT, whose `new Function('')` probe would trip a strict Content-Security-Policy
 * (see /work/shared/notes/mcp-sdk-v2.md §3).
 */
import * as z from 'zod';

z.config({ jitless: true });
