import type { SettableClock } from './clock.ts';

/**
 * Work that falls due as time passes (mail retries, expiries): run now, every
 * `everyMs`, and whenever the test clock moves, so a test that moves the clock
 * sees the due work done without waiting. One run at a time; a call while one
 * runs asks for one more run after it. Returns the stop function.
 */
export function runPeriodically(
  options: { name: string; everyMs: number; testClock: SettableClock | undefined },
  work: () => Promise<unknown>,
): { kick(): void; stop(): Promise<void> } {
  let running: Promise<void> | undefined;
  let again = false;
  let stopped = false;
  const kick = (): void => {
    if (stopped) return;
    if (running) {
      again = true;
      return;
    }
    running = work()
      .then(() => undefined)
      .catch((error) => console.error(`[${options.name}]`, error))
      .finally(() => {
        running = undefined;
        if (again) {
          again = false;
          kick();
        }
      });
  };
  const timer = setInterval(kick, options.everyMs);
  timer.unref();
  options.testClock?.onChange(kick);
  kick();
  return {
    kick,
    stop: async () => {
      stopped = true;
      clearInterval(timer);
      await running;
    },
  };
}
