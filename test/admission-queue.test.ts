import assert from 'node:assert/strict'
import { test } from 'node:test'
import { createAdmissionQueue, holdLeaseForStream } from '../compute-host/models/admission-queue.ts'
import { createLocalRouteMatcher } from '../compute-host/models/local-routes.ts'
import { startScriptedGateway } from './support/scripted-gateway.ts'

const tick = () => new Promise((r) => setImmediate(r))

test('never more than the limit in flight at the gateway, with slots held for whole streams', async () => {
  const gateway = await startScriptedGateway()
  const queue = createAdmissionQueue(2)
  let peak = 0
  const sampler = setInterval(() => (peak = Math.max(peak, gateway.active())), 2)
  try {
    const runs = Array.from({ length: 8 }, async (_, i) => {
      gateway.enqueue({ text: ['a', 'b', 'c', 'd'], chunkDelayMs: 15 })
      const lease = await queue.acquire()
      const res = await fetch(`${gateway.url}/chat/completions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({
          model: 'titan/x',
          stream: true,
          messages: [{ role: 'user', content: String(i) }],
        }),
      })
      const stream = holdLeaseForStream(res.body!, lease)
      assert.ok(queue.stats().active <= 2)
      await new Response(stream).text()
    })
    await Promise.all(runs)
  } finally {
    clearInterval(sampler)
    await gateway.close()
  }
  assert.equal(peak, 2, 'the limit was reached and never exceeded')
  assert.deepEqual(queue.stats(), { limit: 2, active: 0, queued: 0 })
})

test('waiters are admitted in FIFO order', async () => {
  const queue = createAdmissionQueue(1)
  const first = await queue.acquire()
  const order: number[] = []
  const waiting = [1, 2, 3, 4, 5].map((n) =>
    queue.acquire().then((lease) => {
      order.push(n)
      return lease
    }),
  )
  assert.equal(queue.stats().queued, 5)
  first.release()
  for (const w of waiting) (await w).release()
  assert.deepEqual(order, [1, 2, 3, 4, 5])
  assert.deepEqual(queue.stats(), { limit: 1, active: 0, queued: 0 })
})

test('an aborted waiter leaves the queue and never runs', async () => {
  const queue = createAdmissionQueue(1)
  const holder = await queue.acquire()
  const abort = new AbortController()
  let ran = false
  const aborted = queue.acquire(abort.signal).then(() => (ran = true))
  const next = queue.acquire()
  assert.equal(queue.stats().queued, 2)
  abort.abort(new Error('user stopped the turn'))
  await assert.rejects(aborted, /user stopped the turn/)
  assert.equal(queue.stats().queued, 1)
  holder.release()
  ;(await next).release()
  assert.equal(ran, false)
  await assert.rejects(queue.acquire(AbortSignal.abort()), 'an already aborted signal never queues')
  assert.deepEqual(queue.stats(), { limit: 1, active: 0, queued: 0 })
})

test('a slot is released only when the stream ends or is cancelled, and only once', async () => {
  const queue = createAdmissionQueue(1)
  let push!: ReadableStreamDefaultController<string>
  const source = new ReadableStream<string>({ start: (c) => void (push = c) })
  const lease = await queue.acquire()
  const reader = holdLeaseForStream(source, lease).getReader()
  push.enqueue('x')
  assert.equal((await reader.read()).value, 'x')
  assert.equal(queue.stats().active, 1, 'still generating: the slot stays leased')
  push.close()
  assert.equal((await reader.read()).done, true)
  assert.equal(queue.stats().active, 0)
  lease.release()
  assert.equal(queue.stats().active, 0, 'a second release does not free anyone else’s slot')

  const second = await queue.acquire()
  const cancelled = holdLeaseForStream(new ReadableStream<string>({ start: () => {} }), second)
  assert.equal(queue.stats().active, 1)
  await cancelled.cancel('client went away')
  assert.equal(queue.stats().active, 0)
})

test('after 10,000 random cancellations and completions the queue is empty', async () => {
  const queue = createAdmissionQueue(2)
  let seed = 42
  const random = () => (seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31) / 2 ** 31
  let inFlight = 0
  let peak = 0
  const ops: Promise<unknown>[] = []
  for (let i = 0; i < 10_000; i++) {
    const abort = new AbortController()
    const op = queue.acquire(abort.signal).then(
      async (lease) => {
        inFlight++
        peak = Math.max(peak, inFlight)
        await (random() < 0.5 ? tick() : Promise.resolve())
        inFlight--
        lease.release()
      },
      () => {},
    )
    if (random() < 0.4) {
      if (random() < 0.5) abort.abort()
      else setImmediate(() => abort.abort())
    }
    ops.push(op)
    if (i % 100 === 0) await tick()
  }
  await Promise.all(ops)
  assert.ok(peak <= 2)
  assert.deepEqual(queue.stats(), { limit: 2, active: 0, queued: 0 })
})

test('local routes are decided by configured prefixes', () => {
  const isLocal = createLocalRouteMatcher(['titan/', ' '])
  assert.equal(isLocal('titan/ornith-1.0-9b-mtp-q4_k_m'), true)
  assert.equal(isLocal('cx/gpt-5.3-codex-spark'), false)
  assert.equal(createLocalRouteMatcher([])('titan/x'), false)
})
