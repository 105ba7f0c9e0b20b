/**
 * Applies a git pack delta to its base: a header with both sizes, then copy-from-base and
 * insert-literal instructions. Every offset is checked against the buffers, and the result's
 * size against `maxBytes`, so a crafted pack cannot make the reader write outside or balloon.
 */
export function applyDelta(base: Buffer, delta: Buffer, maxBytes: number): Buffer {
  let p = 0
  const byte = () => {
    if (p >= delta.length) throw new Error('truncated delta')
    return delta[p++]!
  }
  const size = () => {
    let value = 0
    let shift = 0
    let c: number
    do {
      c = byte()
      value += (c & 0x7f) * 2 ** shift
      shift += 7
    } while (c & 0x80 && shift < 56)
    return value
  }
  if (size() !== base.length) throw new Error('delta base size mismatch')
  const length = size()
  if (length > maxBytes) throw new Error('delta result too large')
  const out = Buffer.allocUnsafe(length)
  let o = 0
  while (p < delta.length) {
    const op = byte()
    if (op & 0x80) {
      let offset = 0
      let count = 0
      if (op & 0x01) offset += byte()
      if (op & 0x02) offset += byte() * 0x100
      if (op & 0x04) offset += byte() * 0x10000
      if (op & 0x08) offset += byte() * 0x1000000
      if (op & 0x10) count += byte()
      if (op & 0x20) count += byte() * 0x100
      if (op & 0x40) count += byte() * 0x10000
      if (count === 0) count = 0x10000
      if (offset + count > base.length || o + count > length) throw new Error('bad delta copy')
      base.copy(out, o, offset, offset + count)
      o += count
    } else if (op !== 0) {
      if (p + op > delta.length || o + op > length) throw new Error('bad delta insert')
      delta.copy(out, o, p, p + op)
      p += op
      o += op
    } else throw new Error('reserved delta instruction')
  }
  if (o !== length) throw new Error('delta result size mismatch')
  return out
}
