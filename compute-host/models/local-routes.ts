/**
 * Which model ids are served by the local llama.cpp slots, and so must pass the admission queue.
 * This is configuration (POPAGENT_LOCAL_MODEL_PREFIXES), never a list in code.
 */
export function createLocalRouteMatcher(prefixes: readonly string[]): (modelId: string) => boolean {
  const list = prefixes.map((p) => p.trim()).filter(Boolean)
  return (modelId) => list.some((prefix) => modelId.startsWith(prefix))
}
