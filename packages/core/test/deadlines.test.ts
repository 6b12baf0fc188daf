import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { clearDeadline, type Deadline, setDeadline } from '../src/adapter/deadlines.js';

describe('setDeadline', () => {
  beforeEach(() => {
    vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval', 'performance'] });
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('calls onExpiry once, within a tick after its time, unless cleared first', () => {
    const fired: string[] = [];
    setDeadline(250, () => fired.push('due'));
    const cleared = setDeadline(250, () => fired.push('cleared'));
    clearDeadline(cleared);
    vi.advanceTimersByTime(200);
    expect(fired).toEqual([]);
    vi.advanceTimersByTime(200);
    expect(fired).toEqual(['due']);
    vi.advanceTimersByTime(1000);
    expect(fired).toEqual(['due']);
  });

  it('fires due deadlines oldest first, skipping one a firing clears and reaching the ones after it', () => {
    const fired: string[] = [];
    let later: Deadline | undefined;
    setDeadline(100, () => {
      fired.push('first');
      clearDeadline(later!);
    });
    later = setDeadline(100, () => fired.push('cleared by first'));
    setDeadline(100, () => fired.push('third'));
    setDeadline(1000, () => fired.push('not due'));
    vi.advanceTimersByTime(150);
    expect(fired).toEqual(['first', 'third']);
    vi.advanceTimersByTime(1000);
    expect(fired).toEqual(['first', 'third', 'not due']);
  });
});

describe('the pending list', () => {
  beforeEach(() => {
    vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval', 'performance'] });
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('keeps every deadline that is not cleared, whichever were cleared around it (first, middle, last)', () => {
    const fired: number[] = [];
    const deadlines = [0, 1, 2, 3, 4, 5].map((n) => setDeadline(100, () => fired.push(n)));
    for (const n of [0, 2, 5]) clearDeadline(deadlines[n]!);
    clearDeadline(deadlines[2]!); // twice: no effect
    vi.advanceTimersByTime(150);
    expect(fired).toEqual([1, 3, 4]);
    clearDeadline(deadlines[1]!); // after it fired: no effect on the ones set next
    const later = setDeadline(100, () => fired.push(6));
    setDeadline(100, () => fired.push(7));
    clearDeadline(later);
    vi.advanceTimersByTime(150);
    expect(fired).toEqual([1, 3, 4, 7]);
  });

  it('fires a deadline set by a firing on a later tick, not in the sweep that set it', () => {
    const fired: string[] = [];
    setDeadline(100, () => {
      fired.push('first');
      setDeadline(100, () => fired.push('set by first'));
    });
    vi.advanceTimersByTime(100);
    expect(fired).toEqual(['first']);
    vi.advanceTimersByTime(100);
    expect(fired).toEqual(['first', 'set by first']);
  });
});
