/**
 * A first-in first-out queue on a growable ring buffer: push and shift in constant
 * time without the O(n) cost of `Array.prototype.shift` on long queues.
 */
export class Fifo<T> {
  #items: (T | undefined)[];
  #head = 0;
  #size = 0;

  constructor(capacity = 16) {
    this.#items = new Array<T | undefined>(capacity);
  }

  get size(): number {
    return this.#size;
  }

  push(item: T): void {
    const items = this.#items;
    if (this.#size === items.length) this.#grow();
    const at = (this.#head + this.#size) % this.#items.length;
    this.#items[at] = item;
    this.#size++;
  }

  /** The oldest item, removed; undefined when empty. */
  shift(): T | undefined {
    if (this.#size === 0) return undefined;
    const items = this.#items;
    const item = items[this.#head];
    items[this.#head] = undefined;
    this.#head = (this.#head + 1) % items.length;
    this.#size--;
    return item;
  }

  clear(): void {
    this.#items.fill(undefined);
    this.#head = 0;
    this.#size = 0;
  }

  #grow(): void {
    const old = this.#items;
    const next = new Array<T | undefined>(Math.max(16, old.length * 2));
    for (let k = 0; k < this.#size; k++) next[k] = old[(this.#head + k) % old.length];
    this.#items = next;
    this.#head = 0;
  }
}
