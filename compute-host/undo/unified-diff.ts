/**
 * A unified diff of two texts (3 lines of context), bounded: the common head and tail are
 * trimmed, the middle is compared line by line when it is small enough, and shown as all removed
 * then all added when it is not. Used for display only.
 */
const CONTEXT = 3
const MAX_CELLS = 4_000_000

type Op = { kind: ' ' | '-' | '+'; line: string }

export function unifiedDiff(path: string, before: string | null, after: string | null): string {
  const a = before === null || before === '' ? [] : splitLines(before)
  const b = after === null || after === '' ? [] : splitLines(after)
  const ops = diffLines(a, b)
  const header = `--- ${before === null ? '/dev/null' : `a/${path}`}\n+++ ${after === null ? '/dev/null' : `b/${path}`}\n`
  return header + hunks(ops).join('')
}

function splitLines(text: string): string[] {
  const lines = text.split('\n')
  if (lines.at(-1) === '') lines.pop()
  else lines[lines.length - 1] += '\n\\ No newline at end of file'
  return lines
}

function diffLines(a: string[], b: string[]): Op[] {
  let head = 0
  while (head < a.length && head < b.length && a[head] === b[head]) head++
  let tail = 0
  while (
    tail < a.length - head &&
    tail < b.length - head &&
    a[a.length - 1 - tail] === b[b.length - 1 - tail]
  ) {
    tail++
  }
  const x = a.slice(head, a.length - tail)
  const y = b.slice(head, b.length - tail)
  const middle: Op[] = []
  if (x.length * y.length <= MAX_CELLS && x.length > 0 && y.length > 0) {
    // Longest common subsequence, table from the end.
    const w = y.length + 1
    const table = new Uint32Array((x.length + 1) * w)
    for (let i = x.length - 1; i >= 0; i--) {
      for (let j = y.length - 1; j >= 0; j--) {
        table[i * w + j] =
          x[i] === y[j]
            ? table[(i + 1) * w + j + 1]! + 1
            : Math.max(table[(i + 1) * w + j]!, table[i * w + j + 1]!)
      }
    }
    let i = 0
    let j = 0
    while (i < x.length && j < y.length) {
      if (x[i] === y[j]) {
        middle.push({ kind: ' ', line: x[i]! })
        i++
        j++
      } else if (table[(i + 1) * w + j]! >= table[i * w + j + 1]!) {
        middle.push({ kind: '-', line: x[i++]! })
      } else middle.push({ kind: '+', line: y[j++]! })
    }
    while (i < x.length) middle.push({ kind: '-', line: x[i++]! })
    while (j < y.length) middle.push({ kind: '+', line: y[j++]! })
  } else {
    for (const line of x) middle.push({ kind: '-', line })
    for (const line of y) middle.push({ kind: '+', line })
  }
  return [
    ...a.slice(0, head).map((line) => ({ kind: ' ' as const, line })),
    ...middle,
    ...a.slice(a.length - tail).map((line) => ({ kind: ' ' as const, line })),
  ]
}

function hunks(ops: Op[]): string[] {
  const out: string[] = []
  const changed = ops.map((op, i) => (op.kind === ' ' ? -1 : i)).filter((i) => i >= 0)
  if (changed.length === 0) return out
  // Group changes whose context overlaps.
  const groups: Array<[number, number]> = []
  for (const i of changed) {
    const last = groups.at(-1)
    if (last && i - last[1] <= CONTEXT * 2 + 1) last[1] = i
    else groups.push([i, i])
  }
  // Line numbers of each op in a and b.
  const aLine: number[] = []
  const bLine: number[] = []
  let la = 1
  let lb = 1
  for (const op of ops) {
    aLine.push(la)
    bLine.push(lb)
    if (op.kind !== '+') la++
    if (op.kind !== '-') lb++
  }
  for (const [first, last] of groups) {
    const start = Math.max(0, first - CONTEXT)
    const end = Math.min(ops.length - 1, last + CONTEXT)
    const slice = ops.slice(start, end + 1)
    const aCount = slice.filter((op) => op.kind !== '+').length
    const bCount = slice.filter((op) => op.kind !== '-').length
    const aStart = aCount === 0 ? aLine[start]! - 1 : aLine[start]!
    const bStart = bCount === 0 ? bLine[start]! - 1 : bLine[start]!
    out.push(`@@ -${aStart},${aCount} +${bStart},${bCount} @@\n`)
    for (const op of slice) out.push(`${op.kind}${op.line}\n`)
  }
  return out
}
