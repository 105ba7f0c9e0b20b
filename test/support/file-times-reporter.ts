/**
 * A second test reporter beside `spec` (test/run.ts): once the run ends, the slowest test files
 * by wall time, from when each file was taken up to its last event. CI's limit is what the whole run
 * takes on two cores, so this list says where to trim first.
 */
type TestEvent = { type: string; data?: { file?: string; nesting?: number; name?: string } }

const SHOWN = 15

export default async function* fileTimes(source: AsyncIterable<TestEvent>) {
  const spans = new Map<string, { first: number; last: number }>()
  for await (const event of source) {
    const file = event.data?.file
    // Every file is enqueued when the run starts; its time starts when it is dequeued.
    if (!file || event.type === 'test:enqueue') continue
    const now = performance.now()
    const span = spans.get(file)
    if (span) span.last = now
    else spans.set(file, { first: now, last: now })
  }
  const slowest = [...spans]
    .map(([file, { first, last }]) => ({ file, seconds: (last - first) / 1000 }))
    .sort((a, b) => b.seconds - a.seconds)
    .slice(0, SHOWN)
  if (!slowest.length) return
  const root = process.cwd() + '/'
  yield `\nslowest test files (wall seconds, first to last event):\n`
  for (const { file, seconds } of slowest) {
    yield `  ${seconds.toFixed(1).padStart(6)}  ${file.replace(root, '')}\n`
  }
}
