import type { BrowserSessionOwner } from '../../runtime/browser/sessions.ts'
import type { BrowserSessions } from './sessions.ts'
import { BrowserError } from './types.ts'

/** The gateway's own operation: fill a vault secret into a page element. */
export const USE_BROWSER_SECRET = 'useBrowserSecret'

/** What the fill needs of the vault: a secret's bound origins by name, and its value. */
export type SecretSource = {
  byName(name: string): Promise<{ id: string; origins: readonly string[] } | undefined>
  reveal(id: string): Promise<string>
}

export type SecretFillArgs = { secretName: string; target: string }

// Runs in the element's own frame (Playwright evaluates against the element): that frame's
// origin and every ancestor's, up to the top page. A constant: nothing the model says gets in.
const ORIGINS_OF_ELEMENT =
  '(element) => ({ origin: element.ownerDocument.location.origin, ancestors: Array.from(element.ownerDocument.location.ancestorOrigins ?? []) })'

/**
 * Checks the arguments of `useBrowserSecret`: a secret's name and the element to fill (a ref
 * from a snapshot, or a selector), nothing else.
 */
export function secretFillArgs(args: Record<string, unknown>): SecretFillArgs | string {
  const extra = Object.keys(args).filter((k) => k !== 'secretName' && k !== 'target')
  if (extra.length > 0) return `unknown arguments: ${extra.join(', ')}`
  const { secretName, target } = args
  if (typeof secretName !== 'string' || !/^[A-Za-z0-9_.-]{1,100}$/.test(secretName)) {
    return '"secretName" must be the name of a vault secret'
  }
  if (typeof target !== 'string' || target.length === 0 || target.length > 500) {
    return '"target" must be the element ref from a snapshot, or a unique selector'
  }
  return { secretName, target }
}

/**
 * Types a vault secret into one element, only where its binding allows: the element's frame and
 * every frame above it, up to the page, must have exactly the secret's bound HTTPS origin.
 * Popagent checks (not the model), before typing and again after, through the same browser
 * session as the agent's calls (serialised with them, refused during a takeover).
 *
 * The value never comes back: servers echo what they typed ("Ran Playwright code: …fill('…')"),
 * so the typing call's result and any error it raises are dropped here, before any row, span,
 * log line or message could hold them. The model gets the secret's name, the origin and `ok`.
 * If the page moved to another origin while typing, the field is cleared and the fill refused.
 */
export async function fillSecret(
  deps: { sessions: BrowserSessions; secrets: SecretSource },
  input: {
    owner: BrowserSessionOwner
    browserSessionId?: string
    args: SecretFillArgs
    signal?: AbortSignal
  },
): Promise<{ browserSessionId: string; secretName: string; origin: string; ok: true }> {
  const { secretName, target } = input.args
  const secret = await deps.secrets.byName(secretName)
  if (!secret)
    throw new BrowserError('BROWSER_SECRET_UNKNOWN', `no vault secret is named ${secretName}`)
  if (secret.origins.length === 0) {
    throw new BrowserError('BROWSER_SECRET_UNBOUND', `${secretName} is bound to no HTTPS origin`)
  }
  const call = (
    operation: string,
    args: Record<string, unknown>,
    interactive: boolean,
    secretFill = false,
  ) =>
    deps.sessions.call({
      owner: input.owner,
      ...(input.browserSessionId && { browserSessionId: input.browserSessionId }),
      operation,
      args,
      interactive,
      ...(secretFill && { secretFill }),
      ...(input.signal && { signal: input.signal }),
    })
  const chainOf = async () => {
    const { browserSessionId, result } = await call(
      'browser_evaluate',
      { function: ORIGINS_OF_ELEMENT, target },
      false,
    )
    const chain = result.isError ? undefined : originChain(result.content)
    if (!chain) {
      throw new BrowserError('BROWSER_SECRET_TARGET', `cannot read the origins of ${target}`)
    }
    return { browserSessionId, chain }
  }
  const before = await chainOf()
  const origin = secret.origins.find((o) => before.chain.every((c) => c === o))
  if (!origin) {
    throw new BrowserError(
      'BROWSER_SECRET_ORIGIN_MISMATCH',
      `${secretName} is bound to ${secret.origins.join(', ')}; the element is in ${describe(before.chain)}`,
    )
  }
  const value = await deps.secrets.reveal(secret.id)
  let typed = false
  try {
    // Marked as a fill: the session's recording stops first (a trace keeps the page's DOM).
    const { result } = await call('browser_type', { target, text: value }, true, true)
    typed = !result.isError
  } catch (error) {
    // A refusal of ours carries no value; anything else may quote what was typed.
    if (error instanceof BrowserError && error.code === 'BROWSER_TAKEN_OVER') throw error
  }
  if (!typed) throw new BrowserError('BROWSER_SECRET_TYPING_FAILED', `typing into ${target} failed`)
  const after = await chainOf()
  if (!after.chain.every((c) => c === origin)) {
    await call('browser_type', { target, text: '' }, true).catch(() => {})
    throw new BrowserError(
      'BROWSER_SECRET_ORIGIN_MISMATCH',
      `the page left ${origin} while typing (now ${describe(after.chain)}); the field was cleared`,
    )
  }
  return { browserSessionId: after.browserSessionId, secretName, origin, ok: true }
}

/** The frame's origin and its ancestors' from the evaluate result's JSON, or undefined. */
function originChain(content: readonly { type: string; text?: string }[]): string[] | undefined {
  const text = content.find((p) => p.type === 'text')?.text ?? ''
  const json = /### Result\n([\s\S]*?)(?:\n### |$)/.exec(text)?.[1]
  if (!json) return undefined
  try {
    const parsed = JSON.parse(json) as { origin?: unknown; ancestors?: unknown }
    if (typeof parsed.origin !== 'string' || !Array.isArray(parsed.ancestors)) return undefined
    if (!parsed.ancestors.every((a) => typeof a === 'string')) return undefined
    return [parsed.origin, ...(parsed.ancestors as string[])]
  } catch {
    return undefined
  }
}

function describe(chain: readonly string[]) {
  return chain.length === 1 ? chain[0]! : `${chain[0]} inside ${chain.slice(1).join(' inside ')}`
}
