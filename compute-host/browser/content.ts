import type { BrowserContentPart } from './types.ts'

/** Characters of text kept per part, and base64 characters of one image (about 3.75 MB). */
const MAX_TEXT_CHARS = 100_000
const MAX_IMAGE_CHARS = 5 * 1024 * 1024

/** A browser result's parts as the tool keeps them: text, image and resource, each bounded. */
export type KeptPart =
  | { type: 'text'; text: string }
  | { type: 'image'; mimeType: string; data: string }
  | { type: 'resource'; uri: string; mimeType?: string; text?: string; note?: string }

/**
 * The server's content parts (already checked by the MCP room: result-parts.ts), kept by kind
 * rather than flattened to JSON text (which is what Mastra's MCPClient does to images): text as
 * text, an image as base64 with its type, a resource as its text (a binary one by its URI with a
 * note), each bounded, and every text through the host's redactor.
 */
export function keepContent(
  parts: readonly BrowserContentPart[],
  redact: (text: string) => string,
): KeptPart[] {
  const bounded = (text: string) => redact(boundedText(text))
  return parts.map((part): KeptPart => {
    switch (part.type) {
      case 'text':
        return { type: 'text', text: bounded(part.text) }
      case 'image':
        if (part.data.length > MAX_IMAGE_CHARS) {
          return {
            type: 'text',
            text: `[an image of ${part.data.length} base64 characters, over the bound]`,
          }
        }
        return { type: 'image', mimeType: part.mimeType, data: part.data }
      case 'resource': {
        const uri = part.uri.slice(0, 2_000)
        const mimeType = part.mimeType ? { mimeType: part.mimeType } : {}
        return 'text' in part
          ? { type: 'resource', uri, ...mimeType, text: bounded(part.text) }
          : { type: 'resource', uri, ...mimeType, note: 'binary content not passed on' }
      }
      case 'resource-link':
        return {
          type: 'resource',
          uri: part.uri.slice(0, 2_000),
          note: 'a link the server offered',
        }
    }
  })
}

function boundedText(text: string) {
  return text.length > MAX_TEXT_CHARS
    ? `${text.slice(0, MAX_TEXT_CHARS)}\n[… ${text.length - MAX_TEXT_CHARS} characters cut]`
    : text
}

/**
 * What the model reads: the parts as a content list, so an image reaches the model as an image
 * (the gateway provider sends it as an image part of the tool message), not as base64 text.
 */
export function modelContent(header: string, parts: readonly KeptPart[]) {
  const value: (
    { type: 'text'; text: string } | { type: 'image-data'; data: string; mediaType: string }
  )[] = [{ type: 'text', text: header }]
  for (const part of parts) {
    if (part.type === 'text') value.push({ type: 'text', text: part.text })
    else if (part.type === 'image')
      value.push({ type: 'image-data', data: part.data, mediaType: part.mimeType })
    else {
      const body = part.text ?? `(${part.note ?? 'no text'})`
      value.push({
        type: 'text',
        text: `resource ${part.uri}${part.mimeType ? ` (${part.mimeType})` : ''}:\n${body}`,
      })
    }
  }
  return { type: 'content' as const, value }
}
