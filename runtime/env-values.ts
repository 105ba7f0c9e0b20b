/**
 * The one rule for configuration values, shared by the edge (handlers/config.ts) and the compute
 * host (compute-host/env.ts): a variable set to an empty or blank string counts as unset, as it
 * does in most .env files and in the README. Without one home the two parsers drifted: the host
 * dropped `POPAGENT_API_KEY=` while the edge refused it as too short.
 *
 * Non-string values (Workers bindings such as Hyperdrive) pass through untouched.
 */
export function withoutEmptyValues<T>(source: Record<string, T>): Record<string, T> {
  const kept: Record<string, T> = {}
  for (const [name, value] of Object.entries(source)) {
    if (typeof value === 'string' && value.trim() === '') continue
    kept[name] = value
  }
  return kept
}
