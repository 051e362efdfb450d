/** The generated Customer.io Track API operation table (see scripts/generate/customerio-emulator.ts). */
import type { OperationTable } from '../emulator/operations.js';
import generated from './operations.json' with { type: 'json' };

export const operationTable = generated as unknown as OperationTable;
