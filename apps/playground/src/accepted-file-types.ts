import type { AcceptedAttachment } from '@switchboard/core';

/** Short names of the types providers accept (`*_ATTACHMENT_LIMITS`); others show as MIME types. */
const TYPE_NAMES: Readonly<Record<string, string>> = {
  'image/png': 'PNG',
  'image/jpeg': 'JPEG',
  'image/gif': 'GIF',
  'image/webp': 'WebP',
  'application/pdf': 'PDF',
  'text/plain': 'plain text',
  'text/markdown': 'Markdown',
  'text/csv': 'CSV',
  'application/json': 'JSON',
};

/** The file picker's `accept` attribute: the accepted MIME types, comma-separated. */
export function acceptAttribute(accepted: readonly AcceptedAttachment[]): string {
  return accepted.map((entry) => entry.mimeType).join(',');
}

/**
 * What the composer says next to "Attach files": the types the agent's models accept, grouped by
 * their size limit ("PNG, JPEG up to 3.8 MB; PDF up to 20 MB"), or that the model takes none.
 */
export function describeAcceptedTypes(accepted: readonly AcceptedAttachment[]): string {
  if (accepted.length === 0) return 'This model accepts no files.';
  const bySize = new Map<number, string[]>();
  for (const { mimeType, maxBytes } of accepted) {
    bySize.set(maxBytes, [...(bySize.get(maxBytes) ?? []), TYPE_NAMES[mimeType] ?? mimeType]);
  }
  const groups = [...bySize].map(
    ([maxBytes, names]) => `${names.join(', ')} up to ${sizeOf(maxBytes)}`,
  );
  return `Accepts ${groups.join('; ')}.`;
}

function sizeOf(bytes: number): string {
  const mb = bytes / (1024 * 1024);
  if (mb >= 1) return `${Math.round(mb * 10) / 10} MB`;
  return `${Math.round((bytes / 1024) * 10) / 10} KB`;
}
