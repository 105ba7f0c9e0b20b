import { setImmediate } from 'node:timers/promises'

/**
 * Lets the event loop turn once, so that pending I/O goes out before the caller goes on.
 *
 * Why a stream needs it: Node's HTTP response corks its socket on a write and uncorks it on the
 * next tick, and the next tick comes only when the microtask queue is empty. A burst of model
 * deltas that arrived in one read is worked through in microtasks from start to end, so without
 * a turn of the loop in between, the first words leave the host together with the last: in the
 * turn-latency bench, about 7 ms later than they could have.
 */
export function yieldToIo(): Promise<void> {
  return setImmediate()
}
