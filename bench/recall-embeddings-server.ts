/**
 * A loopback embeddings server speaking the OpenAI `/v1/embeddings` protocol, for the recall
 * bench: deterministic vectors of hashed character trigrams of each word (so "listens" and
 * "listening" are near, "db" and "database" are not), L2-normalised. It knows no synonyms and
 * nothing about the probes; it stands in for the gateway's embedding model, not for our code.
 */
import { createServer } from 'node:http'
import { closerOf, listenOnLoopback } from '../test/support/loopback-server.ts'

export const BENCH_EMBEDDING_DIMS = 256

export function trigramVector(text: string, dims = BENCH_EMBEDDING_DIMS): number[] {
  const v = new Array<number>(dims).fill(0)
  for (const word of text.toLowerCase().match(/[a-z0-9_]+/g) ?? []) {
    const padded = `#${word}#`
    for (let i = 0; i + 3 <= padded.length; i++) {
      let h = 2166136261
      for (const c of padded.slice(i, i + 3)) h = Math.imul(h ^ c.charCodeAt(0), 16777619)
      v[(h >>> 0) % dims]! += 1
    }
  }
  const norm = Math.sqrt(v.reduce((s, x) => s + x * x, 0)) || 1
  return v.map((x) => x / norm)
}

export async function startEmbeddingsServer() {
  const server = createServer(async (req, res) => {
    const chunks: Buffer[] = []
    for await (const chunk of req) chunks.push(chunk as Buffer)
    const body = JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}')
    const inputs: string[] = Array.isArray(body.input) ? body.input : [String(body.input ?? '')]
    res.writeHead(200, { 'content-type': 'application/json' })
    res.end(
      JSON.stringify({
        object: 'list',
        model: body.model,
        data: inputs.map((text, index) => ({
          object: 'embedding',
          index,
          embedding: trigramVector(text),
        })),
        usage: { prompt_tokens: 0, total_tokens: 0 },
      }),
    )
  })
  const close = closerOf(server)
  const port = await listenOnLoopback(server)
  return { url: `http://127.0.0.1:${port}/v1`, close }
}
