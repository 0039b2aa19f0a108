/**
 * Applies an ordering policy's priority changes (`order/policy.ts`, "Re-prioritizing") to the
 * frontier: ids are turned into the URL fingerprints the frontier knows URLs by, in arrays given
 * back once applied (`UrlIds.fingerprintsOf`). A frontier that cannot change priorities, or a node
 * that numbers no URLs, ignores them.
 */
import { canReprioritize, type Frontier } from '../../frontier/frontier.js';
import type { PriorityChanges } from '../../order/policy.js';
import type { UrlIds } from '../../url/url-ids.js';

/** Gives every URL named in `changes` its new priority; returns how many the frontier still held. */
export function applyPriorityChanges(changes: PriorityChanges, urlIds: UrlIds | null, frontier: Frontier): number {
  if (urlIds === null || !canReprioritize(frontier)) return 0;
  const n = changes.length;
  const { his, los } = urlIds.fingerprintsOf(changes.ids, n);
  try {
    return frontier.reprioritizeFingerprints(n, his, los, changes.priorities);
  } finally {
    urlIds.releaseFingerprints();
  }
}
