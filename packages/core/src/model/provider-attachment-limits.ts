/**
 * What each provider accepts as files attached to user messages (`Model.attachmentLimits`): MIME
 * type → the largest size in bytes it takes. Checked against the providers' own documentation
 * (docs/conversations.md, "Attachments", has the table and the sources); the agent's own
 * `maxAttachmentBytes` (default 20 MB) caps every type further.
 */

const MB = 1024 * 1024;

/** The image types OpenAI and Anthropic both read as images. */
const IMAGE_TYPES = ['image/png', 'image/jpeg', 'image/gif', 'image/webp'] as const;

/**
 * OpenAI Chat Completions: images as `image_url` parts (PNG, JPEG, WebP, non-animated GIF; 50 MB
 * per request), and PDF only as `file` parts (the file inputs guide: "Chat Completions accepts
 * only PDF files as file content parts").
 */
export const OPENAI_CHAT_ATTACHMENT_LIMITS: Readonly<Record<string, number>> = Object.freeze({
  ...Object.fromEntries(IMAGE_TYPES.map((type) => [type, 50 * MB])),
  'application/pdf': 50 * MB,
});

/**
 * OpenAI Responses: images as `input_image`, and as `input_file` PDFs plus text documents
 * (plain text, Markdown, CSV, JSON; the API extracts their text); 50 MB per request.
 */
export const OPENAI_RESPONSES_ATTACHMENT_LIMITS: Readonly<Record<string, number>> = Object.freeze({
  ...OPENAI_CHAT_ATTACHMENT_LIMITS,
  'text/plain': 50 * MB,
  'text/markdown': 50 * MB,
  'text/csv': 50 * MB,
  'application/json': 50 * MB,
});

/**
 * Anthropic Messages: images as `image` blocks with a `base64` source (the API refuses one whose
 * base64 exceeds 5 MB, so 3.75 MB of bytes), PDFs as `document` blocks with a `base64` source
 * (32 MB per request), and plain text as a `document` with a `text` source.
 */
export const ANTHROPIC_ATTACHMENT_LIMITS: Readonly<Record<string, number>> = Object.freeze({
  ...Object.fromEntries(IMAGE_TYPES.map((type) => [type, (5 * MB * 3) / 4])),
  'application/pdf': 32 * MB,
  'text/plain': 32 * MB,
});
