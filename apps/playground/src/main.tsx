// Must stay the first import: it configures zod before the MCP client loads its schemas.
import './setup-zod.ts';
import { IndexedDbHistoryStore, IndexedDbSchemaCache } from '@switchboard/core';
import { SwitchboardProvider } from '@switchboard/react';
import '@switchboard/react/styles.css';
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { App } from './app.tsx';
import { playgroundConfig } from './playground-config.ts';
import { loadServers } from './server-config.ts';
import { ServerRegistry } from './server-registry.ts';
import './styles.css';

const container = document.getElementById('root');
if (container === null) throw new Error('The page has no #root element.');

// Created once for the page, outside React: threads and runs (with paused interrupts) in
// IndexedDB, tool listings cached in IndexedDB so that a reload lists tools at once.
const history = new IndexedDbHistoryStore({ databaseName: 'switchboard-playground' });
const schemaCache = new IndexedDbSchemaCache({
  databaseName: 'switchboard-playground-schema-cache',
});
const registry = new ServerRegistry(loadServers(playgroundConfig), schemaCache);
registry.start();

createRoot(container).render(
  <StrictMode>
    <SwitchboardProvider history={history}>
      <App config={playgroundConfig} registry={registry} history={history} />
    </SwitchboardProvider>
  </StrictMode>,
);
