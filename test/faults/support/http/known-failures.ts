/**
 * Bugs the bad-input suite found that are outside the fault suite's files, reported to the lead
 * with a repro. Each has its own `todo` test that fails while the bug is there; the main checks
 * set only these lines aside, so anything new still fails them.
 */
export type KnownFailure = { id: string; what: string; matches: (logLine: string) => boolean }

export const KNOWN_ERROR_LOGS: KnownFailure[] = [
  {
    id: 'chat-unstorable-text',
    what:
      'POST /api/chat accepts a message with NUL or a lone surrogate (e.g. message.id "a\\u0000b" ' +
      'or "\\ud800"), answers 200, then cannot save the turn (jsonb refuses both) and Mastra ' +
      "fails to persist it: ChatRequest's message lacks the NUL check SaveSessionInput has",
    matches: (l) =>
      (/could not save the turn/.test(l) && /\\+u0000|\\+ud[89a-f][0-9a-f]{2}/i.test(l)) ||
      /invalid byte sequence for encoding \\*"UTF8\\*": 0x00/.test(l),
  },
  {
    id: 'chat-metadata-not-an-object',
    what:
      'POST /api/chat accepts message.metadata of any JSON type (UiMessage.metadata is ' +
      'z.unknown()); when observational memory runs in such a turn, its input step fails with ' +
      "\"Cannot create property 'mastra' on string 'a'\" (logged at error level, the turn still 200)",
    matches: (l) => /Cannot create property 'mastra' on/.test(l),
  },
]

export const knownFailureOf = (line: string) => KNOWN_ERROR_LOGS.find((k) => k.matches(line))
