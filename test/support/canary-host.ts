/**
 * A compute host in its own process (`popagent host`), so everything it writes to stdout and
 * stderr can be searched, whose gateway key is a canary the scripted gateway echoes back in its
 * errors. The edge runs in the test's process, wired to it. Used to prove that model errors,
 * Mastra's included, reach the output only through the host's redacting logger.
 */
import { randomBytes } from 'node:crypto'
import { mkdir, mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createTestApp, json } from './app.ts'
import { createDatabaseOnServer, createTestDatabase } from './database.ts'
import { startCli, type RunningCli } from './process.ts'
import { startScriptedGateway, type RecordedRequest, type Reply } from './scripted-gateway.ts'

const LISTENING = /^popagent compute host is listening at /

export type CanaryHost = {
  /** The gateway key (the gateway's own client scrubs it from responses before Mastra sees them). */
  key: string
  /**
   * The host token, a secret the host logger redacts that nothing scrubs earlier: the canary for
   * a provider error that quotes a secret, which only the redacting logger can catch.
   */
  token: string
  cli: RunningCli
  edge: ReturnType<typeof createTestApp>
  /** The application database, for scans of every table. */
  databaseUrl: string
  /** Every request the model gateway received: what left popagent for the model. */
  requests(): RecordedRequest[]
  /** Which gateway request this is: one of Observational Memory's observer, or the run's own. */
  respond(fn: (kind: 'observer' | 'run', request: RecordedRequest) => Reply): void
  /** One chat turn through the edge, read to its end. */
  turn(sessionId: string, text: string): Promise<number>
  newSession(): Promise<string>
  /** How often the key or the token shows in the host's output, raw or base64-encoded. */
  secretHits(): number
  /** Output lines that are not the host logger's JSON (nor the CLI's "listening" line). */
  foreignLines(): string[]
  /** The host logger's lines that came from Mastra. */
  mastraLines(): Record<string, unknown>[]
  stop(): Promise<void>
}

export async function startCanaryHost(): Promise<CanaryHost> {
  const key = `gw-canary-${randomBytes(12).toString('hex')}`
  const token = `host-canary-${randomBytes(12).toString('hex')}`
  const cleanup: Array<() => Promise<unknown>> = []
  const stop = async () => {
    for (const step of cleanup.reverse()) await step().catch(() => {})
  }
  try {
    const database = await createTestDatabase({ migrate: false })
    cleanup.push(database.drop)
    const observability = await createDatabaseOnServer()
    cleanup.push(observability.drop)
    const gateway = await startScriptedGateway({ apiKey: key })
    cleanup.push(gateway.close)
    const root = await mkdtemp(join(tmpdir(), 'popagent-canary-host-'))
    cleanup.push(() => rm(root, { recursive: true, force: true }))
    await mkdir(join(root, 'popagent'))
    const cli = await startCli(
      ['host'],
      {
        DATABASE_URL: database.url,
        OBSERVABILITY_DATABASE_URL: observability.url,
        NINEROUTER_URL: gateway.url,
        NINEROUTER_API_KEY: key,
        POPAGENT_HOST_TOKEN: token,
        POPAGENT_SECRET_KEY: randomBytes(32).toString('base64'),
        POPAGENT_HOST_PORT: '0',
        POPAGENT_WORKSPACE_ROOT: root,
      },
      90_000,
    )
    cleanup.push(cli.stop)
    const edge = createTestApp({ db: database.db, hostUrl: cli.url, hostToken: token })
    const lines = () => cli.output().split('\n').filter(Boolean)
    const encodings = [key, token].flatMap((secret) => [
      secret,
      Buffer.from(secret).toString('base64').replace(/=+$/, ''),
      Buffer.from(secret).toString('base64url'),
    ])
    return {
      key,
      token,
      cli,
      edge,
      databaseUrl: database.url,
      requests: () => gateway.requests,
      respond(fn) {
        gateway.respondWith((request) => {
          const system = JSON.stringify(request.body?.messages?.[0] ?? '')
          return fn(/memory consciousness/.test(system) ? 'observer' : 'run', request)
        })
      },
      async newSession() {
        const res = await edge.request('/api/sessions', json({}, { method: 'POST' }))
        return ((await res.json()) as { id: string }).id
      },
      async turn(sessionId, text) {
        const res = await edge.request(
          '/api/chat',
          json(
            {
              sessionId,
              workspaceId: 'wsp_default',
              model: 'test/model',
              message: {
                id: `u_${randomBytes(6).toString('hex')}`,
                role: 'user',
                parts: [{ type: 'text', text }],
              },
            },
            { method: 'POST' },
          ),
        )
        await res.text()
        return res.status
      },
      secretHits: () => encodings.reduce((n, e) => n + cli.output().split(e).length - 1, 0),
      foreignLines: () =>
        lines().filter((line) => {
          if (LISTENING.test(line)) return false
          try {
            return typeof JSON.parse(line) !== 'object'
          } catch {
            return true
          }
        }),
      mastraLines: () =>
        lines()
          .filter((line) => line.startsWith('{'))
          .map((line) => JSON.parse(line) as Record<string, unknown>)
          .filter((record) => record.source === 'mastra'),
      stop,
    }
  } catch (error) {
    await stop()
    throw error
  }
}

/** Lowers the observation threshold so a long message makes Observational Memory observe. */
export async function observeSoon(host: CanaryHost) {
  const res = await host.edge.request(
    '/api/settings/memory',
    json({ observationMessageTokens: 1_000 }, { method: 'PATCH' }),
  )
  if (res.status !== 200) throw new Error(`memory settings: ${res.status} ${await res.text()}`)
}
