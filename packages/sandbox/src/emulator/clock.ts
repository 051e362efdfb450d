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
