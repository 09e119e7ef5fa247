// What a stored document (D34) depends on beyond the rows it was rendered from: the settings the serialisers read and
// the renderer's own version. A document whose fingerprint is not the running configuration's is never served: the
// reader renders live, and the documents job (core/background/documents.ts) renders it again.
import { createHash } from 'node:crypto';
import type { Config } from '../../config.ts';

/** Raise whenever a serialiser's output changes shape, so that documents rendered by the old code are replaced. */
export const RENDERER_VERSION = 1;

const fingerprints = new WeakMap<Config, string>();

/** The fingerprint of documents rendered under `config`. */
export function documentFingerprint(config: Config): string {
  let fingerprint = fingerprints.get(config);
  if (fingerprint === undefined) {
    const inputs = [
      RENDERER_VERSION,
      config.siteUrl,
      config.apiRoot,
      config.siteTimezone,
      config.currencySymbol,
      config.currencyPosition,
      config.currencyCode,
    ];
    fingerprint = createHash('sha256').update(JSON.stringify(inputs)).digest('base64url').slice(0, 22);
    fingerprints.set(config, fingerprint);
  }
  return fingerprint;
}
