/**
 * `payload`'s bytes in a Buffer whose memory is its own. Node makes a small Buffer (`Buffer.from` of a string, a
 * `Buffer.concat`: anything under half of `Buffer.poolSize`, 64 KiB in Node 24) as a slice of a shared 64 KiB slab,
 * and a slab stays in memory as long as any slice of it does. A cache that keeps answers so made keeps a slab for each
 * (its neighbours, sent and forgotten, cannot free it), and its bound on bytes does not bound its memory: after
 * 20,000 reads by id of about 6.5 KB in one process, the read cache bounded at 16 MiB, the ArrayBuffers still
 * referenced after a full collection held 81 MiB (62 MiB of them in 64 KiB slabs); 25 MiB with its answers copied so.
 */
export function unpooledBuffer(payload: string | Buffer): Buffer {
  if (typeof payload === 'string') {
    const buffer = Buffer.allocUnsafeSlow(Buffer.byteLength(payload));
    buffer.write(payload);
    return buffer;
  }
  if (payload.byteOffset === 0 && payload.buffer.byteLength === payload.length) return payload;
  const buffer = Buffer.allocUnsafeSlow(payload.length);
  payload.copy(buffer);
  return buffer;
}
