/**
 * The writes the frontier store has made and not yet committed, held in front of LMDB.
 *
 * Why not lmdb-js's own asynchronous `put`: those are committed by its write thread some event turns
 * later, and until then reads do not see them. The frontier answers synchronously (its interface has
 * no promises), so it must read its own writes at once: a URL added and then looked up, a host's URLs
 * added and then paged in. So writes collect here, point lookups consult this table first, and the
 * store commits the lot in one synchronous transaction when the table is full or a flush asks for it.
 * Range reads merge these writes with what LMDB returns (the store keeps the keys they need for that).
 *
 * Each key keeps only its latest write: committing the final value is the same as replaying every
 * write in order, so a commit takes the store from the state after one operation to the state after
 * a later one, never to a mix.
 */
import type { Database } from 'lmdb';

/** The value of a pending removal. */
export const REMOVED: unique symbol = Symbol('removed');

/** What a lookup finds pending for a key: a value, or {@link REMOVED}. */
export interface Pending {
  readonly value: unknown;
}

interface Slot {
  readonly key: Buffer;
  value: unknown;
}

/** Latest write per key, per table, applied in one transaction; see the file comment. */
export class PendingWrites {
  private readonly tables = new Map<Database<unknown, Buffer>, Map<string, Slot>>();
  private count = 0;

  /** Writes pending, over all tables (one per key). */
  get size(): number {
    return this.count;
  }

  /** Pending value of `key` in `db`, or undefined when nothing is pending for it. */
  lookup(db: Database<unknown, Buffer>, key: Buffer): Pending | undefined {
    return this.tables.get(db)?.get(key.toString('latin1'));
  }

  put(db: Database<unknown, Buffer>, key: Buffer, value: unknown): void {
    this.write(db, key, value);
  }

  remove(db: Database<unknown, Buffer>, key: Buffer): void {
    this.write(db, key, REMOVED);
  }

  /** Applies every pending write to the write transaction under way, then forgets them. */
  applyInTransaction(): void {
    for (const [db, slots] of this.tables) {
      for (const slot of slots.values()) {
        if (slot.value === REMOVED) db.removeSync(slot.key);
        else db.putSync(slot.key, slot.value);
      }
    }
    this.clear();
  }

  /** Forgets every pending write. */
  clear(): void {
    for (const slots of this.tables.values()) slots.clear();
    this.count = 0;
  }

  private write(db: Database<unknown, Buffer>, key: Buffer, value: unknown): void {
    let slots = this.tables.get(db);
    if (slots === undefined) {
      slots = new Map();
      this.tables.set(db, slots);
    }
    const id = key.toString('latin1');
    const slot = slots.get(id);
    if (slot !== undefined) {
      slot.value = value;
    } else {
      slots.set(id, { key, value });
      this.count++;
    }
  }
}
