import type { ValidateFunction } from 'ajv/dist/2020.js'
import type { BrowserOperation } from './types.ts'

/** Bytes of one operation's JSON Schema we compile; a larger one is left out of the catalog. */
const MAX_SCHEMA_CHARS = 64 * 1024

export type BrowserCatalog = {
  /** The server's operation names, as listed (the gateway tool's enum). */
  readonly names: readonly string[]
  readonly operations: ReadonlyMap<string, BrowserOperation>
  /**
   * The arguments checked against the operation's own schema (with its defaults filled in, so a
   * schema that requires a defaulted field, as Playwright's `scale` is, still takes a call
   * without it), or the first problems found.
   */
  validate(
    name: string,
    args: Record<string, unknown>,
  ): { ok: true; args: Record<string, unknown> } | { ok: false; problems: string }
}

/**
 * The server's `tools/list` as popagent uses it. Each schema is compiled with Ajv's JSON Schema
 * 2020-12 dialect on first use (a catalog of 72 operations compiles in tens of milliseconds, and
 * most runs use a few). Unknown keywords are tolerated; what the schema allows is what passes, so
 * Playwright's `additionalProperties: false` refuses a stray field (a model's `ref` for `target`).
 *
 * Ajv is imported here, with the first catalog, not with the host: a host whose browser is never
 * used does not hold it (compute-host/mcp/sdk.ts says why that matters).
 */
export async function compileCatalog(
  operations: readonly BrowserOperation[],
): Promise<BrowserCatalog> {
  const { Ajv2020 } = await import('ajv/dist/2020.js')
  const ajv = new Ajv2020({ strict: false, useDefaults: true, allErrors: false })
  const byName = new Map<string, BrowserOperation>()
  for (const op of operations) {
    if (!/^[A-Za-z0-9_.-]{1,128}$/.test(op.name)) continue
    if (JSON.stringify(op.inputSchema ?? {}).length > MAX_SCHEMA_CHARS) continue
    byName.set(op.name, op)
  }
  const compiled = new Map<string, ValidateFunction>()
  return {
    names: [...byName.keys()],
    operations: byName,
    validate(name, args) {
      const op = byName.get(name)
      if (!op) return { ok: false, problems: `the server has no operation "${name}"` }
      let check = compiled.get(name)
      if (!check) {
        const { $schema: _dialect, ...schema } = op.inputSchema
        try {
          check = ajv.compile({ type: 'object', ...schema })
        } catch (error) {
          return {
            ok: false,
            problems: `the server's schema for "${name}" cannot be used: ${(error as Error).message}`,
          }
        }
        compiled.set(name, check)
      }
      const copy = structuredClone(args)
      if (check(copy)) return { ok: true, args: copy }
      const problems = (check.errors ?? [])
        .slice(0, 5)
        .map(
          (e) =>
            `${e.instancePath || '(arguments)'} ${e.message ?? 'is invalid'}${extra(e.params)}`,
        )
        .join('; ')
      return { ok: false, problems }
    },
  }
}

function extra(params: Record<string, unknown> | undefined): string {
  if (!params) return ''
  if (typeof params.additionalProperty === 'string') return `: "${params.additionalProperty}"`
  if (Array.isArray(params.allowedValues)) return `: ${params.allowedValues.join(', ')}`
  return ''
}
