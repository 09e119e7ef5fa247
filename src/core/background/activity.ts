// How many requests this process is serving right now, in memory a worker thread can read too: background work (the
// webhook delivery worker, D27) yields to requests instead of taking their time.

/** One counter per process, shared with worker threads through its buffer. */
export class RequestActivity {
  readonly buffer: SharedArrayBuffer;
  readonly #count: Int32Array;

  constructor(buffer: SharedArrayBuffer = new SharedArrayBuffer(4)) {
    this.buffer = buffer;
    this.#count = new Int32Array(buffer);
  }

  begin(): void {
    Atomics.add(this.#count, 0, 1);
  }

  end(): void {
    Atomics.sub(this.#count, 0, 1);
  }

  get busy(): boolean {
    return Atomics.load(this.#count, 0) > 0;
  }
}

/** This process's requests (plugins/activity.ts counts them). */
export const requestActivity = new RequestActivity();
