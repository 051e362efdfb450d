/**
 * Shared pieces of the SupportDesk end-to-end tests: a client that calls the tools through the real
 * dispatcher against the Pylon emulator with the API token as a secret, and the issues planted in the
 * generated workspace whose search results the tests know in advance.
 */
import { readFileSync } from 'node:fs';
import type { PylonEmulator } from '@quiver/sandbox';
import { supportDesk } from '@quiver/toolkits';
import { ToolClient } from './tool-client.helpers.js';

export const TOOLKIT = 'SupportDesk';
export const DAY = 86_400_000;

/** The generated catalog, read from its file so the expectations do not come from the registry under test. */
export const catalog = JSON.parse(readFileSync(new URL('../src/support-desk/catalog.json', import.meta.url), 'utf8')) as {
  tools: Array<{ name: string; parameters: Array<{ name: string; required: boolean; schema: { type: string; enum?: string[] } }> }>;
};

/** A SupportDesk client with these secrets; the API token among them is one the emulator issued. */
export function supportClient(emulator: PylonEmulator, secrets: Record<string, string>, covered: Set<string>): ToolClient {
  if (secrets.SUPPORT_API_TOKEN) emulator.issueToken(secrets.SUPPORT_API_TOKEN);
  return new ToolClient(supportDesk, { upstream: emulator, secrets, covered });
}

/**
 * Issues planted among the generated ones. Their distinctive words (chargeback, duplicate, unused,
 * zebrafish, wombat, quokka) are not in the generated billing issues, so the tests know what a
 * search finds. `age` is in days.
 */
export const planted = {
  duplicateCharge: {
    title: 'Refund for a duplicate charge on invoice INV-9001',
    body_html: '<p>The customer was billed twice for the Growth plan and wants the duplicate charge refunded.</p>',
    age: 0.1,
  },
  chargeback: {
    title: 'Chargeback dispute from Acme Widgets',
    body_html: '<p>Acme Widgets opened a chargeback over a payment in March; finance needs the receipts.</p>',
    age: 0.2,
  },
  unusedSeat: { title: 'Refund request for an unused seat', body_html: '<p>One seat was never used this year; please refund it.</p>', age: 0.3 },
  zebrafishTracker: {
    title: 'Zebrafish tracker duplicates feeding',
    body_html: '<p>Our zebrafish colony tracker shows the zebrafish feed schedule twice.</p>',
    age: 0.4,
  },
  labMove: {
    title: 'Lab relocation checklist',
    body_html:
      '<p>Unrelated text about the lab move, a long body that also mentions zebrafish once among many other words such as freezer, pipette, reagent, microscope, centrifuge, incubator, bench, shelving, labels, boxes, movers, insurance, a forklift, pallets, tape, gloves and a parking permit.</p>',
    age: 0.5,
  },
  /** Inside 30 days but older than the newest 400 issues. */
  wombatOld: { title: 'Wombat sighting in the warehouse', body_html: '<p>A wombat blocks loading bay 3.</p>', age: 29 },
  /** Outside the 30-day window. */
  quokkaOld: { title: 'Quokka mascot artwork', body_html: '<p>The quokka mascot files are corrupted.</p>', age: 31 },
} as const;

export type PlantedName = keyof typeof planted;
