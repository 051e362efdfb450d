/** The generated Pylon operation table (see scripts/generate/pylon-emulator.ts). */
import type { OperationTable } from '../emulator/operations.js';
import generated from './operations.json' with { type: 'json' };

export const operationTable = generated as unknown as OperationTable;
