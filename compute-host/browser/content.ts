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
 * The server's content parts, kept by kind rather than flattened to JSON text (which is what
 * Mastra's MCPClient does to images): text as text, an image as base64 with its type, a resource
 * as its text (a binary one by its URI with a note). Anything else is named, not passed through.
 */
export function keepContent(parts: readonly BrowserContentPart[]): KeptPart[] {
  return parts.map((part): KeptPart => {
    if (part.type === 'text' && typeof part.text === 'string') {
      return { type: 'text', text: bounded(part.text) }
    }
    if (
      part.type === 'image' &&
      typeof part.data === 'string' &&
      typeof part.mimeType === 'string'
    ) {
      if (!/^image\/[a-z0-9.+-]+$/i.test(part.mimeType)) {
        return { type: 'text', text: `[an image of unusable type ${part.mimeType.slice(0, 60)}]` }
      }
      if (part.data.length > MAX_IMAGE_CHARS) {
        return {
          type: 'text',
          text: `[an image of ${part.data.length} base64 characters, over the bound]`,
        }
      }
      return { type: 'image', mimeType: part.mimeType, data: part.data }
    }
    if (part.type === 'resource' && part.resource && typeof part.resource === 'object') {
      const r = part.resource as Record<string, unknown>
      const uri = String(r.uri ?? '').slice(0, 2_000)
      const mimeType = typeof r.mimeType === 'string' ? r.mimeType : undefined
      if (typeof r.text === 'string')
        return { type: 'resource', uri, ...(mimeType && { mimeType }), text: bounded(r.text) }
      return {
        type: 'resource',
        uri,
        ...(mimeType && { mimeType }),
        note: 'binary content not passed on',
      }
    }
    if (part.type === 'resource_link') {
      return {
        type: 'resource',
        uri: String(part.uri ?? '').slice(0, 2_000),
        note: 'a link the server offered',
      }
    }
    return { type: 'text', text: `[a ${String(part.type).slice(0, 40)} part, not passed on]` }
  })
}

function bounded(text: string) {
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
