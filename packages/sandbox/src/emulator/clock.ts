/** A clock the tests control: emulators read time only through it. */
export interface Clock {
  now(): number;
  advance(ms: number): void;
  set(epochMs: number): void;
}

export function createClock(start: number = Date.now()): Clock {
  let offset = start - Date.now();
  let frozen: number | undefined;
  return {
    now: () => frozen ?? Date.now() + offset,
    advance(ms) {
      if (frozen !== undefined) frozen += ms;
      else offset += ms;
    },
    set(epochMs) {
      frozen = undefined;
      offset = epochMs - Date.now();
    },
  };
}
