/** An entry of a LinkedList: its links live on the entry itself. */
export interface Linked<T> {
  prev: T | undefined;
  next: T | undefined;
  /** In a list now; false before it is added and once it is removed. */
  listed: boolean;
}

/**
 * Entries that come and go with every request (runs in progress, held claims, body deadlines), oldest
 * first. A Set would do, but one that fills and empties with each request rehashes, allocating, as it
 * grows and shrinks; here adding and removing only move two links.
 */
export class LinkedList<T extends Linked<T>> {
  #head: T | undefined = undefined;
  #tail: T | undefined = undefined;
  size = 0;

  push(entry: T): void {
    entry.prev = this.#tail;
    entry.next = undefined;
    entry.listed = true;
    if (this.#tail === undefined) this.#head = entry;
    else this.#tail.next = entry;
    this.#tail = entry;
    this.size++;
  }

  /** False when the entry was not in the list (never added, or removed already). */
  remove(entry: T): boolean {
    if (!entry.listed) return false;
    if (entry.prev === undefined) this.#head = entry.next;
    else entry.prev.next = entry.next;
    if (entry.next === undefined) this.#tail = entry.prev;
    else entry.next.prev = entry.prev;
    entry.prev = entry.next = undefined;
    entry.listed = false;
    this.size--;
    return true;
  }

  /** The entries as an array, oldest first: a snapshot that removals during a walk over it do not change. */
  toArray(): T[] {
    const entries: T[] = [];
    for (let entry = this.#head; entry !== undefined; entry = entry.next) entries.push(entry);
    return entries;
  }
}
