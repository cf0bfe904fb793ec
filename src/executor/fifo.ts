/**
 * A first-in first-out queue on a growable ring buffer: push and shift in constant
 * time without the O(n) cost of `Array.prototype.shift` on long queues.
 */
export class Fifo<T> {
  /** Its length is a power of two, so a position wraps with a mask. */
  #items: (T | undefined)[];
  #head = 0;
  #size = 0;

  constructor(capacity = 16) {
    let length = 2;
    while (length < capacity) length *= 2;
    this.#items = new Array<T | undefined>(length);
  }

  get size(): number {
    return this.#size;
  }

  push(item: T): void {
    let items = this.#items;
    if (this.#size === items.length) items = this.#grow();
    items[(this.#head + this.#size) & (items.length - 1)] = item;
    this.#size++;
  }

  /** The oldest item, removed; undefined when empty. */
  shift(): T | undefined {
    if (this.#size === 0) return undefined;
    const items = this.#items;
    const item = items[this.#head];
    items[this.#head] = undefined;
    this.#head = (this.#head + 1) & (items.length - 1);
    this.#size--;
    return item;
  }

  clear(): void {
    this.#items.fill(undefined);
    this.#head = 0;
    this.#size = 0;
  }

  #grow(): (T | undefined)[] {
    const old = this.#items;
    const next = new Array<T | undefined>(old.length * 2);
    for (let k = 0; k < this.#size; k++) next[k] = old[(this.#head + k) & (old.length - 1)];
    this.#items = next;
    this.#head = 0;
    return next;
  }
}
