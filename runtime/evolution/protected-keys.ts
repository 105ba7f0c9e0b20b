/**
 * Fact keys that name what is the owner's alone. A fact is read as guidance by the agent, so a
 * fact "about" tools, hooks, access, secrets or limits could steer around them: refused outright
 * (by the gates when reflection proposes it, and again when the owner approves a held one).
 */
export const PROTECTED_KEY =
  /(^|[._-])(tools?|hooks?|secrets?|vault|auth|authentication|credentials?|passwords?|tokens?|api-?keys?|workspace-access|browser|permissions?|budgets?|limits?|sandbox)([._-]|$)/
