import { SwitchboardError } from '../errors/switchboard-error.ts';

/**
 * The leading bytes each binary type we send as an image or document must start with (the
 * formats' own signatures: PNG, JPEG, GIF 87a/89a, WebP's RIFF container, PDF's header).
 * `null` matches any byte. Types not listed (text, CSV …) are not checked.
 */
const SIGNATURES: Readonly<Record<string, readonly (readonly (number | null)[])[]>> = {
  'image/png': [[0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]],
  'image/jpeg': [[0xff, 0xd8, 0xff]],
  'image/gif': [ascii('GIF87a'), ascii('GIF89a')],
  'image/webp': [[...ascii('RIFF'), null, null, null, null, ...ascii('WEBP')]],
};

/** PDF readers accept the `%PDF-` header anywhere in the first 1024 bytes (ISO 32000-1, Annex H). */
const PDF_HEADER = ascii('%PDF-');
const PDF_HEADER_WINDOW = 1024;

/**
 * Checks that each attachment of a checked type holds what its MIME type says, before any of
 * them is stored: a provider refuses an image that is not one, and a part stored in the thread
 * would be sent again with every later turn, failing each.
 *
 * @throws SwitchboardError `invalid_input` (`details.reason: 'attachment_type_mismatch'`,
 *   `details.attachment`) naming the first file whose bytes are not of its type.
 */
export async function checkAttachmentBytes(
  pending: readonly { bytes: Blob; name: string; mimeType: string }[],
): Promise<void> {
  for (const attachment of pending) {
    const { bytes, name, mimeType } = attachment;
    if (await holdsItsType(bytes, mimeType)) continue;
    throw new SwitchboardError(
      'invalid_input',
      `Cannot attach "${name}": its bytes are not a ${mimeType} file.`,
      {
        details: {
          reason: 'attachment_type_mismatch',
          attachment: { name, mimeType, size: bytes.size },
        },
      },
    );
  }
}

async function holdsItsType(bytes: Blob, mimeType: string): Promise<boolean> {
  if (mimeType === 'application/pdf') {
    const head = new Uint8Array(await bytes.slice(0, PDF_HEADER_WINDOW).arrayBuffer());
    for (let start = 0; start + PDF_HEADER.length <= head.length; start++) {
      if (startsWith(head.subarray(start), PDF_HEADER)) return true;
    }
    return false;
  }
  const signatures = SIGNATURES[mimeType];
  if (signatures === undefined) return true;
  const longest = Math.max(...signatures.map((signature) => signature.length));
  const head = new Uint8Array(await bytes.slice(0, longest).arrayBuffer());
  return signatures.some((signature) => startsWith(head, signature));
}

function startsWith(bytes: Uint8Array, signature: readonly (number | null)[]): boolean {
  return (
    bytes.length >= signature.length &&
    signature.every((byte, index) => byte === null || bytes[index] === byte)
  );
}

function ascii(text: string): number[] {
  return [...text].map((character) => character.charCodeAt(0));
}
