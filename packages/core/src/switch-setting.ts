/** A setting that turns something on or off: `on`, `true` or `1`, or `off`, `false` or `0` (any case); the default when unset. */
export function switchSetting(name: string, setting: string | undefined, fallback: boolean): boolean {
  if (setting === undefined) return fallback;
  const value = setting.trim().toLowerCase();
  if (['on', 'true', '1'].includes(value)) return true;
  if (['off', 'false', '0'].includes(value)) return false;
  throw new Error(`${name} must be on or off (true or false, 1 or 0), not '${setting}'`);
}
