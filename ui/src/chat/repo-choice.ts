/**
 * Which repository a new chat works in: the one the owner picked beside the message box, else
 * the sidebar's filter, else the one used last (kept in this browser), else the first registered.
 * A remembered id that is no longer registered is passed over, never sent.
 */
const KEY = 'popagent.chat.repository'

export function lastRepository(): string | undefined {
  try {
    return localStorage.getItem(KEY) ?? undefined
  } catch {
    // Storage refused (a private window's policy): nothing is remembered, the default applies.
    return undefined
  }
}

export function rememberRepository(id: string) {
  try {
    localStorage.setItem(KEY, id)
  } catch {
    // As above: remembering is a convenience.
  }
}

export function repositoryForNewChat(
  registered: readonly { id: string }[],
  ...preferences: (string | undefined)[]
): string | undefined {
  for (const id of preferences) if (id && registered.some((w) => w.id === id)) return id
  return registered[0]?.id
}
