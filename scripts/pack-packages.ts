/**
 * `npm run pack:packages`: builds and packs the published packages into .packs/ (what
 * `npm publish` would upload) and prints each tarball's size. The examples install these
 * tarballs until the packages are on the registry.
 */
import { mkdir } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { packPackages } from './consumer-check/pack.ts';

const root = fileURLToPath(new URL('..', import.meta.url));
const destination = fileURLToPath(new URL('../.packs', import.meta.url));
await mkdir(destination, { recursive: true });
for (const packed of await packPackages(root, destination)) {
  const kib = (bytes: number) => `${(bytes / 1024).toFixed(1)} KiB`;
  console.log(
    `${packed.tarball}: ${kib(packed.size)} packed, ${kib(packed.unpackedSize)} unpacked, ${packed.files.length} files`,
  );
}
