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
