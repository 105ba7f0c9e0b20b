import type { UnavailableTool } from './factory.ts'

/**
 * An agent's instructions with a closing note on the tools it holds but cannot use in this run,
 * each with its reason (no sandbox, no repository directory, a tool missing its service). The
 * model hears why up front and can tell the owner what to fix, instead of finding the tool absent
 * and guessing.
 */
export function withUnavailableNote(instructions: string, missing: readonly UnavailableTool[]) {
  if (missing.length === 0) return instructions
  const lines = missing.map((m) => `- ${m.tool}: ${m.reason}`)
  return `${instructions}\n\nTools you hold but cannot use in this run (say so if the task needs them):\n${lines.join('\n')}`
}
