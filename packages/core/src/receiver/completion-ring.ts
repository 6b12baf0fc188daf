/** A growable ring of (key, expiry, completion time): push at the back, shift from the front, both O(1). */
export class Fifo {
  #keys: (string | undefined)[] = new Array(16);
  #expires = new Float64Array(16);
  #completedAt = new Float64Array(16);
  #head = 0;
  size = 0;

  push(key: string, expires: number, completedAt: number): void {
    if (this.size === this.#keys.length) this.#grow();
    const at = (this.#head + this.size) & (this.#keys.length - 1);
    this.#keys[at] = key;
    this.#expires[at] = expires;
    this.#completedAt[at] = completedAt;
    this.size++;
  }

  headKey(): string {
    return this.#keys[this.#head] as string;
  }

  headExpires(): number {
    return this.#expires[this.#head]!;
  }

  headCompletedAt(): number {
    return this.#completedAt[this.#head]!;
  }

  shift(): void {
    this.#keys[this.#head] = undefined; // let the key string go
    this.#head = (this.#head + 1) & (this.#keys.length - 1);
    this.size--;
  }

  #grow(): void {
    const capacity = this.#keys.length * 2;
    const keys = new Array<string | undefined>(capacity);
    const expires = new Float64Array(capacity);
    const completedAt = new Float64Array(capacity);
    for (let i = 0; i < this.size; i++) {
      const from = (this.#head + i) & (this.#keys.length - 1);
      keys[i] = this.#keys[from];
      expires[i] = this.#expires[from]!;
      completedAt[i] = this.#completedAt[from]!;
    }
    this.#keys = keys;
    this.#expires = expires;
    this.#completedAt = completedAt;
    this.#head = 0;
  }
}
