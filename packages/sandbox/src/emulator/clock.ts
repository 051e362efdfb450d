/** A clock the tests control: emulators read time only through it. It runs on from where it is set. */
export interface Clock {
  now(): number;
  advance(ms: number): void;
  set(epochMs: number): void;
}

export function createClock(start: number = Date.now()): Clock {
  let offset = start - Date.now();
  return {
    now: () => Date.now() + offset,
    advance(ms) {
      offset += ms;
    },
    set(epochMs) {
      offset = epochMs - Date.now();
    },
  };
}

/** A clock that stands still unless a test moves it, so that timestamps and windows are exact. */
export function stillClock(start: number = Date.now()): Clock {
  let now = start;
  return {
    now: () => now,
    advance(ms) {
      now += ms;
    },
    set(epochMs) {
      now = epochMs;
    },
  };
}
