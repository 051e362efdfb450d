/** The sandbox's mail demo: the sandbox user's mailbox with a few messages, one flagged, and a draft-ready thread. */
import type { GraphEmulator } from './emulator.js';

export function seedGraphDemo(emulator: GraphEmulator, token: string): void {
  emulator.addMailbox(token, { displayName: 'Ada Lovelace', givenName: 'Ada', surname: 'Lovelace', mail: 'ada.lovelace@contoso.example', jobTitle: 'Analyst' });
  const day = (n: number) => `2025-01-${String(n).padStart(2, '0')}T09:00:00Z`;
  emulator.receive(token, {
    from: { name: 'Charles Babbage', address: 'charles@engines.example' },
    subject: 'Analytical Engine notes',
    body: 'Could you review the notes on Bernoulli numbers?',
    receivedDateTime: day(6),
    flagged: true,
  });
  emulator.receive(token, {
    from: { name: 'Mary Somerville', address: 'mary@science.example' },
    subject: 'Lunch on Thursday',
    body: 'Are you free for lunch on Thursday?',
    receivedDateTime: day(7),
    cc: ['charles@engines.example'],
  });
  emulator.receive(token, {
    from: { name: 'Quarterly Digest', address: 'news@digest.example' },
    subject: 'Your quarterly digest',
    body: '<p>The <b>quarter</b> in review.</p>',
    bodyType: 'html',
    receivedDateTime: day(8),
    isRead: true,
  });
}
