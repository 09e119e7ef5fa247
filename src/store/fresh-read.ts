/**
 * Wraps a read so that callers share round trips without ever getting an answer older than their call: a caller gets
 * a read that was *sent after* it called. While a read is in flight, every new caller waits for the one read sent
 * when it ends, so a steady stream of callers costs one read per round trip instead of one per caller.
 *
 * (A read that had already been sent when the caller arrived could miss a commit made just before the call; that is
 * why callers never join it.)
 */
export function readStartedAfterCall<T>(read: () => Promise<T>): () => Promise<T> {
  let inFlight: Promise<T> | undefined;
  let next: Promise<T> | undefined;
  const send = () => {
    const sent = read();
    inFlight = sent;
    const settle = () => {
      if (inFlight === sent) inFlight = undefined;
    };
    sent.then(settle, settle);
    return sent;
  };
  return () => {
    if (next) return next;
    if (!inFlight) return send();
    const after = () => {
      next = undefined;
      return send();
    };
    next = inFlight.then(after, after);
    return next;
  };
}
