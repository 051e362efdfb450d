// Runs the HubSpot emulator in its own process, so that its work does not share the measured process.
import { startHubspotEmulator } from '@quiver/sandbox';

const emulator = await startHubspotEmulator();
// The token run.mjs calls with; the emulator refuses any it has not issued.
emulator.issueToken('bench-token');
process.stdout.write(`${JSON.stringify({ url: emulator.url })}\n`);
process.on('SIGTERM', () => emulator.close().then(() => process.exit(0)));
