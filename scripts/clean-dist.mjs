// Removes the package's dist/ before a build, so a renamed or deleted module never ships stale.
import { rmSync } from 'node:fs';

rmSync('dist', { recursive: true, force: true });
