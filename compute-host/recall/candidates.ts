import type { RecallKind } from '../../db/memory-enums.ts'

/** One recall item as a search leg found it, with what provenance needs. */
export type Candidate = {
  id: string
  kind: RecallKind
  content: string
  sessionId: string | null
  sessionTitle: string | null
  memoryId: string | null
  turnId: string | null
  createdAt: Date
  /** 1-based rank in the full-text leg, when it matched there. */
  ftsRank?: number
  /** 1-based rank and cosine similarity in the vector leg, when it was found there. */
  vectorRank?: number
  cosine?: number
}

/** A candidate chosen for the block: its fused score and the text as injected. */
export type RecalledItem = Candidate & { score: number; text: string; tokens: number }
