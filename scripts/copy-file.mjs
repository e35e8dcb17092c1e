// Copies one file (a package's stylesheet into dist/): `node copy-file.mjs <from> <to>`.
import { copyFileSync } from 'node:fs';

const [from, to] = process.argv.slice(2);
if (from === undefined || to === undefined) throw new Error('usage: copy-file.mjs <from> <to>');
copyFileSync(from, to);
