export { startHubspotEmulator, type HubspotEmulator, type HubspotEmulatorOptions } from './emulator.js';
export type { FormSubmission } from './forms.js';
export { HubspotError, type Handler, type HubspotContext, type HubspotRequest, type HubspotResponse } from './context.js';
