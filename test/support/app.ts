import type { Db } from '../../db/index.ts'
import { parseEdgeConfig } from '../../handlers/config.ts'
import { createNodeEdgeApp } from '../../handlers/entry.node.ts'

export const TEST_HOST_TOKEN = 'test-host-token-0123456789'

/** The Node edge app over the given databases, called in process with `app.request()`. */
export function createTestApp(options: {
  db: Db
  observabilityDb?: Db
  apiKey?: string
  hostUrl?: string
  hostToken?: string
  maxBodyBytes?: number
}) {
  const config = parseEdgeConfig({
    POPAGENT_HOST_URL: options.hostUrl ?? 'http://127.0.0.1:9',
    POPAGENT_HOST_TOKEN: options.hostToken ?? TEST_HOST_TOKEN,
    ...(options.apiKey && { POPAGENT_API_KEY: options.apiKey }),
    ...(options.maxBodyBytes && { POPAGENT_MAX_BODY_BYTES: String(options.maxBodyBytes) }),
  })
  return createNodeEdgeApp({
    config,
    db: options.db,
    observabilityDb: options.observabilityDb ?? options.db,
  })
}

export const json = (body: unknown, init: RequestInit = {}): RequestInit => ({
  ...init,
  headers: { 'content-type': 'application/json', ...(init.headers as Record<string, string>) },
  body: JSON.stringify(body),
})
