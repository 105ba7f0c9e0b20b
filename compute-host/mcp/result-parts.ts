import { z } from 'zod'
import { McpClientError } from './errors.ts'

/**
 * A tool result as popagent keeps it: typed parts, nothing else. Images stay images (base64 and
 * their MIME type) so they can reach a model as images; an embedded resource keeps its URI and
 * its text or blob. Anything the MCP schema does not allow (an unknown part type, bad base64, an
 * image that is not an image type, a field of the wrong type) is a `malformed` error, and a tool
 * that reported failure (`isError`) is a `tool-error`: neither ever reaches the model as if it
 * were a result. Audio parts are refused as `malformed` too: no model path here can take them.
 */
export type McpContentPart =
  | { type: 'text'; text: string }
  | { type: 'image'; data: string; mimeType: string }
  | { type: 'resource'; uri: string; mimeType?: string; text: string }
  | { type: 'resource'; uri: string; mimeType?: string; blob: string }
  | { type: 'resource-link'; uri: string; name: string; mimeType?: string; description?: string }

export type McpToolResult = {
  content: McpContentPart[]
  /** The tool's structured output when it declared one (an object, per the MCP schema). */
  structuredContent?: Record<string, unknown>
}

const base64 = z
  .string()
  .refine((text) => text.length % 4 === 0 && /^[A-Za-z0-9+/]*={0,2}$/.test(text), 'not base64')
const mime = z.string().regex(/^[a-z0-9!#$&^_.+-]+\/[a-z0-9!#$&^_.+-]+$/i, 'not a MIME type')
const imageMime = mime.refine(
  (type) => type.toLowerCase().startsWith('image/'),
  'not an image type',
)
const decoration = { annotations: z.unknown().optional(), _meta: z.unknown().optional() }

const textPart = z.object({ type: z.literal('text'), text: z.string(), ...decoration })
const imagePart = z.object({
  type: z.literal('image'),
  data: base64,
  mimeType: imageMime,
  ...decoration,
})
const resourcePart = z.object({
  type: z.literal('resource'),
  resource: z.union([
    z.object({ uri: z.string().min(1), mimeType: mime.optional(), text: z.string() }),
    z.object({ uri: z.string().min(1), mimeType: mime.optional(), blob: base64 }),
  ]),
  ...decoration,
})
const linkPart = z.object({
  type: z.literal('resource_link'),
  uri: z.string().min(1),
  name: z.string(),
  mimeType: mime.optional(),
  description: z.string().optional(),
  ...decoration,
})
const part = z.discriminatedUnion('type', [textPart, imagePart, resourcePart, linkPart])

const result = z.object({
  content: z.array(z.unknown()),
  structuredContent: z.record(z.string(), z.unknown()).optional(),
  isError: z.boolean().optional(),
})

/** How much of a failing tool's text goes into the error message. */
const ERROR_TEXT_CHARS = 2_000

/** Parses a `tools/call` result strictly; throws McpClientError, never returns raw text. */
export function parseToolResult(raw: unknown): McpToolResult {
  const envelope = result.safeParse(raw)
  if (!envelope.success) throw malformed('the result is not a tool result', envelope.error)
  const content: McpContentPart[] = []
  envelope.data.content.forEach((item, index) => {
    const parsed = part.safeParse(item)
    if (!parsed.success) {
      const type =
        typeof item === 'object' && item !== null ? (item as { type?: unknown }).type : undefined
      throw malformed(`content part ${index} (${describeType(type)}) is not valid`, parsed.error)
    }
    content.push(toPart(parsed.data))
  })
  if (envelope.data.isError) {
    const text = content
      .filter((p): p is { type: 'text'; text: string } => p.type === 'text')
      .map((p) => p.text)
      .join('\n')
    throw new McpClientError(
      'tool-error',
      `the tool reported an error: ${text.slice(0, ERROR_TEXT_CHARS) || '(no text)'}`,
    )
  }
  const structured = envelope.data.structuredContent
  return structured === undefined ? { content } : { content, structuredContent: structured }
}

function toPart(parsed: z.infer<typeof part>): McpContentPart {
  switch (parsed.type) {
    case 'text':
      return { type: 'text', text: parsed.text }
    case 'image':
      return { type: 'image', data: parsed.data, mimeType: parsed.mimeType }
    case 'resource': {
      const { uri, mimeType } = parsed.resource
      const base = mimeType === undefined ? { uri } : { uri, mimeType }
      return 'text' in parsed.resource
        ? { type: 'resource', ...base, text: parsed.resource.text }
        : { type: 'resource', ...base, blob: parsed.resource.blob }
    }
    case 'resource_link': {
      const link: McpContentPart = { type: 'resource-link', uri: parsed.uri, name: parsed.name }
      if (parsed.mimeType !== undefined) link.mimeType = parsed.mimeType
      if (parsed.description !== undefined) link.description = parsed.description
      return link
    }
  }
}

function describeType(type: unknown): string {
  return typeof type === 'string' ? `type ${JSON.stringify(type.slice(0, 40))}` : 'no type'
}

function malformed(what: string, cause: z.ZodError): McpClientError {
  const first = cause.issues[0]
  const where = first && first.path.length > 0 ? ` at ${first.path.join('.')}` : ''
  return new McpClientError('malformed', `${what}${first ? `: ${first.message}${where}` : ''}`, {
    cause,
  })
}
