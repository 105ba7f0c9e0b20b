/**
 * The scripted model gateway: a real OpenAI-compatible HTTP server on loopback whose every reply a
 * test scripts — streamed text deltas, tool calls, HTTP errors (429, 500), delays, dropped
 * connections — and which records everything it was sent. It is a test double for the external
 * gateway (9Router), used by tests, benchmarks and demos; no product code path ever uses it.
 *
 * @example
 * await using gw = await startScriptedGateway({ models: [{ id: 'test/model', contextWindow: 32_768 }] })
 * gw.enqueue({ text: ['Hel', 'lo'] }, { toolCalls: [{ name: 'agent-researcher', arguments: { prompt: 'look' } }] })
 * // point NINEROUTER_URL at gw.url …
 * gw.requests[0].body.messages
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import { closerOf, listenOnLoopback } from './loopback-server.ts'

export type ScriptedModel = { id: string; contextWindow?: number }

export type ToolCallScript = { id?: string; name: string; arguments: unknown }

export type Reply =
  | {
      /** One string, or the deltas to stream in order. */
      text?: string | string[]
      toolCalls?: ToolCallScript[]
      finishReason?: 'stop' | 'tool_calls' | 'length'
      usage?: { promptTokens: number; completionTokens: number }
      /** Wait before the response starts, and between streamed chunks. */
      delayMs?: number
      chunkDelayMs?: number
      /** Destroy the connection after this many streamed chunks (0 = before any). */
      dropAfterChunks?: number
    }
  | { status: number; message?: string; headers?: Record<string, string>; delayMs?: number }

export type RecordedRequest = {
  method: string
  path: string
  headers: Record<string, string | string[] | undefined>
  body: any
  at: number
}

export type ScriptedGateway = {
  /** Base URL including `/v1`, as NINEROUTER_URL expects. */
  url: string
  requests: RecordedRequest[]
  enqueue(...replies: Reply[]): void
  /** Decide replies from the request instead of (or after) the queue. */
  respondWith(fn: ((request: RecordedRequest) => Reply | undefined) | undefined): void
  setModels(models: ScriptedModel[]): void
  /** Make `GET /v1/models` answer this status (a gateway whose catalog is down); undefined heals. */
  failModels(status: number | undefined): void
  /** Make `POST /v1/embeddings` answer this status (an embedding outage); undefined heals. */
  failEmbeddings(status: number | undefined): void
  /** Count of chat requests still streaming. */
  active(): number
  close(): Promise<void>
  [Symbol.asyncDispose](): Promise<void>
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

export async function startScriptedGateway(
  options: { models?: ScriptedModel[]; embeddingDimensions?: number; apiKey?: string } = {},
): Promise<ScriptedGateway> {
  let models = options.models ?? [{ id: 'test/model', contextWindow: 32_768 }]
  let modelsFailure: number | undefined
  let embeddingsFailure: number | undefined
  const queue: Reply[] = []
  const requests: RecordedRequest[] = []
  let responder: ((request: RecordedRequest) => Reply | undefined) | undefined
  let streaming = 0

  const server = createServer(async (req, res) => {
    const body = await readBody(req)
    const recorded: RecordedRequest = {
      method: req.method ?? 'GET',
      path: (req.url ?? '/').split('?')[0]!,
      headers: req.headers,
      body,
      at: Date.now(),
    }
    requests.push(recorded)
    if (options.apiKey && req.headers.authorization !== `Bearer ${options.apiKey}`) {
      return sendJson(res, 401, {
        error: { message: 'invalid api key', type: 'authentication_error' },
      })
    }
    if (recorded.method === 'GET' && recorded.path === '/v1/models') {
      if (modelsFailure) {
        return sendJson(res, modelsFailure, { error: { message: 'scripted catalog failure' } })
      }
      return sendJson(res, 200, {
        object: 'list',
        data: models.map((m) => ({
          id: m.id,
          object: 'model',
          created: 0,
          owned_by: 'scripted',
          ...(m.contextWindow !== undefined && { context_length: m.contextWindow }),
        })),
      })
    }
    if (recorded.method === 'POST' && recorded.path === '/v1/embeddings') {
      if (embeddingsFailure) {
        return sendJson(res, embeddingsFailure, {
          error: { message: 'scripted embeddings failure' },
        })
      }
      const inputs: string[] = Array.isArray(body?.input) ? body.input : [String(body?.input ?? '')]
      return sendJson(res, 200, {
        object: 'list',
        model: body?.model,
        data: inputs.map((text, index) => ({
          object: 'embedding',
          index,
          embedding: embed(text, options.embeddingDimensions ?? 16),
        })),
        usage: { prompt_tokens: inputs.join(' ').length, total_tokens: inputs.join(' ').length },
      })
    }
    if (recorded.method === 'POST' && recorded.path === '/v1/chat/completions') {
      const reply = queue.shift() ??
        responder?.(recorded) ?? {
          status: 500,
          message: 'scripted gateway: no reply was scripted for this request',
        }
      streaming++
      try {
        await chatReply(req, res, body, reply)
      } finally {
        streaming--
      }
      return
    }
    sendJson(res, 404, { error: { message: `no route ${recorded.method} ${recorded.path}` } })
  })
  const close = closerOf(server)
  const port = await listenOnLoopback(server)
  return {
    url: `http://127.0.0.1:${port}/v1`,
    requests,
    enqueue: (...replies) => void queue.push(...replies),
    respondWith: (fn) => void (responder = fn),
    setModels: (next) => void (models = next),
    failModels: (status) => void (modelsFailure = status),
    failEmbeddings: (status) => void (embeddingsFailure = status),
    active: () => streaming,
    close,
    [Symbol.asyncDispose]: close,
  }
}

async function chatReply(req: IncomingMessage, res: ServerResponse, body: any, reply: Reply) {
  if (reply.delayMs) await sleep(reply.delayMs)
  if ('status' in reply) {
    return sendJson(
      res,
      reply.status,
      { error: { message: reply.message ?? `scripted ${reply.status}`, code: reply.status } },
      reply.headers,
    )
  }
  const id = `chatcmpl-${Math.random().toString(36).slice(2)}`
  const model = String(body?.model ?? 'unknown')
  const deltas =
    reply.text === undefined ? [] : Array.isArray(reply.text) ? reply.text : [reply.text]
  const calls = (reply.toolCalls ?? []).map((c, i) => ({
    id: c.id ?? `call_${i}_${Math.random().toString(36).slice(2, 8)}`,
    type: 'function' as const,
    function: {
      name: c.name,
      arguments: typeof c.arguments === 'string' ? c.arguments : JSON.stringify(c.arguments),
    },
  }))
  const finish = reply.finishReason ?? (calls.length ? 'tool_calls' : 'stop')
  const text = deltas.join('')
  const usage = {
    prompt_tokens: reply.usage?.promptTokens ?? 10,
    completion_tokens: reply.usage?.completionTokens ?? Math.max(1, Math.ceil(text.length / 4)),
    total_tokens:
      (reply.usage?.promptTokens ?? 10) +
      (reply.usage?.completionTokens ?? Math.max(1, Math.ceil(text.length / 4))),
  }
  if (!body?.stream) {
    if (reply.dropAfterChunks !== undefined) return void req.socket.destroy()
    return sendJson(res, 200, {
      id,
      object: 'chat.completion',
      created: Math.floor(Date.now() / 1000),
      model,
      choices: [
        {
          index: 0,
          message: {
            role: 'assistant',
            content: text || null,
            ...(calls.length && { tool_calls: calls }),
          },
          finish_reason: finish,
        },
      ],
      usage,
    })
  }
  res.writeHead(200, {
    'content-type': 'text/event-stream',
    'cache-control': 'no-cache',
    connection: 'keep-alive',
  })
  res.flushHeaders()
  const chunk = (delta: object, finishReason: string | null = null, extra: object = {}) => ({
    id,
    object: 'chat.completion.chunk',
    created: Math.floor(Date.now() / 1000),
    model,
    choices: [{ index: 0, delta, finish_reason: finishReason }],
    ...extra,
  })
  const events = [
    chunk({ role: 'assistant', content: '' }),
    ...deltas.map((d) => chunk({ content: d })),
    ...calls.map((c, index) => chunk({ tool_calls: [{ index, ...c }] })),
    chunk({}, finish, body?.stream_options?.include_usage ? { usage } : {}),
  ]
  let sent = 0
  for (const event of events) {
    if (reply.dropAfterChunks !== undefined && sent >= reply.dropAfterChunks)
      return void req.socket.destroy()
    if (res.destroyed) return
    res.write(`data: ${JSON.stringify(event)}\n\n`)
    sent++
    if (reply.chunkDelayMs) await sleep(reply.chunkDelayMs)
  }
  res.end('data: [DONE]\n\n')
}

function sendJson(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
) {
  res.writeHead(status, { 'content-type': 'application/json', ...headers })
  res.end(JSON.stringify(body))
}

async function readBody(req: IncomingMessage): Promise<any> {
  const chunks: Buffer[] = []
  for await (const chunk of req) chunks.push(chunk as Buffer)
  const text = Buffer.concat(chunks).toString('utf8')
  if (!text) return undefined
  try {
    return JSON.parse(text)
  } catch {
    return text
  }
}

/** Deterministic unit vector from the text, so similar calls get identical embeddings. */
function embed(text: string, dimensions: number): number[] {
  const v = new Array<number>(dimensions).fill(0)
  for (let i = 0; i < text.length; i++) v[(text.charCodeAt(i) * 31 + i) % dimensions]! += 1
  const norm = Math.sqrt(v.reduce((s, x) => s + x * x, 0)) || 1
  return v.map((x) => x / norm)
}
