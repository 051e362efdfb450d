/** Joins a service's handler maps into one, refusing two handlers for one operation. */
export function combineHandlers<Handler>(service: string, ...maps: Array<Record<string, Handler>>): Record<string, Handler> {
  const combined: Record<string, Handler> = {};
  for (const map of maps) {
    for (const [label, handler] of Object.entries(map)) {
      if (combined[label]) throw new Error(`${service} emulator: two handlers for ${label}`);
      combined[label] = handler;
    }
  }
  return combined;
}
