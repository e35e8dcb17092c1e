// Must stay the first import: it configures zod before the MCP client loads its schemas.
import './setup-zod.ts';
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { App } from './app.tsx';
import { playgroundConfig } from './playground-config.ts';
import './styles.css';

const container = document.getElementById('root');
if (container === null) throw new Error('The page has no #root element.');

createRoot(container).render(
  <StrictMode>
    <App config={playgroundConfig} />
  </StrictMode>,
);
