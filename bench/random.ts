// The benchmark's one source of randomness: seeded, so that two runs send the same requests.

/** A deterministic pseudo-random sequence in [0, 1), so that two runs seed and ask for the same things. */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state * 1664525 + 1013904223) >>> 0;
    return state / 2 ** 32;
  };
}
