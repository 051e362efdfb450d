// Runs the HubSpot emulator in its own process, so that its work does not share the measured process.
import { startHubspotEmulator } from '@quiver/sandbox';

const emulator = await startHubspotEmulator();
// The tokens run.mjs calls with and the engine's test fixture holds; the emulator refuses any it has not issued.
for (const token of ['bench-token', 'test-token']) emulator.issueToken(token);
process.stdout.write(`${JSON.stringify({ url: emulator.url })}\n`);
process.on('SIGTERM', () => emulator.close().then(() => process.exit(0)));
