// The core names each linked kind's own fields; the HTTP edge reads each of them. The two lists must agree, or a field
// would be read and never written (or written from a value never validated).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { organizerFieldArgs } from '../../src/core/organizers/input.ts';
import { organizerKind } from '../../src/core/organizers/kind.ts';
import { venueFieldArgs } from '../../src/core/venues/input.ts';
import { venueKind } from '../../src/core/venues/kind.ts';

describe('linked kinds: fields named by the core, read by the edge', () => {
  it('names exactly the fields the edge reads, for venues and organizers', () => {
    assert.deepEqual([...venueKind.fieldNames].sort(), Object.keys(venueFieldArgs).sort());
    assert.deepEqual([...organizerKind.fieldNames].sort(), Object.keys(organizerFieldArgs).sort());
  });
});
