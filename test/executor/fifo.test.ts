import { Fifo } from '../../src/executor/fifo';

describe('Fifo (unit)', () => {
  it('keeps first-in first-out order across wrap-around and growth', () => {
    const fifo = new Fifo<number>(2);
    const model: number[] = [];
    let next = 0;
    // Interleave pushes and shifts so the ring wraps before it grows, several times.
    for (let round = 0; round < 50; round++) {
      for (let k = 0; k < (round % 7) + 1; k++) {
        fifo.push(next);
        model.push(next++);
      }
      for (let k = 0; k < round % 5; k++) expect(fifo.shift()).toBe(model.shift());
      expect(fifo.size).toBe(model.length);
    }
    while (model.length > 0) expect(fifo.shift()).toBe(model.shift());
    expect(fifo.shift()).toBeUndefined();
  });

  it('is empty after clear', () => {
    const fifo = new Fifo<string>();
    fifo.push('a');
    fifo.push('b');
    fifo.clear();
    expect(fifo.size).toBe(0);
    expect(fifo.shift()).toBeUndefined();
    fifo.push('c');
    expect(fifo.shift()).toBe('c');
  });
});
