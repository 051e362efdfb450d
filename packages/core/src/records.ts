/** A JSON object: not null, not an array (what a result's fields, a config file's sections and paging keys are read from). */
export const isRecord = (value: unknown): value is Record<string, unknown> => value !== null && typeof value === 'object' && !Array.isArray(value);
