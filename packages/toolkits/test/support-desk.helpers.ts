/**
 * Shared pieces of the SupportDesk end-to-end tests: a client that calls the tools through the real
 * Runtime against the Pylon emulator with the API token as a secret, and the issues planted in the
 * generated workspace whose search results the tests know in advance.
 */
import { readFileSync } from 'node:fs';
import { Runtime, ToolRegistry, UpstreamClient, type ToolError, type ToolResult } from '@quiver/core';
import type { PylonEmulator } from '@quiver/sandbox';
import { supportDesk } from '@quiver/toolkits';

export const TOOLKIT = 'SupportDesk';
export const DAY = 86_400_000;

/** The generated catalog, read from its file so the expectations do not come from the registry under test. */
export const catalog = JSON.parse(readFileSync(new URL('../src/support-desk/catalog.json', import.meta.url), 'utf8')) as {
  tools: Array<{ name: string; parameters: Array<{ name: string; required: boolean; schema: { type: string; enum?: string[] } }> }>;
};

export class SupportClient {
  private readonly runtime: Runtime;
  private readonly client = new UpstreamClient({ maxRetries: 0 });

  constructor(
    emulator: PylonEmulator,
    readonly secrets: Record<string, string>,
    private readonly covered: Set<string>,
  ) {
    this.runtime = new Runtime(new ToolRegistry([supportDesk]), () => ({ baseUrl: emulator.url, secrets, client: this.client }));
    if (secrets.SUPPORT_API_TOKEN) emulator.issueToken(secrets.SUPPORT_API_TOKEN);
  }

  async attempt(tool: string, input: unknown): Promise<ToolResult> {
    const result = await this.runtime.call(`${TOOLKIT}.${tool}`, input);
    if ('value' in result) this.covered.add(tool);
    return result;
  }

  async call(tool: string, input: Record<string, unknown> = {}): Promise<any> {
    const result = await this.attempt(tool, input);
    if ('error' in result) throw new Error(`${tool} failed: ${result.error.kind}: ${result.error.message}`);
    return result.value;
  }

  async fail(tool: string, input: unknown): Promise<ToolError> {
    const result = await this.attempt(tool, input);
    if (!('error' in result)) throw new Error(`${tool} should have failed but answered ${JSON.stringify(result.value)}`);
    return result.error;
  }

  close = () => this.client.close();
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
