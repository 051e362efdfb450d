/** Text put into the engine's own HTML pages (sign-in, consent, the sandbox's authorization): every value escaped. */
export const escapeHtml = (value: string) => value.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
