import { z } from 'zod'
import { withoutEmptyValues } from '../runtime/env-values.ts'

export const DEFAULT_DATA_DIR = './data'

/**
 * The compute host's one environment schema. Only this file (and the process entry points that
 * hand it `process.env`) reads the environment.
 */
export const HostEnv = z
  .object({
    // A real PostgreSQL for application data; unset ⇒ embedded PGlite under POPAGENT_DATA_DIR.
    DATABASE_URL: z.string().min(1).optional(),
    // The separate observability database; unset ⇒ the `observability` schema of the embedded
    // PGlite instance (single process only).
    OBSERVABILITY_DATABASE_URL: z.string().min(1).optional(),
    // The least severe log lines written: `debug` adds each tool call's end and the tools an
    // agent cannot have on this host; `warn` and `error` keep only problems.
    POPAGENT_LOG_LEVEL: z.enum(['debug', 'info', 'warn', 'error']).default('info'),
    // Traces of turns and tasks in the observability database; `off` records none (the tracing
    // overhead benchmark compares the two).
    POPAGENT_TRACING: z.enum(['on', 'off']).default('on'),
    // An OpenTelemetry collector's OTLP/HTTP base URL: spans are also sent there (JSON, to
    // `/v1/traces`), redacted as stored. Unset: no export.
    OTEL_EXPORTER_OTLP_ENDPOINT: z.url().optional(),
    // Where embedded databases and other local state (the generated API key) live.
    POPAGENT_DATA_DIR: z.string().min(1).default(DEFAULT_DATA_DIR),
    // The edge's API key. The host never checks it, but `popagent start` puts the key in use
    // here (configured or generated) so that the host's redactor knows it (hostSecrets below).
    POPAGENT_API_KEY: z
      .string()
      .min(16, 'POPAGENT_API_KEY must be at least 16 characters')
      .optional(),
    // The secrets vault's key: the base64 of 32 random bytes. `popagent start` generates one into
    // POPAGENT_DATA_DIR/secret-key on the embedded database and refuses to start without it on a
    // real PostgreSQL; unset on a host started otherwise, the vault is off (503).
    POPAGENT_SECRET_KEY: z.string().min(1).optional(),
    // Earlier vault keys, comma-separated: they only decrypt, until `popagent secrets-rekey` has
    // re-encrypted every row under POPAGENT_SECRET_KEY.
    POPAGENT_SECRET_KEYS_PREVIOUS: z
      .string()
      .default('')
      .transform((v) =>
        v
          .split(',')
          .map((k) => k.trim())
          .filter(Boolean),
      ),
    // Shared secret of the internal host API; generated per start when unset (single process).
    POPAGENT_HOST_TOKEN: z
      .string()
      .min(16, 'POPAGENT_HOST_TOKEN must be at least 16 characters')
      .optional(),
    // Loopback port of the internal host API (0 = any free port).
    POPAGENT_HOST_PORT: z.coerce.number().int().min(0).max(65535).default(3100),
    // The OpenAI-compatible model gateway (9Router) and its key.
    NINEROUTER_URL: z.url().default('http://127.0.0.1:20128/v1'),
    NINEROUTER_API_KEY: z.string().min(1).optional(),
    // Local generations admitted at once (llama.cpp's parallel contexts); more wait FIFO.
    POPAGENT_LOCAL_MODEL_CONCURRENCY: z.coerce.number().int().min(1).max(64).default(2),
    // Comma-separated model-id prefixes served by the local model and so admitted through the queue.
    POPAGENT_LOCAL_MODEL_PREFIXES: z
      .string()
      .default('titan/')
      .transform((v) =>
        v
          .split(',')
          .map((p) => p.trim())
          .filter(Boolean),
      ),
    // Where registered repositories live; every workspace path resolves inside it.
    POPAGENT_WORKSPACE_ROOT: z.string().min(1).default('./workspace'),
    // Upper bound of every agent shell command's run time, whatever the model asks for.
    POPAGENT_SHELL_TIMEOUT_MS: z.coerce.number().int().min(1_000).max(3_600_000).default(120_000),
    // The checks self-update's verify phase runs in the sandboxed clone: a JSON array of argv
    // arrays. Any remote, publish or deploy step among them is refused (docs/self-update.md).
    POPAGENT_SELF_UPDATE_CHECKS: z
      .string()
      .default('[["npm","test"]]')
      .transform((text, ctx) => {
        try {
          return JSON.parse(text) as unknown
        } catch {
          ctx.addIssue({ code: 'custom', message: 'must be a JSON array of argv arrays' })
          return z.NEVER
        }
      })
      .pipe(z.array(z.array(z.string().min(1)).min(1)).max(10)),
    // Seconds a self-update patch the model reviewer approved waits for the owner's own review
    // (an approval: web UI, or the task's channel); 0, the default: the model's approval suffices.
    POPAGENT_SELF_UPDATE_OWNER_REVIEW_S: z.coerce.number().int().min(0).max(604_800).default(0),
    // A task claim not renewed for this long is abandoned (its host died) and recovered.
    POPAGENT_TASK_LEASE_MS: z.coerce.number().int().min(500).max(600_000).default(30_000),
    // A channel outbox chunk claimed but not finished for this long (its host died mid-send) is
    // sent again (compute-host/channels/outbox/engine.ts).
    POPAGENT_OUTBOX_LEASE_MS: z.coerce.number().int().min(500).max(600_000).default(60_000),
    // For tests only: the channels' pacing times (a chat's second, a Telegram group's minute)
    // multiplied by this, so a test sees the minute's cap without waiting a minute.
    POPAGENT_CHANNEL_PACE_SCALE: z.coerce.number().min(0.001).max(1).default(1),
    // The evolution worker's pace and claim lease: a pass every interval; signals claimed by a
    // host that died are reclaimed after the lease (compute-host/evolution/worker.ts).
    POPAGENT_EVOLUTION_INTERVAL_MS: z.coerce.number().int().min(100).max(3_600_000).default(60_000),
    POPAGENT_EVOLUTION_LEASE_MS: z.coerce.number().int().min(500).max(3_600_000).default(300_000),
    // The owner's browser MCP server's Unix socket (docs/browser.md); unset: the one
    // `popagent browser-server` makes, POPAGENT_DATA_DIR/browser/mcp.sock.
    POPAGENT_BROWSER_SOCKET: z.string().min(1).optional(),
    // `on`: agents may point the browser at loopback addresses (a site on this machine). Private,
    // link-local and metadata addresses stay refused either way.
    POPAGENT_BROWSER_ALLOW_LOOPBACK: z.enum(['on', 'off']).default('off'),
    // Where the browser server writes (recordings are packed from there); unset: the one
    // `popagent browser-server` uses, POPAGENT_DATA_DIR/browser-out.
    POPAGENT_BROWSER_OUTPUT_DIR: z.string().min(1).optional(),
    // Browser recordings older than this many days are deleted, files and rows.
    POPAGENT_BROWSER_RECORDING_DAYS: z.coerce.number().int().min(1).max(3650).default(14),
    // AkurAI Build's MCP endpoint (docs/build.md): HTTPS, or loopback. Without the key, Build is
    // disabled (its tools unavailable, its roles not offered for delegation), not an error.
    AKURAI_BUILD_URL: z.url().default('https://akurai-build.olibuijr.com'),
    AKURAI_BUILD_API_KEY: z.string().min(1).optional(),
    // Self-hosted SearXNG whose JSON API the web-search tool queries.
    SEARXNG_URL: z.url().default('http://127.0.0.1:8889'),
    // Public port of the Node edge server.
    PORT: z.coerce.number().int().min(0).max(65535).default(3000),
    // Address the Node edge server binds; loopback unless you put it behind a proxy on purpose.
    POPAGENT_BIND: z.string().min(1).default('127.0.0.1'),
  })
  .refine((v) => !v.DATABASE_URL || v.DATABASE_URL !== v.OBSERVABILITY_DATABASE_URL, {
    path: ['OBSERVABILITY_DATABASE_URL'],
    message: 'must name a different database than DATABASE_URL: observability is kept apart',
  })
export type HostEnv = z.output<typeof HostEnv>

export class ConfigError extends Error {
  override name = 'ConfigError'
}

export function parseHostEnv(source: Record<string, string | undefined>): HostEnv {
  const result = HostEnv.safeParse(withoutEmptyValues(source))
  if (!result.success) {
    const problems = result.error.issues.map((i) => `${i.path.join('.') || '(env)'}: ${i.message}`)
    throw new ConfigError(`invalid configuration:\n  ${problems.join('\n  ')}`)
  }
  return result.data
}

function passwordOf(url: string | undefined): string | undefined {
  if (!url) return undefined
  try {
    return decodeURIComponent(new URL(url).password) || undefined
  } catch {
    return undefined
  }
}

/**
 * Every secret value the host holds, for its log and output redactor: the host token, the
 * gateway key, AkurAI Build's key, the database URLs and their passwords, the edge's API key
 * and the vault keys.
 */
export function hostSecrets(env: HostEnv, hostToken: string): string[] {
  return [
    hostToken,
    env.NINEROUTER_API_KEY,
    env.AKURAI_BUILD_API_KEY,
    env.DATABASE_URL,
    env.OBSERVABILITY_DATABASE_URL,
    // The password alone, too: it also turns up without its URL (a `.env` file an agent reads).
    passwordOf(env.DATABASE_URL),
    passwordOf(env.OBSERVABILITY_DATABASE_URL),
    env.POPAGENT_API_KEY,
    env.POPAGENT_SECRET_KEY,
    ...env.POPAGENT_SECRET_KEYS_PREVIOUS,
  ].filter((s): s is string => s !== undefined)
}
