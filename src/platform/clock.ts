/** The one source of time. Tests and PARLEY_TEST_CLOCK=1 use the settable kind. */
export interface Clock {
  now(): Date;
}

export const systemClock: Clock = { now: () => new Date() };

export class SettableClock implements Clock {
  private offsetMs = 0;
  private readonly listeners: Array<() => void> = [];
  now(): Date {
    return new Date(Date.now() + this.offsetMs);
  }
  set(at: Date): void {
    this.setOffset(at.getTime() - Date.now());
  }
  advance(seconds: number): void {
    this.setOffset(this.offsetMs + seconds * 1000);
  }
  /** How far this clock is ahead of real time, in milliseconds. */
  offset(): number {
    return this.offsetMs;
  }
  setOffset(offsetMs: number): void {
    if (offsetMs === this.offsetMs) return;
    this.offsetMs = offsetMs;
    this.listeners.forEach((l) => l());
  }
  /** Called whenever time is moved, so due background work can run. */
  onChange(listener: () => void): void {
    this.listeners.push(listener);
  }
}

export function utcDay(at: Date): string {
  return at.toISOString().slice(0, 10);
}

export function utcMonth(at: Date): string {
  return `${at.getUTCFullYear()}-${String(at.getUTCMonth() + 1).padStart(2, '0')}`;
}
